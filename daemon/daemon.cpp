#include "daemon/daemon.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "common/timeval.hpp"
#include "daemon/net/contact_file.hpp"
#include "daemon/node/topology.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::daemon {

Daemon::Daemon(event_base* base, DaemonOptions options, Secret secret)
    : base_(base), options_(std::move(options)), ids_{options_.nodes}, secret_(std::move(secret)) {}

Daemon::~Daemon() {
  if (round_ev_) event_free(round_ev_);
  if (idle_ev_) event_free(idle_ev_);
  monitor_.reset();
  cosched_.reset();
  node_service_.reset();  // kills what still runs
  launchers_.reset();
  if (!contact_address_.empty()) RemoveContact(options_.contact_file, contact_address_);
  leader_.reset();
  peers_.reset();
  // The PMIx host last: its server may give the loop's base back to PMIx's thread.
  hooks_.reset();
}

Result<std::unique_ptr<Daemon>> Daemon::Create(event_base* base, DaemonOptions options,
                                               Secret secret) {
  if (options.nodes < 1 || options.node < 0 || options.node >= options.nodes) {
    return Fail(ErrorCode::kInvalidArgument, "node " + std::to_string(options.node) +
                                                 " is outside an allocation of " +
                                                 std::to_string(options.nodes) + " nodes");
  }
  if (options.fanout < 1) return Fail(ErrorCode::kInvalidArgument, "--fanout must be at least 1");
  if (options.node != 0 && options.parent.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "node " + std::to_string(options.node) + " needs --parent host:port");
  }
  if (options.node == 0 && options.rundir.empty())
    return Fail(ErrorCode::kInvalidArgument, "the leader needs --rundir");
  if (options.hostname.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    options.hostname = host;
  }
  std::unique_ptr<Daemon> d(new Daemon(base, std::move(options), std::move(secret)));
  if (auto ok = d->Start(); !ok) return Fail(ok.error().WithNode(d->options_.node));
  return d;
}

namespace {

// psched-alloc names its emulated nodes "node0", "node1"...: all of them run here.
bool NamedApartFromHost(const std::string& hostname) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return hostname != host;
}

}  // namespace

