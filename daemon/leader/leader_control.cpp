// What users ask of sessions that exist, apart from leader_service.cpp: the
// launcher's signals, stdin, Ctrl-Z/fg; psched-ctl's status, kill, suspend, resume;
// and the user suspend/resume they (and PMIx job control) share.
#include <signal.h>

#include <map>
#include <optional>
#include <utility>

#include "daemon/leader/leader_service.hpp"
#include "policies/queue.hpp"

namespace psched::daemon {
namespace {

void Reply(Connection& c, bool ok, const std::string& message,
           std::optional<proto::AllocationStatus> status = std::nullopt) {
  c.Send(proto::Encode(proto::MsgType::kCtlReply, proto::CtlReply{ok, message, std::move(status)}));
}

}  // namespace

void LeaderService::SessionControl(const std::shared_ptr<Connection>& client,
                                   const proto::Frame& frame) {
  auto ref = proto::Decode<proto::SessionRef>(frame);
  if (!ref) return client->FailAndClose(ref.error().message());
  LiveSession* s = Find(ref->session);
  // Stdin or a signal racing with the session's end is not an error.
  if (s == nullptr) return;
  if (s->launcher_key != client.get())
    return SendError(*client, "session " + std::to_string(ref->session) + " is not yours");
  const bool suspend_or_resume =
      frame.type == proto::MsgType::kSessionSuspend || frame.type == proto::MsgType::kSessionResume;
  if (Queued(s->id) && !suspend_or_resume) {
    // Nothing runs yet: a fatal signal ends the wait, anything else waits with it. Ctrl-Z
    // and fg go on below, to be told that a queued session has nothing to suspend.
    if (frame.type != proto::MsgType::kSessionSignal) return;
    if (auto kill = sched::leader::WaitEndedBySignal(s->id, ref->signal)) EndSessions(Step(*kill));
    return;
  }
  switch (frame.type) {
    case proto::MsgType::kSessionSignal:
      if (!sched::leader::ForwardedToRanks(ref->signal))
        return SendError(*client, "signal " + std::to_string(ref->signal) + " is not forwarded");
      return peers_.Send(s->nodes, proto::MsgType::kSessionSignal, frame.body);
    case proto::MsgType::kSessionSuspend:
    case proto::MsgType::kSessionResume:
      break;
    default:
      return peers_.Send({s->rank0_node}, proto::MsgType::kIoStdin, frame.body);
  }
  // Ctrl-Z / fg in the launcher's shell. The ack comes once the nodes confirmed: on a
  // suspend the launcher then stops itself, so the shell shows the job stopped.
  const bool suspend = frame.type == proto::MsgType::kSessionSuspend;
  std::weak_ptr<Connection> weak = client;
  const int64_t id = s->id;
  UserSuspendOrResume(id, suspend, [this, weak, id, suspend](Result<void> done) {
    auto c = weak.lock();
    if (!c) return;
    LiveSession* live = Find(id);
    if (!done) {
      // Not an error reply: that would end the launcher, and with it the session.
      if (live != nullptr) NoteToLauncher(*live, done.error().message());
      return;
    }
    c->Send(
        proto::Encode(proto::MsgType::kSessionAck,
                      proto::SessionAck{.session = id, .what = suspend ? "suspend" : "resume"}));
    // fg does not wake a session a surpasser displaced: the shell shows the job running.
    if (suspend || live == nullptr) return;
    if (auto held = sched::leader::HeldBySurpass(state_, id)) NoteToLauncher(*live, *held);
  });
}

void LeaderService::UserSuspendOrResume(int64_t id, bool suspend,
                                        const std::function<void(Result<void>)>& answered) {
  if (executor_.busy()) {
    return deferred_.push_back(
        [this, id, suspend, answered] { UserSuspendOrResume(id, suspend, answered); });
  }
  // Messages name what happened to the session; the caller says which session.
  sched::leader::Outcome decided = Step(sched::leader::UserControl{id, suspend});
  if (decided.refused) {
    const bool ended = Model(id) == nullptr;
    return answered(
        psched::Fail(ended ? ErrorCode::kNotFound : ErrorCode::kInvalidArgument, *decided.refused));
  }
  if (decided.plan.actions.empty()) return answered({});  // the user's word only
  // In flight like any plan; PlanDone answers once the PlanCarriedOut step recorded it.
  user_control_answer_ = answered;
  Execute(decided.plan, 0);
}

void LeaderService::AnswerUserControl(const sched::leader::Outcome::UserControlDone& done,
                                      const Result<void>& ok) {
  auto answered = std::exchange(user_control_answer_, nullptr);
  if (!answered) return;
  if (done.undone) return answered(psched::Fail(ok.error().code(), *done.undone));
  answered({});
}

void LeaderService::Control(const std::shared_ptr<Connection>& client, const proto::Frame& frame) {
  if (frame.type == proto::MsgType::kCtlStatus) return Reply(*client, true, "", Status());
  if (frame.type == proto::MsgType::kCtlShutdown) {
    Reply(*client, true, "shutting down");
    if (callbacks_.shutdown) callbacks_.shutdown();
    return;
  }
  auto ref = proto::Decode<proto::SessionRef>(frame);
  if (!ref) return client->FailAndClose(ref.error().message());
  LiveSession* s = Find(ref->session);
  if (s == nullptr) return Reply(*client, false, "no session " + std::to_string(ref->session));
  if (frame.type == proto::MsgType::kCtlKill) {
    const int64_t id = s->id;  // a queued one is dropped, and `s` with it
    Kill(id, 128 + SIGKILL, "session killed by psched-ctl kill");
    return Reply(*client, true, "session " + std::to_string(id) + " killed");
  }
  // psched-ctl suspend|resume answers once every node confirmed (or the change was undone).
  const bool suspend = frame.type == proto::MsgType::kCtlSuspend;
  const int64_t id = s->id;
  std::weak_ptr<Connection> weak = client;
  UserSuspendOrResume(id, suspend, [this, weak, id, suspend](Result<void> done) {
    auto c = weak.lock();
    if (!c) return;
    const std::string name = "session " + std::to_string(id);
    if (!done) return Reply(*c, false, name + " " + done.error().message());
    if (suspend) return Reply(*c, true, name + " suspended");
    Reply(*c, true, name + " " + sched::leader::HeldBySurpass(state_, id).value_or("resumed"));
  });
}

proto::AllocationStatus LeaderService::Status() const {
  proto::AllocationStatus status;
  for (const sched::Node& n : state_.snapshot.nodes) {
    proto::NodeStatus& node = status.nodes.emplace_back();
    node.id = n.id;
    node.hostname = n.hostname;
    node.pus = n.topology.NumPus();
    node.cores = n.topology.NumCores();
    node.packages = n.topology.NumPackages();
    node.free = n.FreePus();
    node.uses.emplace(n.uses.begin(), n.uses.end());
  }
  for (const auto& [id, cause] : state_.lost_nodes) {
    proto::NodeStatus& node = status.nodes.emplace_back();
    node.id = id;
    node.hostname = state_.hostnames.count(id) ? state_.hostnames.at(id) : "";
    node.state = "lost";
    node.cause = cause;
  }
  const double now = Now();
  // Start times for people are wall-clock seconds since the epoch, not the scheduler's clock.
  const double epoch_now = clock_.WallSeconds();
  std::map<int64_t, int> queue_position;  // 1 = next to start: priority, then arrival order
  for (sched::SessionId id : policies::QueueOrder(state_.snapshot))
    queue_position[id] = static_cast<int>(queue_position.size()) + 1;
  for (const auto& [id, s] : sessions_) {
    const sched::Session* model = state_.snapshot.Find(id);
    const sched::leader::Session* decided = Model(id);
    const bool stopped_by_user = decided != nullptr && decided->stopped_by_user;
    const bool failing = decided != nullptr && decided->failure;
    proto::SessionStatus& out = status.sessions.emplace_back();
    out.id = id;
    out.state = model && !failing ? sched::SessionStateName(model->state) : "ending";
    // Why it is in that state, for people: "suspended by 3", "queued at position 2".
    out.state_detail = out.state;
    if (model != nullptr && !failing) {
      std::string by = std::to_string(model->displaced_by);
      if (model->state == sched::SessionState::kSuspended && model->displaced_by >= 0) {
        out.state_detail = "suspended by " + by;
      } else if (model->state == sched::SessionState::kSidestepped) {
        out.state_detail = "sidestepped by " + by;
      } else if (model->state == sched::SessionState::kQueued) {
        out.state_detail = "queued at position " + std::to_string(queue_position[id]);
      }
      if (decided != nullptr) out.state_detail += YieldedDetail(*decided, *model);
      // The user stopped it: stopped it stays, whatever the model holds for its slots.
      if (stopped_by_user) {
        out.state = "suspended";
        out.state_detail = out.state_detail.starts_with("suspended by ")
                               ? out.state_detail + " and user"
                               : "suspended by user";
      }
      for (const sched::RankSlots& r : model->placement.ranks)
        out.placement.push_back({r.rank, r.node, r.pus});
    }
    out.policy = decided ? decided->policy.name : "";
    out.spread = decided ? decided->policy.spread : false;
    out.displaced_by = model ? model->displaced_by : sched::kNoSession;
    out.floating = model ? model->floating : false;
    out.exclusive = model ? model->exclusive : false;
    out.stopped_by_user = stopped_by_user;
    out.owner = s.owner;
    out.command = s.command;
    out.ranks = static_cast<uint32_t>(s.ranks);
    out.threads_per_rank = static_cast<uint32_t>(s.threads);
    out.nodes = s.nodes;
    out.start = epoch_now - (now - s.start);
    out.elapsed_s = now - s.start;
    // The priority module's value orders the queue (squeue's PRIORITY): queued only.
    if (model != nullptr && !failing && model->state == sched::SessionState::kQueued) {
      out.priority = model->request.priority;
      // As the policy said when it queued the session (psched-ctl top's queue).
      out.wait_reason = s.wait_reason;
    }
  }
  status.expected_nodes = static_cast<uint32_t>(state_.expected_nodes);
  status.free = static_cast<uint32_t>(state_.snapshot.FreePus());
  status.total = static_cast<uint32_t>(state_.snapshot.TotalPus());
  status.plans = plan_times_;
  status.submission_histories = state_.histories.Submissions();
  metrics_.AddToStatus(status);
  return status;
}

}  // namespace psched::daemon
