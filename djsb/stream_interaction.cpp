#include "djsb/stream_interaction.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace psched::djsb {
namespace {

constexpr int kRequestTag = 1;
constexpr int kReplyTag = 2;

// Name-service calls fail as a matter of course here (a lookup of a knock not yet there):
// their errors are returned while this lives, instead of aborting the program.
class ErrorsReturn {
 public:
  ErrorsReturn() {
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &self_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturn() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, self_);
    MPI_Errhandler_free(&world_);
    MPI_Errhandler_free(&self_);
  }
  ErrorsReturn(const ErrorsReturn&) = delete;
  ErrorsReturn& operator=(const ErrorsReturn&) = delete;

 private:
  MPI_Errhandler world_ = MPI_ERRHANDLER_NULL, self_ = MPI_ERRHANDLER_NULL;
};

std::string KnockName(const std::string& service) {
  return service + "-knock";
}

bool Lookup(const std::string& name, std::string* value) {
  char buf[MPI_MAX_PORT_NAME] = {};
  if (MPI_Lookup_name(name.c_str(), MPI_INFO_NULL, buf) != MPI_SUCCESS) return false;
  *value = buf;
  return true;
}

enum class Answered { kNothing, kSlice, kGoodbye };

}  // namespace

std::optional<std::string> SliceServer::Open(const std::string& service) {
  ErrorsReturn guard;
  service_ = service;
  if (MPI_Open_port(MPI_INFO_NULL, port_) != MPI_SUCCESS) return "MPI_Open_port failed";
  if (MPI_Publish_name(service.c_str(), MPI_INFO_NULL, port_) != MPI_SUCCESS) {
    MPI_Close_port(port_);
    return "MPI_Publish_name('" + service + "') failed: no name service shared with the analyses";
  }
  open_ = true;
  return std::nullopt;
}

void SliceServer::TakeKnock() {
  ErrorsReturn guard;
  std::string who;
  if (!Lookup(KnockName(service_), &who) || who == last_knock_) return;
  last_knock_ = who;  // it stays published until its analysis is connected
  MPI_Comm client = MPI_COMM_NULL;
  if (MPI_Comm_accept(port_, MPI_INFO_NULL, 0, MPI_COMM_SELF, &client) != MPI_SUCCESS) {
    std::fprintf(stderr, "psched-stream: accepting %s failed\n", who.c_str());
    return;
  }
  clients_.push_back(client);
}

bool SliceServer::Answer(MPI_Comm& client, const std::vector<double>& array, bool wait) {
  while (true) {
    int pending = 0;
    if (wait) {
      MPI_Probe(0, kRequestTag, client, MPI_STATUS_IGNORE);
      pending = 1;
    } else {
      MPI_Iprobe(0, kRequestTag, client, &pending, MPI_STATUS_IGNORE);
    }
    if (pending == 0) return true;
    int64_t request[2] = {0, 0};  // offset, count; count 0 says goodbye
    MPI_Recv(request, 2, MPI_INT64_T, 0, kRequestTag, client, MPI_STATUS_IGNORE);
    if (request[1] <= 0) {
      MPI_Comm_disconnect(&client);
      return false;
    }
    const auto size = static_cast<int64_t>(array.size());
    const int64_t count = std::min(request[1], size);
    const int64_t offset = size > count ? request[0] % (size - count + 1) : 0;
    MPI_Send(array.data() + offset, static_cast<int>(count), MPI_DOUBLE, 0, kReplyTag, client);
    ++served_;
  }
}

void SliceServer::Serve(const std::vector<double>& array) {
  if (!open_) return;
  TakeKnock();
  std::erase_if(clients_, [&](MPI_Comm& c) { return !Answer(c, array, false); });
}

void SliceServer::Close(const std::vector<double>& array) {
  if (!open_) return;
  {
    ErrorsReturn guard;
    MPI_Unpublish_name(service_.c_str(), MPI_INFO_NULL, port_);
  }
  // An analysis that knocked before the port went is taken (it found the port after
  // knocking, so it knocked before this look); the connected ones are answered until done.
  TakeKnock();
  for (MPI_Comm& c : clients_) {
    while (Answer(c, array, true)) {
    }
  }
  clients_.clear();
  MPI_Close_port(port_);
  open_ = false;
}

bool SlicePuller::Connect() {
  ErrorsReturn guard;
  std::string port;
  // The simulation published before any analysis was submitted; a short retry covers a
  // name service that answers a moment late.
  bool found = false;
  for (int i = 0; i < 40 && !(found = Lookup(service_, &port)); ++i) usleep(50000);
  if (!found) {
    report_.error = "no simulation serves '" + service_ + "' (it has ended, or never served)";
    return false;
  }
  // One analysis knocks at a time: retry while another's knock is there.
  bool knocked = false;
  for (int i = 0; i < 3000 && !knocked; ++i) {
    knocked =
        MPI_Publish_name(KnockName(service_).c_str(), MPI_INFO_NULL, who_.c_str()) == MPI_SUCCESS;
    if (!knocked) usleep(20000);
  }
  if (!knocked) {
    report_.error = "could not knock at '" + service_ + "' within 60 s";
    return false;
  }
  // Still served after the knock: the simulation will see it (SliceServer::Close).
  std::string again;
  if (!Lookup(service_, &again)) {
    MPI_Unpublish_name(KnockName(service_).c_str(), MPI_INFO_NULL, who_.c_str());
    report_.error = "the simulation ended while this analysis knocked";
    return false;
  }
  const int rc = MPI_Comm_connect(port.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &server_);
  MPI_Unpublish_name(KnockName(service_).c_str(), MPI_INFO_NULL, who_.c_str());
  if (rc != MPI_SUCCESS) {
    report_.error = "MPI_Comm_connect to '" + service_ + "' failed";
    return false;
  }
  return true;
}

void SlicePuller::Pull() {
  std::vector<double> slice(static_cast<size_t>(slice_));
  int64_t request[2] = {static_cast<int64_t>(done_) * slice_, slice_};
  const double t0 = MPI_Wtime();
  MPI_Send(request, 2, MPI_INT64_T, 0, kRequestTag, server_);
  MPI_Recv(slice.data(), static_cast<int>(slice_), MPI_DOUBLE, 0, kReplyTag, server_,
           MPI_STATUS_IGNORE);
  report_.latencies_s.push_back(MPI_Wtime() - t0);
  ++report_.completed;
}

void SlicePuller::MaybePull(int k, int iterations) {
  // Pull j is due before iteration floor(j * iterations / pulls).
  while (done_ < pulls_ && static_cast<int64_t>(done_) * iterations / pulls_ <= k) {
    if (!connected_ && !failed_) {
      connected_ = Connect();
      failed_ = !connected_;
    }
    if (connected_) Pull();
    ++done_;
  }
}

PullReport SlicePuller::Finish() {
  if (connected_) {
    int64_t goodbye[2] = {0, 0};
    MPI_Send(goodbye, 2, MPI_INT64_T, 0, kRequestTag, server_);
    MPI_Comm_disconnect(&server_);
    connected_ = false;
  }
  report_.asked = pulls_;
  return report_;
}

}  // namespace psched::djsb
