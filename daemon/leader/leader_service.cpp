#include "daemon/leader/leader_service.hpp"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/exec_args.hpp"
#include "common/timeval.hpp"
#include "pmi/wireup.hpp"
#include "policies/queue.hpp"
#include "scheduler/leader/failure_report.hpp"
#include "scheduler/leader/round.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::daemon {
namespace {

std::string LookUpUserName(uid_t uid) {
  passwd* pw = getpwuid(uid);
  return pw ? pw->pw_name : std::to_string(uid);
}

// What psched-exec checks, checked again for any client: ranks run in a directory named
// in full (an empty one ran them wherever the daemon had been started), and the queue
// orders sessions by estimates that are numbers (a NaN made psp+aging priorities NaN).
Result<void> CheckLaunchRequest(const proto::LaunchRequest& req) {
  if (req.argv.empty()) return Fail(ErrorCode::kInvalidArgument, "no command given");
  if (!req.cwd.starts_with('/')) {
    return Fail(ErrorCode::kInvalidArgument,
                "the ranks' working directory must be an absolute path, got '" + req.cwd + "'");
  }
  if (!std::isfinite(req.estimate_s) || req.estimate_s < 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "the runtime estimate must be a finite number of seconds >= 0, got " +
                    std::to_string(req.estimate_s));
  }
  if (auto wire_up = pmi::ParseWireUp(req.mpi); !wire_up) return Fail(wire_up.error());
  if (!(req.kill_wait_s <= config::kMaxKillWaitS)) {
    return Fail(ErrorCode::kInvalidArgument,
                "the kill wait must be at most " + std::to_string(config::kMaxKillWaitS) +
                    " seconds, got " + std::to_string(req.kill_wait_s));
  }
  return {};
}

}  // namespace

void LeaderService::SendError(Connection& c, const std::string& message) {
  c.Send(proto::Encode(proto::MsgType::kError, proto::ErrorReply{message, "rejected"}));
}

LeaderService::LeaderService(PeerLink& peers, int expected_nodes, config::Config config,
                             Callbacks callbacks, const Clock& clock)
    : clock_(clock),
      started_(clock.Now()),
      peers_(peers),
      ids_{expected_nodes},
      config_(std::move(config)),
      allocators_(config_.allocators),
      executor_(
          [this](int node, std::string data) {
            peers_.Send({node}, proto::MsgType::kPeerSend,
                        proto::Json(proto::PeerSend{"cosched", std::move(data)}));
          },
          [this](int64_t txn, double seconds) {
            plan_timer_txn_ = txn;
            timeval tv = TimevalFromSeconds(seconds);
            evtimer_add(plan_timer_, &tv);  // re-arming replaces the previous deadline
          },
          config_.plan_timeout_s, config_.suspend_confirm_timeout_s),
      callbacks_(std::move(callbacks)) {
  state_.expected_nodes = expected_nodes;
  // PSP reads each owner's last history_length sessions: keep at least that many.
  state_.histories = sched::prio::OwnerHistories(
      static_cast<size_t>(std::max(64, config_.priority.history_length)));
  plan_timer_ = evtimer_new(peers_.base(), &LeaderService::OnPlanTimeout, this);
  // Until every node has joined the machine's size is unknown: fcfs, then the
  // configured module (BuildPriority).
  priority_ = std::move(*sched::prio::MakePriority("fcfs"));
}

void LeaderService::BuildPriority() {
  sched::PriorityConfig config = config_.priority;
  config.machine_cores = 0;  // multifactor's job-size factor is relative to all slots
  for (const auto& n : state_.snapshot.nodes)
    config.machine_cores += static_cast<int>(n.topology.pus.size());
  auto module = sched::prio::MakePriority(config.name, config);
  if (!module) {
    std::fprintf(stderr, "pschedd[0]: %s; queue order is fcfs\n",
                 module.error().ToString().c_str());
    return;
  }
  priority_ = std::move(*module);
}

sched::leader::Deciders LeaderService::Deciders() {
  return {allocators_, *priority_, config_.default_allocator, config_.policy_options.backfill};
}

sched::leader::Outcome LeaderService::Step(const sched::leader::Event& event) {
  auto deciders = Deciders();
  return sched::leader::Step(state_, event, Now(), deciders);
}

