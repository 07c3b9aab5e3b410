// The interactive djsb (issue #20, item 6): analyses that talk to the running simulation
// through MPI. No djsb or paper has it: the policy paper notes that djsb ignores message
// exchange between sessions.
//
// The simulation's rank 0 opens a port and publishes it under a service name (psched's
// name service: MPI_Publish_name is PMIx_Publish, served by the leader pschedd; under
// mpirun, Open MPI's ompi-server). Between its iterations it serves: an analysis that
// wants to connect first publishes "<service>-knock" (one at a time: a knock already there
// makes the next analysis retry), the simulation sees it with a non-waiting lookup and
// accepts; then it answers every pending request of its connected analyses, a slice of its
// array a each. MPI_Comm_accept blocks, so the knock tells the simulation when to call it;
// serving only between iterations keeps it single-threaded, as a simulation's steering
// usually is.
//
// An analysis's rank 0 looks the port up (a lookup of a name the simulation published:
// under surpass, the leader resumes the simulation beside the analysis,
// policies/yield.hpp), knocks, connects, pulls k slices spread over its iterations,
// timing each from request to reply, and says goodbye. Both sides use MPI_COMM_SELF of
// their rank 0: the other ranks keep computing.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace psched::djsb {

// The simulation's side; all calls on rank 0 only.
class SliceServer {
 public:
  // Opens and publishes the port. A failure (no name service) is returned as the
  // reason; the simulation then runs without serving.
  std::optional<std::string> Open(const std::string& service);
  // Between iterations: takes a knocking analysis, answers the pending requests.
  void Serve(const std::vector<double>& array);
  // The simulation is done: unpublishes the port (later analyses find none) and answers
  // the analyses still connected until each says goodbye.
  void Close(const std::vector<double>& array);
  int served() const { return served_; }

 private:
  void TakeKnock();
  // Answers what `client` asked; false once it said goodbye (disconnected).
  bool Answer(MPI_Comm& client, const std::vector<double>& array, bool wait);

  std::string service_;
  char port_[MPI_MAX_PORT_NAME] = {};
  bool open_ = false;
  std::string last_knock_;
  std::vector<MPI_Comm> clients_;
  int served_ = 0;
};

// The analysis's side; rank 0 only.
struct PullReport {
  int asked = 0;
  int completed = 0;
  std::vector<double> latencies_s;  // request to reply, one per completed pull
  std::string error;                // why some did not complete
};

class SlicePuller {
 public:
  SlicePuller(std::string service, std::string who, int pulls, int64_t slice)
      : service_(std::move(service)), who_(std::move(who)), pulls_(pulls), slice_(slice) {}
  // Before iteration `k` of `iterations`: pulls when one of the k pulls is due there
  // (spread evenly, the first before iteration 0); connects on the first.
  void MaybePull(int k, int iterations);
  // Says goodbye; the report counts pulls never made as not completed.
  PullReport Finish();

 private:
  bool Connect();
  void Pull();

  std::string service_, who_;
  int pulls_ = 0;
  int64_t slice_ = 0;
  int done_ = 0;
  bool connected_ = false, failed_ = false;
  MPI_Comm server_ = MPI_COMM_NULL;
  PullReport report_;
};

}  // namespace psched::djsb
