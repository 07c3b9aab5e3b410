// Extension points of the node daemon for services that ride on session launch,
// first of all the PMIx server (pmix/). Generic: nothing here is PMIx-specific.
//
// How to plug in (pmix/ builds a library; pschedd's main wires it):
//   auto hooks = std::make_unique<MyHooks>(daemon.event_base(), daemon.tree());
//   daemon.SetLaunchHooks(std::move(hooks));
// All calls happen on the daemon's libevent thread; a hook must not block.
// Work arriving on another thread (PMIx upcalls) must be handed to that event base
// (event_active / event_base_once) before it calls into TreeServices.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {

struct SessionLaunchInfo {
  int64_t session = 0;
  std::string nspace;  // unique per session: "psched.<leader pid>.<session>"
  int node = 0;        // this node
  int size = 0;        // ranks in the session
  int threads_per_rank = 1;
  std::vector<proto::RankSpec> ranks;  // every rank: node, local rank, logical PUs
  std::vector<int> local_ranks;        // global ranks placed on this node, ascending
  std::vector<std::string> hostnames;  // by node id
  std::vector<int> nodes;              // nodes the session uses, ascending
  std::string parent_nspace;           // MPI_Comm_spawn children: the asking rank
  uint32_t parent_rank = 0;
  std::vector<uint32_t> app_sizes;  // spawn_multiple children: ranks per app (empty: one)
  std::string mpi;                  // the wire-up asked for (pmi/wireup.hpp; "": auto)
  int universe_size = 0;            // the allocation's slots, at least `size`
  std::vector<std::string> env;     // the ranks' environment from the order ("NAME=value")
};

class LaunchHooks {
 public:
  virtual ~LaunchHooks() = default;
  // Called on each node of the session before its ranks fork. An error fails the
  // session (the launcher reports it with this node's id).
  virtual Result<void> SessionStarting(const SessionLaunchInfo& info) = 0;
  // The same for a hook that waits on another thread (PMIx answers on its own): `done`
  // runs once on the daemon's loop thread, possibly before this returns; the ranks
  // fork only then. The default calls SessionStarting.
  using StartDone = std::function<void(Result<void>)>;
  // By value: overrides keep `done` until the start is decided.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  virtual void SessionStartingAsync(const SessionLaunchInfo& info, StartDone done) {
    done(SessionStarting(info));
  }
  // Extra "NAME=value" entries for one local rank's environment.
  virtual Result<std::vector<std::string>> RankEnvironment(int64_t session, int rank) = 0;
  // Descriptors one local rank inherits under their own numbers (a PMI_FD named in
  // its environment); every other descriptor of the daemon is closed in the rank.
  virtual std::vector<int> RankDescriptors(int64_t /*session*/, int /*rank*/) { return {}; }
  // "NAME=value" entries for every rank that apply only when the rank's environment
  // (the launcher's) does not set NAME: tuning the user may override.
  virtual std::vector<std::string> EnvironmentDefaults() const { return {}; }
  // One local rank has exited (code: exit status or 128+signal), seen before it is
  // reaped. A hook may know that even a 0 is a failure (an MPI rank that left without
  // MPI_Finalize).
  virtual void RankExited(int64_t /*session*/, int /*rank*/, int /*code*/) {}
  // The leader ended the session (a failed rank, a kill): its ranks here get SIGTERM,
  // and a clean exit from then on is their answer to it, not a failure of their own.
  virtual void SessionEnding(int64_t /*session*/) {}
  // Every local rank of the session has exited (or the session was killed).
  virtual void SessionEnded(int64_t session) = 0;
  // The leader only: these nodes' daemons are lost (what they would have said, e.g.
  // that a session ended, never comes).
  virtual void NodesLost(const std::vector<int>& /*nodes*/) {}
};

// Services of the daemon tree, usable by hooks.
class TreeServices {
 public:
  using CollectiveDone = std::function<void(Result<std::string> all_blobs)>;
  using ServiceHandler = std::function<void(int from_node, const std::string& data)>;
  virtual ~TreeServices() = default;

  virtual int node() const = 0;
  virtual int num_nodes() const = 0;
  // Every node in `participants` calls Collective with the same (session, id) and its
  // blob; each then gets the concatenation of all participants' blobs in ascending node
  // order. Gathered up the tree to the leader, broadcast back down. A participant lost
  // before completion fails the collective with an error.
  virtual void Collective(int64_t session, const std::string& id, std::string blob,
                          std::vector<int> participants, CollectiveDone done) = 0;
  // Point-to-point: opaque bytes to `service` on `node` (e.g. a direct-modex request).
  virtual void SendToNode(int node, const std::string& service, std::string data) = 0;
  // Receives what other nodes send to `service` on this node.
  virtual void RegisterService(const std::string& service, ServiceHandler handler) = 0;
};

}  // namespace psched::daemon
