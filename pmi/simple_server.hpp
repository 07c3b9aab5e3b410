// The PMI server of one pschedd: MPICH-family ranks (MPICH, Intel MPI, MVAPICH) wire up
// through it. Each local rank gets one end of a socket pair as PMI_FD, speaking PMI-1
// lines or, once its init asked for version 2, PMI-2 messages; the commands it sends are
// decided by its session's SimpleSession and answered here. Ranks also get the host's
// topology as hwloc XML (host_topology.hpp), discovered here once.
// A barrier becomes one TreeServices::Collective over the session's nodes (the
// collective PMIx fences use), an abort fails the session through the leader, a spawn
// asks the leader for the children as PMIx's MPI_Comm_spawn does ("session.comm_spawn",
// answered on "pmi1.spawned"): the parent's preput pairs travel in the children's
// environment (kPreputVariable) into their key-value space.
//
// All calls on the daemon's event-loop thread.
#pragma once

#include <event2/event.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/launch_hooks.hpp"
#include "pmi/simple_session.hpp"

namespace psched::pmi {

// A rank called abort: fail the session on every node (the launcher prints `message`
// and exits with `code`).
using FailSession = std::function<void(int64_t session, int rank, int code, std::string message)>;

// The children's environment entry that carries their parent's preput pairs
// (SimpleSession::EncodePuts).
inline constexpr std::string_view kPreputVariable = "PSCHED_PMI1_PREPUT";

class SimpleServer final : public daemon::LaunchHooks {
 public:
  SimpleServer(event_base* base, daemon::TreeServices& tree, FailSession fail);
  ~SimpleServer() override;
  SimpleServer(const SimpleServer&) = delete;
  SimpleServer& operator=(const SimpleServer&) = delete;

  // daemon::LaunchHooks
  Result<void> SessionStarting(const daemon::SessionLaunchInfo& info) override;
  Result<std::vector<std::string>> RankEnvironment(int64_t session, int rank) override;
  std::vector<int> RankDescriptors(int64_t session, int rank) override;
  void RankExited(int64_t session, int rank, int code) override;
  void SessionEnding(int64_t session) override;
  void SessionEnded(int64_t session) override;

  size_t num_sessions() const { return sessions_.size(); }

 private:
  struct Client;
  struct Session;

  static void OnReadable(evutil_socket_t fd, short what, void* arg);
  void Read(Client& c);
  void Apply(Session& s, Client& c, const Outcome& o);
  void Send(Client& c, const std::string& line);
  void StartBarrier(Session& s, std::string blob);
  void StartSpawn(Session& s, Client& c, const SpawnRequest& request);
  void OnSpawned(const std::string& data);
  void CloseClient(Client& c);

  event_base* base_;
  daemon::TreeServices& tree_;
  FailSession fail_;
  std::map<int64_t, std::unique_ptr<Session>> sessions_;
  struct PendingSpawn {
    int64_t session = 0;
    int rank = 0;
  };
  std::map<uint64_t, PendingSpawn> spawns_;  // by CommSpawnRequest::request
  uint64_t next_spawn_ = 1;
  // The host's topology as hwloc XML (host_topology.hpp), discovered at the first
  // session with ranks here; -1 when that failed.
  int topology_fd_ = -1;
  bool topology_tried_ = false;
};

}  // namespace psched::pmi