Result<void> Daemon::Start() {
  auto topo = LoadNodeTopology(options_.topology);
  if (!topo) return Fail(topo.error());
  topology_ = std::move(*topo);
  auto real = RealPuOsIndices();
  if (!real) return Fail(real.error());
  const size_t host_pus = real->size();
  if (!options_.topology.empty())  // emulated: this node's share of the host
    *real = RealPusOfEmulatedNode(std::move(*real), options_.node, topology_.NumPus());
  Tree tree{options_.nodes, options_.fanout};
  PeerLink::Handlers h;
  h.deliver = [this](int from, proto::Frame&& f) { Deliver(from, std::move(f)); };
  h.child_lost = [this](int child, const std::vector<int>& lost, const std::string& why) {
    if (stopped_) return;
    std::string cause = "connection to node " + std::to_string(child) + " closed (" + why + ")";
    collectives_->NodesLost(lost, cause);  // the rest of the tree hears it from the leader
    peers_->SendUp(proto::MsgType::kNodeLost, proto::Json(proto::NodeLost{lost, cause}));
  };
  h.parent_lost = [this](const std::string& why) { Stop("parent daemon gone: " + why); };
  h.parent_ready = [this] { Join(); };
  peers_ = std::make_unique<PeerLink>(base_, options_.node, tree, secret_, std::move(h),
                                      *options_.clock);
  collectives_ = std::make_unique<TreeCollectives>(
      options_.node, tree,
      [this](int neighbour, const std::string& wire) { peers_->SendToNeighbour(neighbour, wire); });
  node_service_ = std::make_unique<NodeService>(
      base_, options_.node, *real,
      [this](proto::MsgType type, proto::Json body) { peers_->SendUp(type, std::move(body)); });
  node_service_->SetUpstream({[this] { return peers_->UpstreamBacklog(); },
                              [this](size_t bytes, std::function<void()> drained) {
                                peers_->WhenUpstreamDrainedTo(bytes, std::move(drained));
                              }});
  node_service_->SetSlurmTaskEnvironment(options_.slurm);
  emulation_folds_ = EmulationFolds(NamedApartFromHost(options_.hostname) ? options_.nodes : 1,
                                    topology_.NumPus(), host_pus);
  if (emulation_folds_) node_service_->SetEnvironmentDefaults({kYieldWhenIdle});
  node_service_->SetSessionEndedObserver(
      [this](int64_t session) { collectives_->SessionEnded(session); });
  // The admin asked for the freezer: a node that cannot freeze refuses to start (and
  // says why) rather than suspend differently from the others.
  if (options_.config.suspend == config::SuspendMethod::kFreezer) {
    auto freezer = SessionFreezer::Create(options_.node);
    if (!freezer) {
      return Fail(
          freezer.error().Wrap("[policy] suspend = \"freezer\", but this node cannot "
                               "freeze sessions"));
    }
    freezer_ = std::move(*freezer);
    node_service_->SetFreezer(freezer_.get());
  }
  cosched_ = std::make_unique<CoschedNode>(
      base_, options_.node, *node_service_, *real,
      [this](std::string reply) { SendToNode(0, "cosched.reply", std::move(reply)); },
      *options_.clock);
  RegisterService("cosched", [this](int, const std::string& data) { cosched_->OnOrder(data); });
  monitor_ = std::make_unique<monitor::Monitor>(
      base_, options_.node, *real, options_.monitor,
      [this](const proto::MonitorReport& r) {
        peers_->SendUp(proto::MsgType::kMonitorReport, proto::Json(r));
      },
      *options_.clock);
  if (!tree.Children(options_.node).empty() || options_.port != 0) {
    auto port = peers_->Listen(options_.listen_host, options_.port);
    if (!port) return Fail(port.error());
    port_ = *port;
  }
  if (options_.report) options_.report("port " + std::to_string(port_));
  if (options_.node != 0) return peers_->ConnectParent(options_.parent);
  return StartLeader();
}

Result<void> Daemon::StartLeader() {
  config::Config config = options_.config;
  if (!options_.policy.empty()) config.default_policy = options_.policy;
  if (!options_.allocator.empty()) config.default_allocator = options_.allocator;
  // An unknown default allocator fails the start, not the first decision.
  if (auto allocator = sched::MakeAllocator(config.default_allocator, config.allocators);
      !allocator)
    return Fail(allocator.error());
  LeaderService::Callbacks cb;
  cb.all_joined = [this] {
    if (options_.report) options_.report("ready");
  };
  cb.shutdown = [this] { Stop("shutdown requested"); };
  leader_ = std::make_unique<LeaderService>(*peers_, options_.nodes, std::move(config),
                                            std::move(cb), *options_.clock);
  RegisterService("cosched.reply",
                  [this](int, const std::string& data) { leader_->OnCoschedReply(data); });
  RegisterService(std::string(proto::kCommSpawnService), [this](int from, const std::string& data) {
    leader_->OnCommSpawnRequest(from, data);
  });
  round_ev_ = event_new(
      base_, -1, EV_PERSIST,
      [](evutil_socket_t, short, void* arg) {
        static_cast<Daemon*>(arg)->leader_->ScheduleRound();
      },
      this);
  timeval round = TimevalFromSeconds(options_.config.round_interval_s);
  event_add(round_ev_, &round);
  launchers_ = std::make_unique<LauncherService>(
      base_,
      [this](const std::shared_ptr<Connection>& c, proto::Frame&& f, uid_t uid) {
        leader_->OnClientFrame(c, std::move(f), uid);
      },
      [this](Connection& c) { leader_->OnClientClosed(c); }, *options_.clock);
  if (auto ok = launchers_->Listen(options_.rundir); !ok) return ok;
  if (auto ok = PublishContact(); !ok) return ok;
  if (options_.idle_exit_s > 0) {
    idle_ev_ = event_new(
        base_, -1, EV_PERSIST,
        [](evutil_socket_t, short, void* arg) { static_cast<Daemon*>(arg)->CheckIdle(); }, this);
    const timeval look = TimevalFromSeconds(std::min(1.0, options_.idle_exit_s / 4));
    event_add(idle_ev_, &look);
  }
  Join();
  return {};
}

