// One pschedd: wires the peer tree, the node service, the leader service (node 0)
// and the launcher socket around one libevent base. main() builds it from options;
// tests build several in one process on one base.
#pragma once

#include <event2/event.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "config/config.hpp"
#include "daemon/launch_hooks.hpp"
#include "daemon/leader/leader_service.hpp"
#include "daemon/monitor/monitor.hpp"
#include "daemon/net/auth.hpp"
#include "daemon/net/launcher_service.hpp"
#include "daemon/net/peer_link.hpp"
#include "daemon/net/tree_collective.hpp"
#include "daemon/node/cosched_node.hpp"
#include "daemon/node/freezer.hpp"
#include "daemon/node/node_service.hpp"
#include "proto/wire_ids.hpp"

namespace psched::daemon {

struct DaemonOptions {
  int node = 0;
  int nodes = 1;
  int fanout = 8;
  std::string parent;  // "host:port"; required unless node == 0
  std::string listen_host = "127.0.0.1";
  int port = 0;
  std::string rundir;  // the leader's launcher socket lives here
  // The leader also listens for launchers over TCP and writes its address and the secret
  // to this file (net/contact_file.hpp) for launchers on other hosts; removed at the end.
  std::string contact_file;
  std::string contact_host;         // the address written there; "" = hostname
  std::string topology;             // "" real, synthetic string or .xml file
  std::string hostname;             // "" = gethostname()
  monitor::MonitorOptions monitor;  // load sampling and link probes
  std::string allocator;            // overrides the config's default allocator when set
  std::string policy;               // overrides the config's default policy when set
  // The allocation is Slurm's (the Slurm launcher starts pschedd with --slurm): hostnames
  // are Slurm node names, and ranks get srun's per-task variables (node/slurm_task_env.hpp).
  bool slurm = false;
  // The leader exits after this many seconds with no session and no client connected
  // (0: never): the daemon psched-exec starts on first use (pschedd --exit-when-idle),
  // which nobody would otherwise stop.
  double idle_exit_s = 0;
  // The time the daemon's logic reads (the leader's scheduler clock, suspend
  // confirmations, the idle exit); tests drive a FakeClock. Must outlive the daemon.
  const Clock* clock = &RealClock();
  // The admin's configuration (pschedd loads it at start: config/load.hpp).
  config::Config config = config::DefaultConfig();
  // Called once: with the TCP port as soon as it listens, then with "ready" when the
  // node is in the tree (leader: when every node has joined).
  std::function<void(const std::string&)> report;
};

class Daemon final : public TreeServices {
 public:
  static Result<std::unique_ptr<Daemon>> Create(event_base* base, DaemonOptions options,
                                                Secret secret);
  ~Daemon() override;

  void SetLaunchHooks(std::unique_ptr<LaunchHooks> hooks);
  // A rank failed in a way no exit status shows (MPI_Abort through PMIx): the leader
  // fails its session everywhere and the launcher prints `cause` and exits with `code`.
  void ReportRankFailure(int64_t session, int rank, int code, std::string cause);
  // This node's ranks of a session only (PMIx job control fans out to the nodes itself).
  void SignalLocalRanks(int64_t session, int sig) { node_service_->Signal(session, sig); }
  // The leader only: a user's suspend or resume (LeaderService::UserSuspendOrResume).
  void SuspendSession(int64_t session, bool suspend, const std::function<void(Result<void>)>& done);
  // The leader only: ranks of these sessions connect (LeaderService::SessionsInteract).
  void SessionsInteract(const std::vector<std::string>& nspaces) {
    if (leader_) leader_->SessionsInteract(nspaces);
  }
  TreeServices& tree() { return *this; }
  event_base* base() const { return base_; }
  int port() const { return port_; }
  bool stopped() const { return stopped_; }
  // This host's emulated nodes bind to more PUs than it has CPUs (node/topology.hpp).
  bool emulation_folds() const { return emulation_folds_; }

  // TreeServices
  int node() const override { return options_.node; }
  int num_nodes() const override { return options_.nodes; }
  void Collective(int64_t session, const std::string& id, std::string blob,
                  std::vector<int> participants, CollectiveDone done) override;
  void SendToNode(int node, const std::string& service, std::string data) override;
  void RegisterService(const std::string& service, ServiceHandler handler) override;

 private:
  Daemon(event_base* base, DaemonOptions options, Secret secret);
  Result<void> Start();
  // Node 0 also runs the leader: the scheduling rounds and the launchers' socket.
  Result<void> StartLeader();
  void Deliver(int from, proto::Frame&& frame);
  void DeliverNodeOrder(const proto::Frame& frame);
  void Join();
  // The leader in Slurm: a node joining from a Slurm node another one already runs on
  // means two daemons on one node (and none on another): the start fails, naming both.
  bool SecondDaemonOnAHost(const proto::Frame& join);
  void Stop(const std::string& why);
  // The leader with options_.contact_file: the TCP listener for launchers and the file.
  Result<void> PublishContact();

  event_base* base_;
  DaemonOptions options_;
  proto::IdBounds ids_;  // what a frame's ids may name: this allocation's nodes
  Secret secret_;
  sched::NodeTopology topology_;
  int port_ = 0;
  bool stopped_ = false;
  bool emulation_folds_ = false;
  std::unique_ptr<PeerLink> peers_;
  std::unique_ptr<SessionFreezer> freezer_;  // [policy] suspend = "freezer"; outlives node_service_
  std::unique_ptr<NodeService> node_service_;
  std::unique_ptr<monitor::Monitor> monitor_;
  bool monitor_started_ = false;
  event* round_ev_ = nullptr;  // the leader's periodic scheduling round
  // --exit-when-idle: looks once a second (or more often for short idle times) whether
  // the leader is idle; `idle_since_` is when it last became so (< 0: busy).
  void CheckIdle();
  event* idle_ev_ = nullptr;
  Clock::TimePoint idle_since_{};
  bool idle_ = false;
  std::unique_ptr<CoschedNode> cosched_;
  std::unique_ptr<LeaderService> leader_;
  std::unique_ptr<LauncherService> launchers_;
  std::unique_ptr<LaunchHooks> hooks_;
  std::unique_ptr<TreeCollectives> collectives_;
  std::map<std::string, ServiceHandler> services_;
  std::string contact_address_;              // what PublishContact wrote: removed by the destructor
  std::map<int, std::string> joined_hosts_;  // the leader in Slurm: node -> its Slurm name
};

}  // namespace psched::daemon
