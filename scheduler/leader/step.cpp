#include "scheduler/leader/step.hpp"

#include "policies/policy_registry.hpp"
#include "policies/yield.hpp"
#include "scheduler/leader/arrival.hpp"
#include "scheduler/leader/round.hpp"

namespace psched::sched::leader {
namespace {

Outcome Refuse(SessionId id, std::string why) {
  return {id, {}, {}, std::move(why), {}};
}

// The parent waits inside MPI_Comm_spawn holding its slots: queued children that fit
// only once the parent has ended would wait forever, so they are refused at once.
std::optional<std::string> NeverFitsBesideParent(const Snapshot& snapshot, SessionId parent,
                                                 int64_t slots) {
  int held = 0;
  if (const sched::Session* model = snapshot.Find(parent))
    for (const RankSlots& r : model->placement.ranks) held += static_cast<int>(r.pus.size());
  const int total = snapshot.TotalPus();
  const int could_free = total - held;
  if (slots <= could_free || slots > total) return std::nullopt;  // too big: DecideArrival says
  return "the children need " + std::to_string(slots) + " slots but at most " +
         std::to_string(could_free) + " of the allocation's " + std::to_string(total) +
         " can be free while session " + std::to_string(parent) + " holds its own";
}

// The arrival's plan refuses it; or, for MPI_Comm_spawn's children, it would suspend
// their parent or an ancestor: a suspended parent could never connect to its children,
// and would be resumed only when they end, so both would wait forever. So would
// children queued for slots that their parent holds. Children the plan starts at once
// (overbook shares the parent's slots, as mpirun --oversubscribe) are never refused
// for their width.
std::optional<std::string> PlanRefuses(const State& state, const Plan& plan,
                                       const SessionRequest& request,
                                       const leader::Session* parent) {
  for (const Action& action : plan.actions) {
    if (const auto* reject = std::get_if<RejectAction>(&action)) return reject->reason;
    if (parent == nullptr) continue;
    if (std::holds_alternative<EnqueueAction>(action)) {
      if (auto never = NeverFitsBesideParent(state.snapshot, parent->id, request.SlotsNeeded()))
        return never;
    }
    const auto* suspend = std::get_if<SuspendAction>(&action);
    if (suspend == nullptr) continue;
    for (const leader::Session* up = parent; up != nullptr; up = state.Find(up->parent)) {
      if (up->id == suspend->session) {
        return "the " + parent->policy.name + " policy would suspend session " +
               std::to_string(up->id) + ", which waits for these children (MPI_Comm_spawn)";
      }
    }
  }
  return std::nullopt;
}

Outcome Arrive(State& state, Arrival arrival, double now, Deciders& deciders) {
  SessionRequest& request = arrival.request;
  auto allocator = deciders.allocators.Get(request.allocator);
  if (!allocator) return Refuse(kNoSession, allocator.error().message());
  auto policy = policies::MakePolicy(arrival.policy.name, arrival.policy.options);
  if (!policy) return Refuse(kNoSession, policy.error().message());
  request.id = state.next_session++;
  request.policy = arrival.policy.name;
  request.spread = arrival.policy.spread;
  const leader::Session* parent = state.Find(arrival.parent);
  state.snapshot.now = now;
  request.submit_time = now;
  state.histories.Submitted(request.id, request.owner);
  prio::AssignPriorities(deciders.priority, state.histories, state.snapshot);
  request.priority =
      deciders.priority.Priority(request, state.histories.AtSubmission(request.id), now);
  Plan plan = DecideArrival(state.snapshot, request, **allocator, policy->get());
  if (auto refused = PlanRefuses(state, plan, request, parent)) {
    state.histories.Forget(request.id);
    return Refuse(request.id, *refused);
  }
  state.sessions[request.id] =
      leader::Session{request.id, arrival.policy, request.allocator, arrival.parent, false};
  return {request.id, request, std::move(plan), std::nullopt, {}};
}

Outcome Ended(State& state, const End& end, double now, Deciders& deciders) {
  const sched::Session* model = state.snapshot.Find(end.session);
  const sched::Session ended = model ? *model : sched::Session{};
  auto it = state.sessions.find(end.session);
  if (it == state.sessions.end()) return {};
  const config::ResolvedPolicy policy = it->second.policy;
  state.sessions.erase(it);
  RemoveSession(state.snapshot, end.session);
  state.snapshot.now = now;
  if (ended.start_time >= 0 && end.ran) {  // its accuracy joins the owner's history
    state.histories.Finished(end.session, ended.request.owner, ended.request.estimate_s,
                             now - ended.start_time);
  } else {
    state.histories.Forget(end.session);
  }
  // Every session's policy was resolved at its arrival (a child's is its parent's).
  auto decider = policies::MakePolicy(policy.name, policy.options);
  if (!decider) return {};
  // The default allocator as every other decision reaches it: the one instance of that
  // name, built with the admin's settings.
  auto allocator = deciders.allocators.Get(deciders.default_allocator);
  if (!allocator) return {};
  prio::AssignPriorities(deciders.priority, state.histories, state.snapshot);
  return {
      end.session, {}, DecideEnd(state.snapshot, ended, **allocator, decider->get()), std::nullopt};
}

Outcome Round(State& state, double now, Deciders& deciders) {
  state.snapshot.now = now;
  prio::AssignPriorities(deciders.priority, state.histories, state.snapshot);
  auto plan =
      RoundPlan(state.snapshot, deciders.allocators, deciders.default_allocator, deciders.backfill);
  if (!plan) return Refuse(kNoSession, "scheduling round: " + plan.error().ToString());
  return {kNoSession, {}, std::move(*plan), std::nullopt};
}

// Messages name what happened to the session; the caller says which session.
Outcome Control(State& state, const UserControl& control) {
  auto it = state.sessions.find(control.session);
  const sched::Session* model = state.snapshot.Find(control.session);
  if (it == state.sessions.end()) return Refuse(control.session, "has ended");
  leader::Session& s = it->second;
  if (model != nullptr && model->state == SessionState::kQueued)
    return Refuse(s.id, "is queued: nothing of it runs yet to suspend or resume");
  if (model != nullptr && model->state == SessionState::kSuspended &&
      model->displaced_by != kNoSession) {
    // A surpass stopped its ranks already: the user only says whether they run again
    // when the surpasser ends (NodePlan keeps them stopped).
    if (!control.stop && !s.stopped_by_user) {
      return Refuse(s.id, "is suspended by session " + std::to_string(model->displaced_by) +
                              " (policy surpass): it resumes when that session ends");
    }
    s.stopped_by_user = control.stop;
    return {s.id, {}, {}, std::nullopt};
  }
  if (control.stop && s.stopped_by_user) return {s.id, {}, {}, std::nullopt};  // Ctrl-Z twice
  Plan plan;
  if (control.stop) {
    plan.actions.push_back(SuspendAction{s.id});
  } else {
    plan.actions.push_back(ResumeAction{s.id});
  }
  return {s.id, {}, std::move(plan), std::nullopt};
}

// YieldToConnect decides nothing unless `connector` suspended `victim` by surpass.
Outcome Connected(const State& state, const Connect& connect) {
  policies::Yield yield =
      policies::YieldToConnect(state.snapshot, connect.connector, connect.victim);
  return {connect.victim, {}, std::move(yield.plan), std::nullopt, std::move(yield.note)};
}

}  // namespace

Outcome Step(State& state, const Event& event, double now, Deciders& deciders) {
  if (const auto* arrival = std::get_if<Arrival>(&event))
    return Arrive(state, *arrival, now, deciders);
  if (const auto* end = std::get_if<End>(&event)) return Ended(state, *end, now, deciders);
  if (std::holds_alternative<RoundTick>(event)) return Round(state, now, deciders);
  if (const auto* connect = std::get_if<Connect>(&event)) return Connected(state, *connect);
  return Control(state, std::get<UserControl>(event));
}

Plan NodePlan(const State& state, const Plan& plan) {
  Plan nodes;
  for (const Action& action : plan.actions) {
    SessionId id = kNoSession;
    if (const auto* suspend = std::get_if<SuspendAction>(&action)) id = suspend->session;
    if (const auto* resume = std::get_if<ResumeAction>(&action)) id = resume->session;
    if (const leader::Session* s = state.Find(id); s != nullptr && s->stopped_by_user) continue;
    nodes.actions.push_back(action);
  }
  return nodes;
}

void UserControlDone(State& state, SessionId session, bool stop) {
  if (auto it = state.sessions.find(session); it != state.sessions.end())
    it->second.stopped_by_user = stop;
}

void Drop(State& state, SessionId session) {
  state.histories.Forget(session);
  state.sessions.erase(session);
  RemoveSession(state.snapshot, session);
}

SpawnLayout LayoutOf(const Snapshot& snapshot, const SpawnAction& spawn) {
  SpawnLayout layout;
  layout.yield_when_idle = spawn.overbooked;
  layout.ranks = spawn.placement.ranks;
  if (!spawn.floating) return layout;
  for (RankSlots& r : layout.ranks) {
    r.pus.clear();
    for (const Node& n : snapshot.nodes) {
      if (n.id == r.node)
        for (int pu = 0; pu < n.topology.NumPus(); ++pu) r.pus.push_back(pu);
    }
  }
  return layout;
}

}  // namespace psched::sched::leader
