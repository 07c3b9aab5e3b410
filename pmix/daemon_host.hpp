// The PMIx server host inside pschedd: implements the daemon's LaunchHooks with a
// PmixServer, and the server's PmixHostServices with the daemon tree.
//
//   fence_nb      -> TreeServices::Collective over the nodes of the participants
//   direct_modex  -> point-to-point "pmix.dmodex" to the rank's node, answered there
//                    with PMIx_server_dmodex_request
//   publish/lookup/unpublish -> the leader (node 0) keeps the name service;
//                    other nodes forward over "pmix.names"
//   abort, terminate -> DaemonActions::fail_session (the leader fails the session)
//   connect, lookup of another session's name -> the leader's
//                    DaemonActions::sessions_interact ("pmix.interact" from other nodes)
//   pause/resume  -> the leader's DaemonActions::suspend_session ("pmix.jobctl" from
//                    other nodes), as psched-ctl suspend/resume: confirmed by the nodes
//   signal        -> "pmix.jobctl" to every node of the session, DaemonActions::signal_local
//   foreign layouts -> lazily: a node registers another session's namespace (no
//                    local ranks) only when a connect, spawn or job control names
//                    it, pulling the layout from the leader's LayoutDirectory
//                    ("pmix.layout"); the leader tells exactly those nodes its end
//                    (said by the owner, or the owner's loss)
//
// Everything runs on the daemon's event-loop thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon/launch_hooks.hpp"
#include "pmix/host_services.hpp"
#include "pmix/layout_directory.hpp"
#include "pmix/local_host_services.hpp"
#include "pmix/pmix_server.hpp"
#include "pmix/session_links.hpp"
#include "proto/pmix_wire.hpp"

struct event;
struct event_base;

namespace psched::pmix {

// What the PMIx host asks of the daemon, beyond the tree.
// The namespace this node makes up for refused MPI_Comm_spawn children (they have no
// session): "<prefix><node>.<request>". No session ever has it, so the leader answers a
// pull for one at once instead of waiting for its layout.
inline constexpr std::string_view kRefusedChildrenPrefix = "psched.refused.";

struct DaemonActions {
  // Fail the session on every node: the leader kills it, its launcher prints
  // `message` and exits with `code` (MPI_Abort's status).
  std::function<void(int64_t session, int rank, int code, std::string message)> fail_session;
  // Called on the leader only: suspend or resume a session as psched-ctl does (the
  // leader's model learns it, every node confirms it); `done` gets the outcome, its
  // message without the session's name. Unset: job control is refused.
  std::function<void(int64_t session, bool suspend, std::function<void(Result<void>)> done)>
      suspend_session;
  // Signal this node's ranks of a session (job control sends it to each of its nodes).
  std::function<void(int64_t session, int sig)> signal_local;
  // Called on the leader only: ranks of these sessions (namespaces, two or more) connect
  // to each other (daemon_interact.cpp). Unset: nobody listens.
  std::function<void(const std::vector<std::string>& nspaces)> sessions_interact;
};

class DaemonPmixHost final : public daemon::LaunchHooks, public PmixHostServices {
 public:
  // Serves `server` (started by PmixServer::Init for this node, its tmpdir this
  // daemon's own directory, its base the daemon's loop) and registers the "pmix.*"
  // point-to-point services on `tree`. The owner of `tree` must own the result
  // (Daemon::SetLaunchHooks): the services point at it.
  static Result<std::unique_ptr<DaemonPmixHost>> Create(std::unique_ptr<PmixServer> server,
                                                        daemon::TreeServices& tree,
                                                        DaemonActions actions);
  ~DaemonPmixHost() override;

  // daemon::LaunchHooks
  // PMIx registration answers asynchronously: only SessionStartingAsync works here.
  Result<void> SessionStarting(const daemon::SessionLaunchInfo& info) override;
  void SessionStartingAsync(const daemon::SessionLaunchInfo& info, StartDone done) override;
  Result<std::vector<std::string>> RankEnvironment(int64_t session, int rank) override;
  std::vector<std::string> EnvironmentDefaults() const override;
  void RankExited(int64_t session, int rank, int code) override;
  void SessionEnding(int64_t session) override;
  void SessionEnded(int64_t session) override;
  // The leader ends the directory's sessions the lost nodes published.
  void NodesLost(const std::vector<int>& nodes) override;

