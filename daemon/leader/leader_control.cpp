// What users ask of sessions that exist, apart from leader_service.cpp: the
// launcher's signals, stdin, Ctrl-Z/fg; psched-ctl's status, kill, suspend, resume;
// and the user suspend/resume they (and PMIx job control) share.
#include <signal.h>

#include <map>
#include <utility>

#include "daemon/leader/leader_service.hpp"
#include "policies/queue.hpp"

namespace psched::daemon {
namespace {

void Reply(Connection& c, bool ok, const std::string& message, proto::Json status = nullptr) {
  c.Send(proto::Encode(proto::MsgType::kCtlReply, proto::CtlReply{ok, message, std::move(status)}));
}

bool Forwardable(int sig) {
  return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGUSR1 || sig == SIGUSR2 ||
         sig == SIGKILL;
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
    if (frame.type == proto::MsgType::kSessionSignal && Forwardable(ref->signal) &&
        ref->signal != SIGUSR1 && ref->signal != SIGUSR2)
      Kill(s->id, 128 + ref->signal, "session ended");
    return;
  }
  switch (frame.type) {
    case proto::MsgType::kSessionSignal:
      if (!Forwardable(ref->signal))
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
    if (!suspend && live != nullptr && DisplacedByPolicy(id)) NoteToLauncher(*live, WaitsFor(id));
  });
}

std::string LeaderService::WaitsFor(int64_t id) const {
  return "stays suspended by session " + std::to_string(state_.snapshot.Find(id)->displaced_by) +
         " (policy surpass) until that session ends";
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
    Reply(*c, true, name + " " + (DisplacedByPolicy(id) ? WaitsFor(id) : "resumed"));
  });
}

proto::Json LeaderService::Status() const {
  proto::Json nodes = proto::Json::array();
  for (const sched::Node& n : state_.snapshot.nodes) {
    nodes.push_back({{"id", n.id},
                     {"hostname", n.hostname},
                     {"pus", n.topology.NumPus()},
                     {"cores", n.topology.NumCores()},
                     {"packages", n.topology.NumPackages()},
                     {"free", n.FreePus()},
                     {"uses", n.uses},
                     {"state", "up"}});
  }
  for (const auto& [id, cause] : state_.lost_nodes) {
    nodes.push_back({{"id", id},
                     {"hostname", state_.hostnames.count(id) ? state_.hostnames.at(id) : ""},
                     {"state", "lost"},
                     {"cause", cause}});
  }
  proto::Json sessions = proto::Json::array();
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
    std::string state = model && !failing ? sched::SessionStateName(model->state) : "ending";
    // Why it is in that state, for people: "suspended by 3", "queued at position 2".
    std::string detail = state;
    proto::Json placement = proto::Json::array();
    if (model != nullptr && !failing) {
      std::string by = std::to_string(model->displaced_by);
      if (model->state == sched::SessionState::kSuspended && model->displaced_by >= 0) {
        detail = "suspended by " + by;
      } else if (model->state == sched::SessionState::kSidestepped) {
        detail = "sidestepped by " + by;
      } else if (model->state == sched::SessionState::kQueued) {
        detail = "queued at position " + std::to_string(queue_position[id]);
      }
      if (decided != nullptr) detail += YieldedDetail(*decided, *model);
      // The user stopped it: stopped it stays, whatever the model holds for its slots.
      if (stopped_by_user) {
        state = "suspended";
        detail = detail.starts_with("suspended by ") ? detail + " and user" : "suspended by user";
      }
      for (const sched::RankSlots& r : model->placement.ranks)
        placement.push_back({{"rank", r.rank}, {"node", r.node}, {"pus", r.pus}});
    }
    sessions.push_back({{"id", id},
                        {"state_detail", detail},
                        {"policy", decided ? decided->policy.name : ""},
                        {"spread", decided ? decided->policy.spread : false},
                        {"displaced_by", model ? model->displaced_by : sched::kNoSession},
                        {"floating", model ? model->floating : false},
                        {"exclusive", model ? model->exclusive : false},
                        {"stopped_by_user", stopped_by_user},
                        {"placement", placement},
                        {"owner", s.owner},
                        {"command", s.command},
                        {"ranks", s.ranks},
                        {"threads_per_rank", s.threads},
                        {"state", state},
                        {"nodes", s.nodes},
                        {"start", epoch_now - (now - s.start)},
                        {"elapsed_s", now - s.start}});
    // The priority module's value orders the queue (squeue's PRIORITY): queued only.
    if (model != nullptr && !failing && model->state == sched::SessionState::kQueued) {
      sessions.back()["priority"] = model->request.priority;
      // As the policy said when it queued the session (psched-ctl top's queue).
      sessions.back()["wait_reason"] = s.wait_reason;
    }
  }
  proto::Json status = {{"nodes", nodes},
                        {"sessions", sessions},
                        {"expected_nodes", expected_nodes_},
                        {"free", state_.snapshot.FreePus()},
                        {"plans", plan_times_},
                        // One per session not yet ended: more means a leak.
                        {"submission_histories", state_.histories.Submissions()},
                        {"total", state_.snapshot.TotalPus()}};
  metrics_.AddToStatus(status);
  return status;
}

}  // namespace psched::daemon