Result<void> Daemon::PublishContact() {
  if (options_.contact_file.empty()) return {};
  // Without the file, a launcher on another host would start a second set of daemons: the
  // leader does not start (its srun log says why).
  auto port = launchers_->ListenTcp(options_.listen_host, secret_);
  if (!port) return Fail(port.error());
  const std::string host =
      options_.contact_host.empty() ? options_.hostname : options_.contact_host;
  const std::string address = host + ":" + std::to_string(*port);
  if (auto ok = WriteContact(options_.contact_file, address, secret_); !ok) return ok;
  contact_address_ = address;
  return {};
}

void Daemon::CheckIdle() {
  const Clock::TimePoint now = options_.clock->Now();
  if (!leader_->NoSessions() || launchers_->clients() > 0) {
    idle_ = false;
    return;
  }
  if (!idle_) {
    idle_ = true;
    idle_since_ = now;
    return;
  }
  const double idle_s = options_.clock->SecondsSince(idle_since_);
  if (idle_s >= options_.idle_exit_s) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "no session and no client for %.0f s (daemon.embedded_idle_exit_s); the next "
                  "psched-exec starts another",
                  options_.idle_exit_s);
    Stop(why);
  }
}

void Daemon::Join() {
  proto::NodeJoin join{options_.node, options_.hostname, {}, topology_.gpus};
  for (const sched::Pu& pu : topology_.pus) join.pus.push_back({pu.core, pu.package});
  peers_->SendUp(proto::MsgType::kNodeJoin, proto::Json(join));
  // Measurements start once the node can report them (after joining, so the leader
  // knows the node); a monitor that cannot start (no probe port) leaves the node
  // without metrics, not without service.
  if (!monitor_started_) {
    monitor_started_ = true;
    if (auto ok = monitor_->Start(options_.listen_host); !ok) {
      std::fprintf(stderr, "pschedd[%d]: monitoring off: %s\n", options_.node,
                   ok.error().ToString().c_str());
    }
  }
}

bool Daemon::SecondDaemonOnAHost(const proto::Frame& frame) {
  auto join = proto::Decode<proto::NodeJoin>(frame);
  if (!join) return false;
  for (const auto& [node, host] : joined_hosts_) {
    if (node == join->node || host != join->hostname) continue;
    Stop("node " + std::to_string(join->node) + " joins from Slurm node " + host + ", where node " +
         std::to_string(node) + "'s daemon already runs: one daemon per node, refused");
    return true;
  }
  joined_hosts_[join->node] = join->hostname;
  return false;
}

void Daemon::SetLaunchHooks(std::unique_ptr<LaunchHooks> hooks) {
  hooks_ = std::move(hooks);
  node_service_->SetHooks(hooks_.get());
}

void Daemon::ReportRankFailure(int64_t session, int rank, int code, std::string cause) {
  proto::RankExit e{session, rank, options_.node, code, 0, std::move(cause)};
  peers_->SendUp(proto::MsgType::kSessionRankExited, proto::Json(e));
}

void Daemon::SuspendSession(int64_t session, bool suspend,
                            const std::function<void(Result<void>)>& done) {
  if (!leader_) return done(Fail(ErrorCode::kInvalidArgument, "not the leader"));
  leader_->UserSuspendOrResume(session, suspend, done);
}