  // PmixHostServices
  void ClientConnected(int64_t session, uint32_t rank) override;
  void ClientFinalized(int64_t session, uint32_t rank) override;
  void AbortSession(int64_t session, uint32_t rank, int status, std::string message) override;
  void FenceAcrossNodes(FenceRequest req, BlobDone done) override;
  void DirectModexRemote(ProcName proc, int node, BlobDone done) override;
  void Publish(Publisher who, std::vector<std::pair<std::string, std::string>> kv,
               Persistence persistence, OpDone done) override;
  void Lookup(Publisher who, std::vector<std::string> keys, bool wait,
              std::optional<std::chrono::milliseconds> timeout,
              NameService::LookupDone done) override;
  void Unpublish(Publisher who, std::vector<std::string> keys, OpDone done) override;
  void Spawn(SpawnRequest req, std::function<void(Result<std::string>)> done) override;
  void Connect(std::vector<ProcName> procs, OpDone done) override;
  void Disconnect(std::vector<ProcName> procs, OpDone done) override;
  void JobControl(JobControlRequest req, OpDone done) override;

  PmixServer& server() { return *server_; }

 private:
  struct PendingRequest;
  DaemonPmixHost(event_base* base, daemon::TreeServices& tree, DaemonActions actions);
  bool leader() const { return tree_.node() == 0; }

  // One answer for `n` operations: the first error, or success once all `n` succeeded.
  static OpDone AllOf(size_t n, OpDone done);
  // Point-to-point request/reply with a bounded wait.
  uint64_t Track(std::function<void(Result<std::string>)> reply, std::chrono::milliseconds limit,
                 std::string what);
  void Complete(uint64_t id, Result<std::string> reply);
  static void OnRequestTimeout(int fd, short what, void* arg);

  void OnDmodexRequest(int from, const std::string& data);
  void OnJobControl(int from, const std::string& data);
  // Pause / resume go to the leader, whichever node the controlling tool is on.
  void SuspendThroughLeader(int64_t session, bool suspend, OpDone done);
  void OnLayout(int from, const std::string& data);
  // A local session's namespace and clients are in PMIx: its first node puts the
  // layout in the leader's directory (one message; none on the leader itself).
  void Registered(const daemon::SessionLaunchInfo& info, const PmixSessionInfo& si);