int64_t LeaderService::ParentOf(const LiveSession& s) const {
  const sched::leader::Session* model = Model(s.id);
  return model == nullptr || model->parent == sched::kNoSession ? 0 : model->parent;
}

LeaderService::~LeaderService() {
  if (plan_timer_) event_free(plan_timer_);
}

void LeaderService::OnPlanTimeout(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<LeaderService*>(arg);
  self->executor_.OnTimeout(self->plan_timer_txn_);
}

// The scheduler's clock: seconds since this leader started. Steady, so aging and
// runtimes do not jump with the wall clock; small, as the priority modules expect
// (fcfs is 1e9 minus the submit time: epoch seconds would give every session 1.0).
double LeaderService::Now() const {
  return clock_.SecondsSince(started_);
}

LeaderService::LiveSession* LeaderService::Find(int64_t id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

void LeaderService::NodeJoined(const proto::NodeJoin& join) {
  sched::leader::NodeJoined joined{join.node, join.hostname, {}};
  for (const auto& pu : join.pus) joined.topology.pus.push_back(sched::Pu{pu.core, pu.package});
  joined.topology.gpus = join.gpus;
  Step(joined);
  peers_.Send({join.node}, proto::MsgType::kNodeWelcome, proto::Json(proto::NodeWelcome{}));
  if (static_cast<int>(state_.snapshot.nodes.size()) != state_.expected_nodes) return;
  BuildPriority();
  if (callbacks_.all_joined) callbacks_.all_joined();
}

void LeaderService::OnClientFrame(const std::shared_ptr<Connection>& client, proto::Frame&& frame,
                                  uid_t uid) {
  switch (frame.type) {
    case proto::MsgType::kSessionLaunch:
      return Launch(client, frame, uid);
    case proto::MsgType::kSessionSignal:
    case proto::MsgType::kSessionSuspend:
    case proto::MsgType::kSessionResume:
    case proto::MsgType::kIoStdin:
      return SessionControl(client, frame);
    case proto::MsgType::kCtlStatus:
    case proto::MsgType::kCtlKill:
    case proto::MsgType::kCtlSuspend:
    case proto::MsgType::kCtlResume:
    case proto::MsgType::kCtlShutdown:
      return Control(client, frame);
    default:
      client->FailAndClose(std::string("unexpected ") + proto::MsgTypeName(frame.type) +
                           " message on the launcher socket");
  }
}

const std::string& LeaderService::UserName(uid_t uid) {
  auto it = user_names_.find(uid);
  if (it == user_names_.end()) it = user_names_.emplace(uid, LookUpUserName(uid)).first;
  return it->second;
}

void LeaderService::Launch(const std::shared_ptr<Connection>& client, const proto::Frame& frame,
                           uid_t uid) {
  if (executor_.busy()) {
    std::weak_ptr<Connection> weak = client;
    return deferred_.push_back([this, weak, frame, uid] {
      if (auto c = weak.lock()) Launch(c, frame, uid);
    });
  }
  auto req = proto::Decode<proto::LaunchRequest>(frame);
  if (!req) return client->FailAndClose(req.error().message());
  if (auto valid = CheckLaunchRequest(*req); !valid)
    return SendError(*client, valid.error().message());
  auto policy = config::ResolvePolicy(config_, req->policy, req->spread);
  if (!policy) return SendError(*client, policy.error().message());
  auto allocator = config::ResolveAllocator(config_, req->allocator);
  if (!allocator) return SendError(*client, allocator.error().message());
  sched::leader::Arrival arrival;
  sched::SessionRequest& ask = arrival.request;
  ask.owner = UserName(uid);
  ask.command = CommandLine(req->argv);
  ask.ranks = req->ranks;
  ask.threads_per_rank = req->threads_per_rank;
  ask.nodes = req->nodes;
  ask.ppn = req->ppn;
  ask.estimate_s = req->estimate_s;
  ask.allocator = *allocator;
  arrival.policy = *policy;
  arrival.kill_wait_s = req->kill_wait_s >= 0 ? req->kill_wait_s : config_.kill_wait_s;
  metrics_.ApplyTo(state_.snapshot, /*links=*/true);
  sched::leader::Outcome decided = Step(arrival);
  if (decided.refused) return SendError(*client, *decided.refused);
  const sched::SessionRequest& request = decided.request;
  LiveSession& s = sessions_[request.id];
  s.id = request.id;
  s.launcher = client;
  s.launcher_key = client.get();
  s.owner = request.owner;
  s.command = request.command;
  s.ranks = request.ranks;
  s.threads = request.threads_per_rank;
  s.start = state_.snapshot.now;
  s.request = std::move(*req);
  Execute(decided.plan, policy->options.surpass_grace_s);
}

void LeaderService::Execute(const sched::Plan& plan, double grace_s) {
  // Sessions as they were before the plan: what the nodes act on (an empty plan is not
  // in flight).
  const sched::Snapshot& before = state_.in_flight ? state_.in_flight->before : state_.snapshot;
  const sched::Plan nodes = sched::leader::NodePlan(state_, plan);
  const Clock::TimePoint t0 = clock_.Now();
  executor_.Run(before, nodes, grace_s, [this, plan, nodes, before, t0](Result<void> ok) {
    RecordPlan(nodes, before, clock_.Now() - t0, ok.has_value());
    PlanDone(plan, std::move(ok));
  });
}

void LeaderService::PlanDone(const sched::Plan& plan, Result<void> ok) {
  std::optional<std::string> failure;
  if (!ok) failure = ok.error().ToString();
  sched::leader::Outcome done = Step(sched::leader::PlanCarriedOut{std::move(failure)});
  if (done.user_control) AnswerUserControl(*done.user_control, ok);
  if (!ok) return PlanFailed(done);
  EndSessions(done);
  for (const sched::leader::Note& note : done.notes)
    if (LiveSession* s = Find(note.session)) NoteToLauncher(*s, note.text);
  for (const sched::Action& action : plan.actions) {
    if (const auto* start = std::get_if<sched::StartRanksAction>(&action)) {
      if (LiveSession* s = Find(start->session)) {
        // Failed while the plan ran: it never starts (Finish below ends it).
        if (std::ranges::find(done.ended, s->id) != done.ended.end()) {
          AnswerCommSpawn(*s, false, Model(s->id)->failure->first);
          continue;
        }
        StartRanks(*start, s->request, *s);
        AnswerCommSpawn(*s, true, "");
      }
    } else if (const auto* wait = std::get_if<sched::EnqueueAction>(&action)) {
      LiveSession* s = Find(wait->session);
      if (s == nullptr) continue;
      s->wait_reason = wait->reason;
      if (ParentOf(*s) != 0) NoteToParent(*s, "queued: " + wait->reason);
      if (auto c = s->launcher.lock()) {
        c->Send(proto::Encode(proto::MsgType::kSessionAck,
                              proto::SessionAck{s->id, "queued", wait->reason}));
      }
    }
  }
  for (int64_t id : done.ended) Finish(id);
  RunDeferred();
}

void LeaderService::PlanFailed(const sched::leader::Outcome& undone) {
  for (const std::string& line : undone.log) std::fprintf(stderr, "pschedd[0]: %s\n", line.c_str());
  for (const sched::leader::Note& note : undone.notes)
    if (LiveSession* s = Find(note.session)) NoteToLauncher(*s, note.text);
  if (LiveSession* s = undone.refused ? Find(undone.session) : nullptr) {
    if (auto c = s->launcher.lock())
      SendError(*c, "session " + std::to_string(s->id) + " " + *undone.refused);
    AnswerCommSpawn(*s, false, *undone.refused);
    sched::leader::Drop(state_, s->id);
    sessions_.erase(undone.session);
  }
  if (!undone.plan.empty()) return Execute(undone.plan, 0);
  RunDeferred();
}

void LeaderService::NoteToLauncher(const LiveSession& s, const std::string& text) {
  std::string line = "psched: session " + std::to_string(s.id) + " " + text + "\n";
  if (ParentOf(s) != 0) return NoteToParent(s, text);
  if (auto c = s.launcher.lock())
    c->Send(proto::Encode(proto::MsgType::kIoOutput, proto::Output{s.id, 0, 2, line}));
}

void LeaderService::RecordPlan(const sched::Plan& plan, const sched::Snapshot& before,
                               std::chrono::steady_clock::duration took, bool ok) {
  std::string kind;
  size_t ranks = 0;
  for (const sched::Action& action : plan.actions) {
    sched::SessionId session = sched::kNoSession;
    std::string what;
    if (const auto* s = std::get_if<sched::SuspendAction>(&action)) {
      session = s->session, what = "suspend";
    } else if (const auto* r = std::get_if<sched::ResumeAction>(&action)) {
      session = r->session, what = "resume";
    } else if (const auto* p = std::get_if<sched::RepinAction>(&action)) {
      session = p->session, what = p->by == sched::kNoSession ? "restore" : "repin";
    } else {
      continue;
    }
    if (kind.find(what) == std::string::npos) kind += (kind.empty() ? "" : "+") + what;
    if (const sched::Session* was = before.Find(session)) ranks += was->placement.ranks.size();
  }
  if (kind.empty()) return;  // nothing ran on the nodes
  plan_times_.push_back({kind, ranks, ok, std::chrono::duration<double, std::milli>(took).count()});
  if (plan_times_.size() > 64) plan_times_.erase(plan_times_.begin());
}

void LeaderService::RunDeferred() {
  while (!executor_.busy() && !deferred_.empty()) {
    auto next = std::move(deferred_.front());
    deferred_.pop_front();
    next();
  }
}

bool LeaderService::Queued(int64_t id) const {
  const sched::Session* model = state_.snapshot.Find(id);
  return model != nullptr && model->state == sched::SessionState::kQueued;
}

void LeaderService::StartRanks(const sched::StartRanksAction& start,
                               const proto::LaunchRequest& req, LiveSession& s) {
  proto::StartRanksOrder order;
  order.session = s.id;
  order.nspace = "psched." + std::to_string(getpid()) + "." + std::to_string(s.id);
  order.argv = req.argv;
  order.env = req.env;
  order.cwd = req.cwd;
  order.size = static_cast<int>(start.placement.ranks.size());
  order.threads_per_rank = req.threads_per_rank;
  order.parent_nspace = s.parent_nspace;
  order.parent_rank = s.parent_rank;
  order.app_sizes = s.app_sizes;
  order.mpi = req.mpi.empty() ? config_.default_mpi : req.mpi;
  order.universe_size = std::max(order.size, state_.snapshot.TotalPus());
  order.stdout_pty = req.stdout_pty;
  const sched::leader::RankLayout layout = sched::leader::LayoutOf(state_.snapshot, start);
  if (layout.yield_when_idle) order.env.push_back("OMPI_MCA_mpi_yield_when_idle=1");
  std::map<int, int> local_count;
  for (const sched::RankSlots& r : layout.ranks)
    order.ranks.push_back(proto::RankSpec{r.rank, r.node, local_count[r.node]++, r.pus});
  int max_node = 0;
  for (const auto& [id, name] : state_.hostnames) max_node = std::max(max_node, id);
  order.hostnames.resize(static_cast<size_t>(max_node) + 1);
  for (const auto& [id, name] : state_.hostnames) order.hostnames[static_cast<size_t>(id)] = name;
  s.nodes = start.placement.Nodes();
  s.rank0_node = start.placement.ranks.empty() ? 0 : start.placement.ranks.front().node;
  if (auto c = s.launcher.lock())
    c->Send(proto::Encode(proto::MsgType::kSessionStarted, proto::SessionStarted{s.id, s.nodes}));
  peers_.Send(s.nodes, proto::MsgType::kSessionStartRanks, proto::Json(order));
}

void LeaderService::OnClientClosed(Connection& client) {
  std::vector<int64_t> gone;
  for (auto& [id, s] : sessions_) {
    if (s.launcher_key != &client) continue;
    s.launcher_key = nullptr;
    gone.push_back(id);
  }
  for (int64_t id : gone) Kill(id, 128 + SIGKILL, "launcher disconnected");
}

void LeaderService::OnNodeFrame(proto::Frame&& frame) {
  switch (frame.type) {
    case proto::MsgType::kIoOutput: {
      auto out = proto::DecodeChecked<proto::Output>(frame, ids_);
      if (!out) return;
      LiveSession* s = Find(out->session);
      if (s == nullptr) return;
      if (ParentOf(*s) != 0) return ForwardChildOutput(*s, std::move(*out));
      if (auto c = s->launcher.lock()) {
        c->Send(proto::Encode(proto::MsgType::kIoOutput, *out));
        HoldOutputIfBacklogged(*s, *c);
      }
      return;
    }
    case proto::MsgType::kIoStdinWritten: {
      // Stdin flow control is between the launcher and rank 0's node: passed on as it is.
      auto written = proto::DecodeChecked<proto::StdinWritten>(frame, ids_);
      LiveSession* s = written ? Find(written->session) : nullptr;
      if (s == nullptr) return;
      if (auto c = s->launcher.lock()) c->Send(proto::Encode(frame.type, *written));
      return;
    }
    case proto::MsgType::kSessionRankExited:
      if (auto e = proto::DecodeChecked<proto::RankExit>(frame, ids_)) RankFailed(*e);
      return;
    case proto::MsgType::kSessionNodeDone:
      if (auto d = proto::DecodeChecked<proto::NodeDone>(frame, ids_)) NodeDone(*d);
      return;
    case proto::MsgType::kNodeJoin:
      if (auto j = proto::DecodeChecked<proto::NodeJoin>(frame, ids_)) NodeJoined(*j);
      return;
    case proto::MsgType::kNodeLost:
      if (auto l = proto::DecodeChecked<proto::NodeLost>(frame, ids_)) NodesLost(*l);
      return;
    case proto::MsgType::kMonitorReport:
      if (auto r = proto::DecodeChecked<proto::MonitorReport>(frame, ids_)) {
        metrics_.Update(*r);
        if (metrics_.TakeDirectory(state_.expected_nodes -
                                   static_cast<int>(state_.lost_nodes.size())))
          peers_.Send({}, proto::MsgType::kMonitorPeers, proto::Json(metrics_.Peers()));
        metrics_.ApplyTo(state_.snapshot, /*links=*/false);  // links: before decisions
      }
      return;
    default:
      return;
  }
}

// A launcher whose stdout is not read (piped into a pager, a stopped reader) must not make
// the leader keep its ranks' output without bound: beyond kHoldAt the nodes stop reading
// the session's pipes, so its ranks block in write as on a full terminal, and they read
// again once the launcher has taken all but kReleaseAt. What is in flight meanwhile is
// bounded by one read per rank stream. One launcher can carry several sessions (a parent
// and its MPI_Comm_spawn children), and a connection keeps one drain callback: the
// latest hold's callback releases every session held on that launcher.
void LeaderService::HoldOutputIfBacklogged(LiveSession& s, Connection& launcher) {
  constexpr size_t kHoldAt = 8u << 20, kReleaseAt = 1u << 20;
  if (s.output_held || launcher.pending_output() < kHoldAt) return;
  s.output_held = true;
  peers_.Send(s.nodes, proto::MsgType::kIoFlow, proto::Json(proto::OutputFlow{s.id, true}));
  launcher.WhenDrainedTo(kReleaseAt, [this, drained = &launcher] {
    for (auto& [id, live] : sessions_) {
      if (live.output_held && OutputLauncherOf(live).get() == drained) ReleaseOutput(live);
    }
  });
}

std::shared_ptr<Connection> LeaderService::OutputLauncherOf(const LiveSession& s) const {
  const int64_t parent_id = ParentOf(s);
  if (parent_id == 0) return s.launcher.lock();
  auto parent = sessions_.find(parent_id);
  return parent == sessions_.end() ? nullptr : parent->second.launcher.lock();
}

void LeaderService::ReleaseOutput(LiveSession& s) {
  if (!s.output_held) return;
  s.output_held = false;
  peers_.Send(s.nodes, proto::MsgType::kIoFlow, proto::Json(proto::OutputFlow{s.id, false}));
}

void LeaderService::Kill(int64_t id, int code, const std::string& why) {
  EndSessions(Step(sched::leader::SessionKilled{id, code, why}));
}

void LeaderService::EndSessions(const sched::leader::Outcome& outcome) {
  for (const sched::leader::Outcome::Kill& kill : outcome.kills) {
    // Its ranks' pipes must drain to their end for the nodes to report the session done.
    if (LiveSession* s = Find(kill.session)) ReleaseOutput(*s);
    if (!kill.nodes.empty()) {
      peers_.Send(kill.nodes, proto::MsgType::kSessionKill,
                  proto::Json(proto::KillOrder{kill.session, kill.kill_wait_s}));
    }
  }
  for (const sched::leader::Outcome::Dropped& drop : outcome.dropped) {
    LiveSession* s = Find(drop.session);
    if (s == nullptr) continue;
    if (auto c = s->launcher.lock()) {
      c->Send(proto::Encode(proto::MsgType::kSessionEnded,
                            proto::SessionEnded{drop.session, drop.code, drop.text}));
    }
    // Queued children of MPI_Comm_spawn: their parent waits in the call for this answer.
    AnswerCommSpawn(*s, false, drop.text, drop.parent);
    sessions_.erase(drop.session);
  }
}

void LeaderService::RankFailed(const proto::RankExit& e) {
  EndSessions(
      Step(sched::leader::RankFailed{{e.session, e.rank, e.node, e.code, e.signal, e.cause}}));
}

void LeaderService::NodeDone(const proto::NodeDone& done) {
  LiveSession* s = Find(done.session);
  if (s == nullptr) return;
  for (const proto::RankExit& e : done.exits)
    if (e.code != 0) RankFailed(e);
  for (int64_t id : Step(sched::leader::NodeDone{done.session, done.node}).ended) Finish(id);
}

void LeaderService::Finish(int64_t id) {
  if (executor_.busy()) return deferred_.push_back([this, id] { Finish(id); });
  if (!sessions_.contains(id)) return;  // ended meanwhile (a failed arrival, a drop)
  LiveSession& s = sessions_.at(id);
  // Its MPI_Comm_spawn children that failed and are still being killed would tell their
  // failure once this launcher has gone (a parent that PMIx told of their failure aborts
  // at once): they tell it first.
  for (auto& [child_id, child] : sessions_) {
    const sched::leader::Session* child_model = Model(child_id);
    if (child_model != nullptr && child_model->failure && ParentOf(child) == id)
      NoteToParent(child, "failed: " + sched::leader::FailureText(state_, *child_model));
  }
  if (auto c = s.launcher.lock()) {
    const sched::leader::Session* model = Model(id);
    const int code = model != nullptr && model->failure ? model->failure->code : 0;
    const std::string text = model != nullptr ? sched::leader::FailureText(state_, *model) : "";
    c->Send(proto::Encode(proto::MsgType::kSessionEnded, proto::SessionEnded{id, code, text}));
  }
  const bool spawned = !s.nodes.empty();  // not a session that ended before its start
  ChildEnded(s);
  sessions_.erase(id);
  metrics_.ApplyTo(state_.snapshot, /*links=*/true);
  // Its children still running are killed with it, queued ones dropped.
  sched::leader::Outcome ended = Step(sched::leader::End{id, spawned});
  EndSessions(ended);
  Execute(ended.plan, 0);
}

void LeaderService::NodesLost(const proto::NodeLost& lost) {
  executor_.NodesLost(lost.nodes);
  for (int n : lost.nodes) {
    std::fprintf(stderr, "pschedd[0]: lost %s: %s\n", state_.NodeName(n).c_str(),
                 lost.cause.c_str());
    metrics_.Forget(n);
  }
  sched::leader::Outcome hit = Step(sched::leader::NodesLost{lost.nodes, lost.cause});
  // The others stop probing the lost nodes.
  if (metrics_.TakeDirectory(state_.expected_nodes - static_cast<int>(state_.lost_nodes.size())))
    peers_.Send({}, proto::MsgType::kMonitorPeers, proto::Json(metrics_.Peers()));
  EndSessions(hit);
  for (int64_t id : hit.ended) Finish(id);
  // Collectives waiting for a lost participant fail on every node (tree_collective.hpp).
  peers_.Send({}, proto::MsgType::kCollAbort,
              proto::Json(proto::CollAbort{lost.nodes, lost.cause}));
}

}  // namespace psched::daemon
