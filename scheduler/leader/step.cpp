#include "scheduler/leader/step.hpp"

#include <signal.h>

#include <algorithm>

#include "policies/policy_registry.hpp"
#include "policies/yield.hpp"
#include "scheduler/leader/arrival.hpp"
#include "scheduler/leader/round.hpp"

namespace psched::sched::leader {
namespace {

Outcome Refuse(SessionId id, std::string why) {
  return {id, {}, {}, std::move(why)};
}

// "suspended by session 3 (policy surpass)": what the user is told of a session a
// surpass holds, whether they resume it or not.
std::string SuspendedBySurpass(SessionId by) {
  return "suspended by session " + std::to_string(by) + " (policy surpass)";
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
  const size_t joined = state.snapshot.nodes.size();
  if (static_cast<int>(joined + state.lost_nodes.size()) < state.expected_nodes) {
    return Refuse(kNoSession, "the allocation is still starting: " + std::to_string(joined) +
                                  " of " + std::to_string(state.expected_nodes) +
                                  " daemons have joined");
  }
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
  leader::Session& s = state.sessions[request.id];
  s = leader::Session{request.id, arrival.policy, request.allocator, arrival.parent};
  s.kill_wait_s = parent != nullptr ? parent->kill_wait_s : arrival.kill_wait_s;
  return {request.id, request, std::move(plan), std::nullopt};
}

bool Queued(const State& state, SessionId id) {
  const sched::Session* model = state.snapshot.Find(id);
  return model != nullptr && model->state == SessionState::kQueued;
}

// "lost node 1 (host) (its daemon is gone: CAUSE) WHEN": what its sessions' launchers print.
std::string LostMessage(const State& state, int node, const std::string& when = "") {
  auto cause = state.lost_nodes.find(node);
  return "lost " + state.NodeName(node) + " (its daemon is gone: " +
         (cause == state.lost_nodes.end() ? std::string("unknown cause") : cause->second) + ")" +
         (when.empty() ? "" : " " + when);
}

// A queued session leaves without an end plan: nothing of it runs.
void DropQueued(State& state, SessionId id, int code, std::string text, Outcome& out) {
  out.dropped.push_back({id, state.Find(id)->parent, code, std::move(text)});
  Drop(state, id);
}

void Fail(State& state, SessionId id, int code, std::string why, Outcome& out);

// No orphans of MPI_Comm_spawn: the children of a session that ends or fails are killed,
// queued ones dropped (their parent no longer waits for them).
void EndChildren(State& state, SessionId parent, Outcome& out) {
  std::vector<SessionId> children;
  for (const auto& [id, s] : state.sessions)
    if (s.parent == parent && !s.failure) children.push_back(id);
  for (SessionId id : children) {
    if (Queued(state, id)) {
      DropQueued(state, id, 128 + SIGKILL, "dropped: its parent session ended", out);
    } else {
      Fail(state, id, 128 + SIGKILL, "parent session " + std::to_string(parent) + " ended", out);
    }
  }
}

// The session ends with `why`: the nodes running it kill its ranks, and its children.
// The first failure wins; it stays in the state until the session's End.
void Fail(State& state, SessionId id, int code, std::string why, Outcome& out) {
  auto it = state.sessions.find(id);
  if (it == state.sessions.end() || it->second.failure) return;
  leader::Session& s = it->second;
  s.failure = Failure{code, std::move(why), {}};
  out.kills.push_back({id, {s.running_on.begin(), s.running_on.end()}, s.kill_wait_s});
  EndChildren(state, id, out);
}

Outcome RankFailedStep(State& state, const RankExit& e) {
  Outcome out{e.session, {}, {}, std::nullopt};
  auto it = state.sessions.find(e.session);
  // Each failure comes twice (at once, and in node_done): it counts once.
  if (it == state.sessions.end() || !it->second.failed_ranks.insert(e.rank).second) return out;
  if (it->second.failure) {
    it->second.failure->later.push_back(e);
    return out;
  }
  const sched::Session* model = state.snapshot.Find(e.session);
  const bool others = model != nullptr && model->request.ranks > 1;
  Fail(state, e.session, e.code,
       "rank " + std::to_string(e.rank) + " on " + state.NodeName(e.node) + " " + e.cause +
           (others ? "; the other ranks were killed" : ""),
       out);
  return out;
}

Outcome Killed(State& state, const SessionKilled& kill) {
  Outcome out{kill.session, {}, {}, std::nullopt};
  if (!state.sessions.contains(kill.session)) return out;
  if (Queued(state, kill.session)) {
    DropQueued(state, kill.session, kill.code, kill.why + " while queued", out);
  } else {
    Fail(state, kill.session, kill.code, kill.why, out);
  }
  return out;
}

Outcome Ended(State& state, const End& end, double now, Deciders& deciders) {
  const sched::Session* model = state.snapshot.Find(end.session);
  const sched::Session ended = model ? *model : sched::Session{};
  if (!state.sessions.contains(end.session)) return {};
  Outcome out{end.session, {}, {}, std::nullopt};
  EndChildren(state, end.session, out);
  auto it = state.sessions.find(end.session);
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
  if (!decider) return out;
  // The default allocator as every other decision reaches it: the one instance of that
  // name, built with the admin's settings.
  auto allocator = deciders.allocators.Get(deciders.default_allocator);
  if (!allocator) return out;
  prio::AssignPriorities(deciders.priority, state.histories, state.snapshot);
  out.plan = DecideEnd(state.snapshot, ended, **allocator, decider->get());
  return out;
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
      return Refuse(s.id, "is " + SuspendedBySurpass(model->displaced_by) +
                              ": it resumes when that session ends");
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
  Outcome out{connect.victim, {}, std::move(yield.plan), std::nullopt};
  if (!yield.note.empty()) out.log.push_back(std::move(yield.note));
  return out;
}

// The outcome's plan goes into the snapshot and is in flight until PlanCarriedOut; a
// user's stop or resume only changes the ranks: the session keeps its slots.
void PutInFlight(State& state, const Event& event, const Outcome& out) {
  InFlight& flight = state.in_flight.emplace(InFlight{out.plan, state.snapshot});
  if (const auto* control = std::get_if<UserControl>(&event)) {
    flight.user_control = control->session;
    flight.user_stop = control->stop;
    return;
  }
  const SessionRequest* arrival = nullptr;
  if (std::holds_alternative<Arrival>(event)) {
    flight.arrival = out.session;
    arrival = &out.request;
  }
  if (const auto* connect = std::get_if<Connect>(&event)) {
    flight.connector = connect->connector;
    flight.victim = connect->victim;
    // The log line names the victim; its launcher is told the rest.
    const std::string own = "session " + std::to_string(connect->victim) + " ";
    const std::string note = out.log.empty() ? "" : out.log.front();
    flight.yield_note = note.starts_with(own) ? note.substr(own.size()) : note;
  }
  ApplyPlan(state.snapshot, out.plan, arrival);
}

std::optional<int> LostNodeOf(const State& state, const Placement& placement) {
  for (int n : placement.Nodes())
    if (state.lost_nodes.contains(n)) return n;
  return std::nullopt;
}

// A failed plan was undone on the nodes: the snapshot goes back to `before`, but a node
// lost and a session dropped while the plan ran (killed while queued, its launcher gone)
// stay gone: nobody would end that session, and once started it would keep its slots.
void RestoreSnapshot(State& state, const Snapshot& before) {
  state.snapshot = before;
  std::erase_if(state.snapshot.nodes,
                [&](const Node& n) { return state.lost_nodes.contains(n.id); });
  std::vector<SessionId> dropped;
  for (const sched::Session& s : state.snapshot.sessions)
    if (!state.sessions.contains(s.request.id)) dropped.push_back(s.request.id);
  for (SessionId id : dropped) RemoveSession(state.snapshot, id);
}

// What each session the failed plan concerned is told.
std::vector<Note> UndoneNotes(const Plan& plan, SessionId arrival, const std::string& why,
                              const std::string& arrival_text) {
  const std::string retry = "; retried at the next scheduling round";
  std::vector<Note> notes;
  for (const Action& action : plan.actions) {
    if (const auto* start = std::get_if<StartRanksAction>(&action)) {
      if (start->session == arrival) continue;  // refused instead
      notes.push_back({start->session, "could not start yet (it stays queued): " + why + retry});
    } else if (const auto* r = std::get_if<ResumeAction>(&action)) {
      notes.push_back({r->session, "could not be resumed (it stays suspended): " + why + retry});
    } else if (const auto* su = std::get_if<SuspendAction>(&action)) {
      notes.push_back({su->session, "was to be suspended for " + arrival_text +
                                        ", which failed and was undone: " + why});
    } else if (const auto* p = std::get_if<RepinAction>(&action)) {
      notes.push_back(
          {p->session, p->by == kNoSession || p->by != arrival
                           ? "could not be re-pinned back (it stays where it is): " + why + retry
                           : "was to be re-pinned for " + arrival_text +
                                 ", which failed and was undone: " + why});
    }
  }
  return notes;
}

// The user's stop or resume landed: the session is stopped (or not). Undone on the
// nodes, nothing changes (the plan left the snapshot as it was) and the user is told.
Outcome UserControlCarriedOut(State& state, const InFlight& flight, const PlanCarriedOut& done) {
  Outcome out{flight.user_control, {}, {}, std::nullopt};
  out.user_control = Outcome::UserControlDone{flight.user_control, flight.user_stop, std::nullopt};
  if (done.failure) {
    out.user_control->undone =
        std::string(flight.user_stop ? "could not be suspended" : "could not be resumed") +
        " (undone): " + *done.failure;
    return out;
  }
  if (auto it = state.sessions.find(flight.user_control); it != state.sessions.end())
    it->second.stopped_by_user = flight.user_stop;
  return out;
}

Outcome CarriedOut(State& state, const PlanCarriedOut& done, double now, Deciders& deciders) {
  if (!state.in_flight) return {};
  const InFlight flight = std::move(*state.in_flight);
  state.in_flight.reset();
  if (flight.user_control != kNoSession) return UserControlCarriedOut(state, flight, done);
  Outcome out{flight.arrival, {}, {}, std::nullopt};
  if (!done.failure) {
    if (auto victim = state.sessions.find(flight.victim); victim != state.sessions.end()) {
      victim->second.yielded_to = flight.connector;
      out.notes.push_back({flight.victim, flight.yield_note});
    }
    for (const Action& action : flight.plan.actions) {
      const auto* start = std::get_if<StartRanksAction>(&action);
      if (start == nullptr) continue;
      auto it = state.sessions.find(start->session);
      if (it == state.sessions.end()) continue;
      // Its ranks there would never start, and the session never end.
      if (auto lost = LostNodeOf(state, start->placement)) {
        out.on_lost_node[start->session] = *lost;
        Fail(state, start->session, 1, LostMessage(state, *lost, "before it could start"), out);
      }
      // Killed, its launcher gone or a node lost while the plan ran (a surpass grace,
      // say): it must not start with nobody attached. Its end gives back its slots and
      // resumes whom the plan suspended for it.
      if (it->second.failure) {
        out.ended.push_back(start->session);
        continue;
      }
      const std::vector<int> nodes = start->placement.Nodes();
      it->second.running_on = {nodes.begin(), nodes.end()};
    }
    return out;
  }
  RestoreSnapshot(state, flight.before);
  const std::string& why = *done.failure;
  const std::string arrival_text = flight.arrival == kNoSession
                                       ? "the end of a session or a scheduling round"
                                       : "the arrival of session " + std::to_string(flight.arrival);
  out.log.push_back("the plan for " + arrival_text + " failed and was rolled back: " + why);
  out.notes = UndoneNotes(flight.plan, flight.arrival, why, arrival_text);
  if (state.Find(flight.arrival) != nullptr)
    out.refused = "could not start: " + why + " (rolled back)";
  // Queued sessions need not wait for what failed: those that can start without it do.
  state.snapshot.now = now;
  auto queue = QueuePlanWithoutUndo(state.snapshot, deciders.allocators, deciders.default_allocator,
                                    deciders.backfill);
  if (queue) {
    out.plan = std::move(*queue);
  } else {
    out.log.push_back("queue after a failed plan: " + queue.error().ToString());
  }
  return out;
}

Outcome NodeFinished(State& state, const NodeDone& done) {
  Outcome out{done.session, {}, {}, std::nullopt};
  auto it = state.sessions.find(done.session);
  if (it == state.sessions.end()) return out;
  if (it->second.running_on.erase(done.node) && it->second.running_on.empty())
    out.ended.push_back(done.session);
  return out;
}

// Nodes lost for good can leave a queued session wider than what is left, waiting for
// ever where the same arrival now would be refused. Each queued session's own policy
// decides it again as an arrival in the allocation left, emptied: a refusal there
// drops it with that reason.
void DropQueuedThatNoLongerFit(State& state, const std::string& lost_text, Deciders& deciders,
                               Outcome& out) {
  const Snapshot empty = state.snapshot.Emptied();
  std::vector<std::pair<SessionId, std::string>> refused;
  for (const auto& [id, s] : state.sessions) {
    if (!Queued(state, id) || s.failure) continue;
    auto allocator = deciders.allocators.Get(s.allocator);
    auto policy = policies::MakePolicy(s.policy.name, s.policy.options);
    if (!allocator || !policy) continue;
    const Plan plan =
        DecideArrival(empty, state.snapshot.Find(id)->request, **allocator, policy->get());
    for (const Action& action : plan.actions) {
      if (const auto* reject = std::get_if<RejectAction>(&action))
        refused.emplace_back(id, reject->reason);
    }
  }
  for (auto& [id, why] : refused)
    DropQueued(state, id, 1, "dropped: " + lost_text + "; " + why, out);
}

Outcome Joined(State& state, const NodeJoined& join) {
  std::erase_if(state.snapshot.nodes, [&](const Node& n) { return n.id == join.node; });
  state.snapshot.nodes.push_back(Node::Make(join.node, join.hostname, join.topology));
  std::ranges::sort(state.snapshot.nodes, {}, &Node::id);
  state.hostnames[join.node] = join.hostname;
  return {};
}

Outcome Lost(State& state, const NodesLost& lost, Deciders& deciders) {
  Outcome out;
  for (int n : lost.nodes) {
    state.lost_nodes[n] = lost.cause;
    std::erase_if(state.snapshot.nodes, [n](const Node& node) { return node.id == n; });
  }
  for (auto& [id, s] : state.sessions) {
    // Queued sessions and arrivals in flight run on no node yet.
    for (int n : lost.nodes)
      if (s.running_on.erase(n)) out.on_lost_node.try_emplace(id, n);
  }
  // Killed on the nodes left, once none of them counts a lost node.
  const std::map<SessionId, int> hit = out.on_lost_node;
  for (const auto& [id, node] : hit) Fail(state, id, 1, LostMessage(state, node), out);
  for (const auto& [id, node] : hit) {
    const leader::Session* s = state.Find(id);
    if (s != nullptr && s->running_on.empty()) out.ended.push_back(id);
  }
  if (!lost.nodes.empty())
    DropQueuedThatNoLongerFit(state, LostMessage(state, lost.nodes.front()), deciders, out);
  return out;
}

Outcome Decide(State& state, const Event& event, double now, Deciders& deciders) {
  if (const auto* arrival = std::get_if<Arrival>(&event))
    return Arrive(state, *arrival, now, deciders);
  if (const auto* end = std::get_if<End>(&event)) return Ended(state, *end, now, deciders);
  if (std::holds_alternative<RoundTick>(event)) return Round(state, now, deciders);
  if (const auto* connect = std::get_if<Connect>(&event)) return Connected(state, *connect);
  if (const auto* done = std::get_if<PlanCarriedOut>(&event))
    return CarriedOut(state, *done, now, deciders);
  if (const auto* done = std::get_if<NodeDone>(&event)) return NodeFinished(state, *done);
  if (const auto* join = std::get_if<NodeJoined>(&event)) return Joined(state, *join);
  if (const auto* lost = std::get_if<NodesLost>(&event)) return Lost(state, *lost, deciders);
  if (const auto* failed = std::get_if<RankFailed>(&event))
    return RankFailedStep(state, failed->exit);
  if (const auto* kill = std::get_if<SessionKilled>(&event)) return Killed(state, *kill);
  return Control(state, std::get<UserControl>(event));
}

}  // namespace

Outcome Step(State& state, const Event& event, double now, Deciders& deciders) {
  Outcome out = Decide(state, event, now, deciders);
  if (!out.plan.empty()) PutInFlight(state, event, out);
  return out;
}

bool ForwardedToRanks(int signal) {
  return signal == SIGINT || signal == SIGTERM || signal == SIGHUP || signal == SIGKILL ||
         signal == SIGUSR1 || signal == SIGUSR2;
}

std::optional<SessionKilled> WaitEndedBySignal(SessionId session, int signal) {
  if (signal != SIGINT && signal != SIGTERM && signal != SIGHUP && signal != SIGKILL)
    return std::nullopt;
  return SessionKilled{session, 128 + signal, "session ended"};
}

std::optional<std::string> HeldBySurpass(const State& state, SessionId session) {
  const sched::Session* model = state.snapshot.Find(session);
  if (model == nullptr || model->state != SessionState::kSuspended ||
      model->displaced_by == kNoSession)
    return std::nullopt;
  return "stays " + SuspendedBySurpass(model->displaced_by) + " until that session ends";
}

Plan NodePlan(const State& state, const Plan& plan) {
  const SessionId users_own = state.in_flight ? state.in_flight->user_control : kNoSession;
  Plan nodes;
  for (const Action& action : plan.actions) {
    SessionId id = kNoSession;
    if (const auto* suspend = std::get_if<SuspendAction>(&action)) id = suspend->session;
    if (const auto* resume = std::get_if<ResumeAction>(&action)) id = resume->session;
    const leader::Session* s = state.Find(id);
    if (s != nullptr && s->stopped_by_user && id != users_own) continue;
    nodes.actions.push_back(action);
  }
  return nodes;
}

void Drop(State& state, SessionId session) {
  state.histories.Forget(session);
  state.sessions.erase(session);
  RemoveSession(state.snapshot, session);
}

RankLayout LayoutOf(const Snapshot& snapshot, const StartRanksAction& start) {
  RankLayout layout;
  layout.yield_when_idle = start.overbooked;
  layout.ranks = start.placement.ranks;
  if (!start.floating) return layout;
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