  // Foreign layouts, pulled on demand (daemon_layouts.cpp). `done` runs once every
  // namespace is registered here (local ranks or a pulled layout), or with the
  // first error (ended / unknown session, PMIx refused it).
  void EnsureKnown(const std::vector<std::string>& nspaces, OpDone done);
  void EnsureOneKnown(const std::string& nspace, OpDone done);
  void OnPulled(const std::string& nspace, Result<std::string> layout);
  void LayoutSettled(const std::string& nspace, Result<void> r);
  // A foreign session this node registered ended (the leader says so).
  void ForeignEnded(int64_t session);
  std::optional<int64_t> SessionOfNspace(const std::string& nspace) const;
  // Leader side: the directory.
  void ServePull(int from, const std::string& nspace,
                 std::function<void(Result<std::string>)> reply);
  void DirectoryAdd(int64_t session, const std::string& nspace, std::string layout, int owner);
  void DirectoryEnd(int64_t session);
  void OnNamesRequest(int from, const std::string& data);
  // Interactions between sessions, for the leader (daemon_interact.cpp): told from any
  // node, or the lookup's answer that names another session's publisher. `connected`:
  // a PMIx connect or Open MPI's exchange before one, which links them (links_).
  void NoteInteraction(std::vector<std::string> nspaces, bool connected);
  void OnInteract(const std::string& data);
  NameService::LookupDone NotingInteraction(const Publisher& looker, NameService::LookupDone done);
  // Connect's work; Connect itself first tells the leader who connects.
  void ConnectProcs(std::vector<ProcName> procs, OpDone done);
  void OnReply(const std::string& data);
  // A failed session's connected sessions hear of it (daemon_failed.cpp): a local rank
  // that failed inside PMIx is told to the leader, which knows who interacted with whom
  // (links_) and tells the nodes to notify their ranks of those sessions.
  // `code`: the rank's exit status as its launcher would give it (PmixProcsFailed::code).
  void NoteRankFailed(int64_t session, uint32_t rank, int code, std::string why);
  void OnProcsFailed(const std::string& data);
  void ProcsFailed(proto::PmixProcsFailed failed);
  // MPI_Comm_spawn (daemon_comm_spawn.cpp): the leader's answer, then the children's
  // namespace must be known here before the parent may connect to it.
  void OnSpawned(const std::string& data);
  // Open MPI's side of children that will never connect (refused, or failed before they
  // connected): see daemon_comm_spawn.cpp. `spawn` names them (a made-up nspace when refused).
  struct OpenMpiSpawn {
    int64_t parent_session = -1;
    Publisher parent;  // the root rank that asked
    std::string port;  // OMPI_PARENT_PORT, the name of Open MPI's connect/accept
    int size = 0;      // the children's MPI_COMM_WORLD
    // Set once they will never connect: their namespace, and why (a connect fails so).
    std::string gone_nspace, why;
    bool connected = false;  // the root looked up their participants: they connected
  };
  void ChildrenGone(uint64_t request, OpenMpiSpawn& spawn);
  // The parent's root found the children's participants ("<port>:connect"): they have
  // connected, and a later failure of theirs reaches the parent as a PMIx event.
  NameService::LookupDone NotingChildrenConnect(const Publisher& looker,
                                                NameService::LookupDone done);
  void SendReply(int to, uint64_t id, Result<std::string> r);
  void ToLeader(proto::PmixNames ask, std::function<void(Result<std::string>)> reply,
                std::chrono::milliseconds limit);
  // `procs`: who takes part, as PMIx named them (part of the collective's name).
  void RunCollective(const std::string& kind, std::vector<int64_t> sessions,
                     const std::vector<ProcName>& procs, std::vector<int> nodes, std::string blob,
                     BlobDone done);
  // Answers (with an error) every collective still in flight for `session`, so
  // PMIx gets its fence/connect callback before the namespace is deregistered.
  void AbandonCollectives(int64_t session);
  void ForgetSession(int64_t session);

  event_base* base_;
  daemon::TreeServices& tree_;
  DaemonActions actions_;
  std::unique_ptr<PmixServer> server_;
  std::unique_ptr<LocalHostServices> names_;  // the leader's name service
  std::map<int64_t, std::string> nspaces_;    // live local sessions
  // Local ranks between PMIx_Init and PMIx_Finalize, per session.
  std::map<int64_t, std::set<uint32_t>> in_mpi_;
  std::set<int64_t> published_;  // local sessions whose layout this node put in the directory
  std::map<std::string, int64_t> starting_;         // local sessions PMIx is registering
  std::map<int64_t, std::string> foreign_;          // sessions registered here without local ranks
  std::map<int64_t, std::string> foreign_pending_;  // such sessions PMIx is still registering
  // Local sessions whose failure this node has told (once each).
  std::set<int64_t> failure_told_;
  // Local sessions told that one they are connected to failed: which and why, and its
  // exit status. Their abort (Open MPI's answer to the event) says so and exits with it.
  struct ToldFailed {
    std::string what;
    int code = 1;
  };
  std::map<int64_t, ToldFailed> told_failed_;
  // MPI_Comm_spawn of Open MPI parents on this node, by request id, until their session ends.
  std::map<uint64_t, OpenMpiSpawn> ompi_spawns_;
  // Waiting for a namespace to be registered here (pull, then PMIx), by nspace.
  std::map<std::string, std::vector<OpDone>> layout_waiters_;
  std::unique_ptr<LayoutDirectory> directory_;  // the leader's
  SessionLinks links_;                          // the leader's: who interacted with whom
  // The leader's pulls that came before the owner's layout, by nspace: (node, request).
  std::map<std::string, std::vector<std::pair<int, uint64_t>>> parked_pulls_;
  std::map<std::string, uint64_t> collective_seq_;
  // Collectives waiting on other nodes, per session: PMIx's callback is called
  // exactly once, by whichever comes first, the result or the session's end.
  std::map<int64_t, std::vector<std::shared_ptr<BlobDone>>> in_flight_;
  std::map<uint64_t, std::unique_ptr<PendingRequest>> pending_;
  uint64_t next_request_ = 1;
};

}  // namespace psched::pmix