void Daemon::Deliver(int from, proto::Frame&& frame) {
  using proto::MsgType;
  switch (frame.type) {
    case MsgType::kNodeWelcome:
      if (options_.node != 0 && options_.report) options_.report("ready");
      return;
    case MsgType::kDaemonShutdown:
      return Stop("allocation shut down");
    case MsgType::kCollContribute:
    case MsgType::kCollResult:
    case MsgType::kCollForget:
      return collectives_->OnFrame(frame);
    case MsgType::kCollAbort:
      if (auto abort = proto::DecodeChecked<proto::CollAbort>(frame, ids_))
        collectives_->NodesLost(abort->nodes, abort->cause);
      return;
    case MsgType::kMonitorPeers:
      if (auto peers = proto::DecodeChecked<proto::MonitorPeers>(frame, ids_))
        monitor_->SetPeers(*peers);
      return;
    case MsgType::kPeerSend: {
      // Delivered here means addressed here; `from` is the route's sender, a node of
      // the allocation behind the link it came through (PeerLink checked both).
      auto msg = proto::Decode<proto::PeerSend>(frame);
      if (!msg) return;
      if (auto it = services_.find(msg->service); it != services_.end())
        it->second(from, msg->data);
      return;
    }
    case MsgType::kSessionStartRanks:
    case MsgType::kSessionSignal:
    case MsgType::kSessionKill:
    case MsgType::kIoStdin:
    case MsgType::kIoFlow:
      return DeliverNodeOrder(frame);
    case MsgType::kNodeJoin:
      if (leader_ && options_.slurm && SecondDaemonOnAHost(frame)) return;
      if (leader_) leader_->OnNodeFrame(std::move(frame));
      return;
    case MsgType::kNodeLost:  // every loss reaches the leader so (child_lost sends it up)
      if (auto lost = proto::DecodeChecked<proto::NodeLost>(frame, ids_); lost && leader_ && hooks_)
        hooks_->NodesLost(lost->nodes);
      [[fallthrough]];
    default:
      if (leader_) leader_->OnNodeFrame(std::move(frame));
  }
}

void Daemon::DeliverNodeOrder(const proto::Frame& frame) {
  using proto::MsgType;
  if (frame.type == MsgType::kSessionStartRanks) {
    if (auto order = proto::DecodeChecked<proto::StartRanksOrder>(frame, ids_))
      node_service_->StartRanks(*order);
    return;
  }
  if (frame.type == MsgType::kIoStdin) {
    if (auto in = proto::DecodeChecked<proto::StdinData>(frame, ids_)) node_service_->Stdin(*in);
    return;
  }
  if (frame.type == MsgType::kIoFlow) {
    if (auto flow = proto::DecodeChecked<proto::OutputFlow>(frame, ids_))
      node_service_->HoldOutput(flow->session, flow->held);
    return;
  }
  if (frame.type == MsgType::kSessionKill) {
    if (auto kill = proto::DecodeChecked<proto::KillOrder>(frame, ids_))
      node_service_->Terminate(kill->session, kill->grace_s);
    return;
  }
  auto ref = proto::DecodeChecked<proto::SessionRef>(frame, ids_);
  if (!ref) return;
  // Suspend and resume come as plan orders (plan_executor.hpp), confirmed.
  node_service_->Signal(ref->session, ref->signal);
}

void Daemon::Stop(const std::string& why) {
  if (stopped_) return;
  stopped_ = true;
  std::fprintf(stderr, "pschedd[%d]: stopping: %s\n", options_.node, why.c_str());
  node_service_->KillAll();
  if (leader_)
    peers_->Send({}, proto::MsgType::kDaemonShutdown, proto::Json(proto::DaemonShutdown{}));
  // Let queued frames reach the children before the loop ends.
  timeval flush{0, 100000};
  event_base_loopexit(base_, &flush);
}

void Daemon::Collective(int64_t session, const std::string& id, std::string blob,
                        std::vector<int> participants, CollectiveDone done) {
  collectives_->Contribute(session, id, std::move(blob), std::move(participants), std::move(done));
}

void Daemon::SendToNode(int node, const std::string& service, std::string data) {
  peers_->Send({node}, proto::MsgType::kPeerSend,
               proto::Json(proto::PeerSend{service, std::move(data)}));
}

void Daemon::RegisterService(const std::string& service, ServiceHandler handler) {
  services_[service] = std::move(handler);
}

}  // namespace psched::daemon
