// The leader's step function with no daemon around it: events in, plans and refusals
// out, the state as pschedd's leader keeps it (the plan applied once "carried out").
#include "scheduler/leader/step.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include "scheduler/leader/failure_report.hpp"
#include "scheduler/priorities/fcfs.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sched::leader {
namespace {

class StepTest : public ::testing::Test {
 protected:
  StepTest() : priority_(std::move(*prio::MakePriority("fcfs"))) {
    state_.snapshot.nodes.push_back(Node::Make(0, "n0", NodeTopology::Uniform(1, 4, 1)));
  }
  static config::ResolvedPolicy Policy(const std::string& name) {
    config::ResolvedPolicy p;
    p.name = name;
    return p;
  }
  Outcome Do(const Event& event, double now) {
    Deciders deciders{allocators_, *priority_, "compact", false};
    return Step(state_, event, now, deciders);
  }
  // An arrival: the step applies its plan to the snapshot.
  Outcome Arrive(int ranks, const std::string& policy, double now, SessionId parent = kNoSession) {
    Arrival a;
    a.request.owner = "ann";
    a.request.ranks = ranks;
    a.request.allocator = "compact";
    a.policy = Policy(policy);
    a.parent = parent;
    return Do(a, now);
  }
  static bool Has(const Plan& plan, const auto& pred) {
    return std::any_of(plan.actions.begin(), plan.actions.end(), pred);
  }
  static bool Suspends(const Plan& plan, SessionId id) {
    return Has(plan, [id](const Action& a) {
      const auto* s = std::get_if<SuspendAction>(&a);
      return s != nullptr && s->session == id;
    });
  }
  static bool Resumes(const Plan& plan, SessionId id) {
    return Has(plan, [id](const Action& a) {
      const auto* r = std::get_if<ResumeAction>(&a);
      return r != nullptr && r->session == id;
    });
  }
  // The sessions the step failed -> the nodes told to kill their ranks.
  static std::map<SessionId, std::vector<int>> Kills(const Outcome& out) {
    std::map<SessionId, std::vector<int>> kills;
    for (const Outcome::Kill& k : out.kills) kills[k.session] = k.nodes;
    return kills;
  }
  std::string FirstFailure(SessionId id) const {
    const Session* s = state_.Find(id);
    return s != nullptr && s->failure ? s->failure->first : "(no failure)";
  }
  static bool Starts(const Plan& plan, SessionId id) {
    return Has(plan, [id](const Action& a) {
      const auto* s = std::get_if<StartRanksAction>(&a);
      return s != nullptr && s->session == id;
    });
  }

  AllocatorCache allocators_{AllocatorConfig{}};
  std::unique_ptr<prio::PriorityModule> priority_;
  State state_;
};

TEST_F(StepTest, AnArrivalGetsItsIdSubmitTimeAndPriorityFromTheStep) {
  Outcome first = Arrive(2, "wait", 10);
  ASSERT_FALSE(first.refused);
  EXPECT_EQ(first.session, 1);
  EXPECT_TRUE(Starts(first.plan, 1));
  Outcome second = Arrive(4, "wait", 25);
  EXPECT_EQ(second.session, 2);
  EXPECT_DOUBLE_EQ(second.request.submit_time, 25);
  EXPECT_DOUBLE_EQ(second.request.priority, prio::Fcfs::kBase - 25);
  ASSERT_NE(state_.Find(2), nullptr);
  EXPECT_EQ(state_.Find(2)->policy.name, "wait");
  EXPECT_EQ(state_.snapshot.Find(2)->state, SessionState::kQueued);
}

TEST_F(StepTest, ARefusedArrivalLeavesNoSessionBehind) {
  Outcome out = Arrive(5, "wait", 1);  // wider than the 4 slots
  ASSERT_TRUE(out.refused);
  EXPECT_NE(out.refused->find("the allocation has 4 slots on 1 nodes"), std::string::npos)
      << *out.refused;
  EXPECT_EQ(state_.Find(out.session), nullptr);
  EXPECT_EQ(state_.histories.Submissions(), 0u) << "its history entry was kept";
}

// The user-stop rule: a policy's suspend or resume of a session the user stopped is
// kept for the snapshot (its slots) and left out of what the nodes do.
TEST_F(StepTest, ASessionTheUserStoppedStaysStoppedWhenItsSurpasserEnds) {
  ASSERT_FALSE(Arrive(4, "surpass", 1).refused);
  Do(PlanCarriedOut{}, 1);
  Outcome stop = Do(UserControl{1, true}, 2);
  ASSERT_FALSE(stop.refused);
  EXPECT_TRUE(Suspends(stop.plan, 1));
  Do(PlanCarriedOut{}, 2);
  ASSERT_TRUE(state_.Find(1)->stopped_by_user);
  Outcome surpasser = Arrive(4, "surpass", 3);
  ASSERT_TRUE(Suspends(surpasser.plan, 1)) << "surpass displaces session 1";
  EXPECT_FALSE(Suspends(NodePlan(state_, surpasser.plan), 1)) << "its ranks are stopped already";
  EXPECT_TRUE(Starts(NodePlan(state_, surpasser.plan), 2));
  Do(PlanCarriedOut{}, 3);
  Outcome end = Do(End{2, true}, 9);
  ASSERT_TRUE(Resumes(end.plan, 1)) << "the policy gives its slots back";
  EXPECT_FALSE(Resumes(NodePlan(state_, end.plan), 1)) << "the user has not resumed it";
  Do(PlanCarriedOut{}, 9);
  // The user's own resume reaches the nodes, though the session is still stopped by
  // the user until it lands.
  Outcome resume = Do(UserControl{1, false}, 10);
  ASSERT_TRUE(Resumes(resume.plan, 1));
  EXPECT_TRUE(Resumes(NodePlan(state_, resume.plan), 1));
  EXPECT_TRUE(state_.Find(1)->stopped_by_user);
  Do(PlanCarriedOut{}, 10);
  EXPECT_FALSE(state_.Find(1)->stopped_by_user);
}

TEST_F(StepTest, UserControlRules) {
  ASSERT_FALSE(Arrive(4, "surpass", 1).refused);
  Do(PlanCarriedOut{}, 1);
  ASSERT_FALSE(Arrive(2, "wait", 2).refused);  // queued behind session 1
  Do(PlanCarriedOut{}, 2);
  Outcome queued = Do(UserControl{2, true}, 3);
  ASSERT_TRUE(queued.refused);
  EXPECT_EQ(*queued.refused, "is queued: nothing of it runs yet to suspend or resume");
  EXPECT_FALSE(state_.in_flight);
  EXPECT_EQ(*Do(UserControl{7, true}, 3).refused, "has ended");
  ASSERT_TRUE(Do(UserControl{1, true}, 3).plan.actions.size() == 1);
  Do(PlanCarriedOut{}, 3);
  EXPECT_TRUE(Do(UserControl{1, true}, 4).plan.actions.empty()) << "Ctrl-Z twice";
  // Displaced by a surpasser: resuming only withdraws the user's stop.
  ASSERT_FALSE(Arrive(4, "surpass", 5).refused);
  Do(PlanCarriedOut{}, 5);
  ASSERT_EQ(state_.snapshot.Find(1)->displaced_by, 3);
  Outcome resume = Do(UserControl{1, false}, 6);
  EXPECT_FALSE(resume.refused);
  EXPECT_TRUE(resume.plan.actions.empty());
  EXPECT_FALSE(state_.in_flight);
  EXPECT_FALSE(state_.Find(1)->stopped_by_user);
  Outcome again = Do(UserControl{1, false}, 7);
  ASSERT_TRUE(again.refused);
  EXPECT_EQ(*again.refused,
            "is suspended by session 3 (policy surpass): it resumes when that session ends");
}

// What the user is told on resuming a session: "resumed", unless a surpass holds it
// (its displacer is model state), which the user's resume does not end.
TEST_F(StepTest, ASessionASurpassHoldsStaysSuspendedUntilItsSurpasserEnds) {
  ASSERT_FALSE(Arrive(4, "surpass", 1).refused);
  Do(PlanCarriedOut{}, 1);
  Do(UserControl{1, true}, 2);
  Do(PlanCarriedOut{}, 2);
  EXPECT_EQ(HeldBySurpass(state_, 1), std::nullopt) << "stopped by the user only";
  ASSERT_TRUE(Suspends(Arrive(4, "surpass", 3).plan, 1));
  Do(PlanCarriedOut{}, 3);
  EXPECT_EQ(HeldBySurpass(state_, 1),
            "stays suspended by session 2 (policy surpass) until that session ends");
  EXPECT_EQ(HeldBySurpass(state_, 2), std::nullopt) << "the surpasser runs";
  EXPECT_EQ(HeldBySurpass(state_, 9), std::nullopt) << "no such session";
  ASSERT_TRUE(Resumes(Do(End{2, true}, 4).plan, 1));
  Do(PlanCarriedOut{}, 4);
  EXPECT_EQ(HeldBySurpass(state_, 1), std::nullopt) << "its surpasser ended";
}

// Which signals end a queued session: those that would end its ranks. The kill drops
// it with the signal's exit status; SIGUSR1/2 leave it queued.
TEST_F(StepTest, AFatalSignalEndsAQueuedSessionsWaitAndAUserSignalWaitsWithIt) {
  ASSERT_FALSE(Arrive(4, "wait", 1).refused);
  Do(PlanCarriedOut{}, 1);
  ASSERT_FALSE(Arrive(2, "wait", 2).refused);  // queued behind session 1
  Do(PlanCarriedOut{}, 2);
  for (int sig : {SIGUSR1, SIGUSR2, SIGSTOP, SIGCONT, SIGQUIT})
    EXPECT_EQ(WaitEndedBySignal(2, sig), std::nullopt) << "signal " << sig;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
    auto kill = WaitEndedBySignal(2, sig);
    ASSERT_TRUE(kill) << "signal " << sig;
    EXPECT_EQ(kill->session, 2);
    EXPECT_EQ(kill->code, 128 + sig);
  }
  Outcome ended = Do(*WaitEndedBySignal(2, SIGINT), 3);
  ASSERT_EQ(ended.dropped.size(), 1U);
  EXPECT_EQ(ended.dropped[0].session, 2);
  EXPECT_EQ(ended.dropped[0].code, 128 + SIGINT);
  EXPECT_EQ(ended.dropped[0].text, "session ended while queued");
  EXPECT_EQ(state_.Find(2), nullptr);
}

// The signals a user's session passes on to its ranks, as mpiexec forwards them; a
// stop or continue is the user's stop and resume, never a signal passed on.
TEST(ForwardedToRanksTest, TheSignalsMpiexecForwards) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL, SIGUSR1, SIGUSR2})
    EXPECT_TRUE(ForwardedToRanks(sig)) << "signal " << sig;
  for (int sig : {0, SIGSTOP, SIGTSTP, SIGCONT, SIGQUIT, SIGSEGV, SIGCHLD, SIGWINCH, 65, -1})
    EXPECT_FALSE(ForwardedToRanks(sig)) << "signal " << sig;
}

// The allocation takes sessions once each of its daemons joined or was lost: before,
// a launch is refused with how many joined, and takes no id.
TEST_F(StepTest, AnArrivalBeforeEveryNodeJoinedIsRefused) {
  state_.expected_nodes = 3;  // n0 joined
  Outcome early = Arrive(1, "wait", 1);
  ASSERT_TRUE(early.refused);
  EXPECT_EQ(*early.refused, "the allocation is still starting: 1 of 3 daemons have joined");
  EXPECT_TRUE(state_.sessions.empty());
  EXPECT_EQ(state_.next_session, 1);
  Do(NodeJoined{1, "n1", NodeTopology::Uniform(1, 4, 1)}, 2);
  Do(NodesLost{{1}, "gone"}, 3);
  EXPECT_EQ(*Arrive(1, "wait", 3).refused,
            "the allocation is still starting: 1 of 3 daemons have joined");
  Do(NodeJoined{2, "n2", NodeTopology::Uniform(1, 4, 1)}, 4);
  Outcome arrived = Arrive(1, "wait", 5);
  EXPECT_FALSE(arrived.refused) << *arrived.refused;
  EXPECT_EQ(arrived.session, 1);
}

// A user's stop or resume is a plan in flight like a policy's, on the ranks only: the
// session keeps its slots, and it is stopped once the nodes carried it out. Undone on
// the nodes, nothing changes and the user is told why; no queue pass follows (the
// snapshot never changed).
TEST_F(StepTest, AUsersStopIsInFlightUntilCarriedOutAndAFailedOneChangesNothing) {
  ASSERT_FALSE(Arrive(2, "wait", 0).refused);
  Do(PlanCarriedOut{}, 0);
  ASSERT_FALSE(Arrive(4, "wait", 1).refused);  // queued: it needs 1's slots
  Do(PlanCarriedOut{}, 1);
  const Snapshot running = state_.snapshot;
  Outcome stop = Do(UserControl{1, true}, 2);
  ASSERT_TRUE(Suspends(stop.plan, 1));
  ASSERT_TRUE(state_.in_flight);
  EXPECT_EQ(state_.in_flight->user_control, 1);
  EXPECT_TRUE(state_.in_flight->user_stop);
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning) << "it keeps its slots";
  EXPECT_EQ(state_.snapshot.FreePus(), running.FreePus());
  EXPECT_FALSE(state_.Find(1)->stopped_by_user) << "not before the nodes stopped it";
  Outcome stopped = Do(PlanCarriedOut{}, 2);
  ASSERT_TRUE(stopped.user_control);
  EXPECT_EQ(stopped.user_control->session, 1);
  EXPECT_TRUE(stopped.user_control->stop);
  EXPECT_FALSE(stopped.user_control->undone);
  EXPECT_TRUE(state_.Find(1)->stopped_by_user);
  EXPECT_FALSE(state_.in_flight);
  EXPECT_EQ(state_.snapshot.Find(2)->state, SessionState::kQueued) << "1's slots stay taken";
  // Its resume fails on a node: rolled back there, it stays stopped.
  ASSERT_TRUE(Resumes(Do(UserControl{1, false}, 3).plan, 1));
  Outcome undone = Do(PlanCarriedOut{"node 0 (n0): resume: no such process"}, 3);
  ASSERT_TRUE(undone.user_control);
  EXPECT_FALSE(undone.user_control->stop);
  EXPECT_EQ(undone.user_control->undone,
            "could not be resumed (undone): node 0 (n0): resume: no such process");
  EXPECT_TRUE(undone.plan.empty()) << "no queue pass: nothing was freed";
  EXPECT_TRUE(undone.notes.empty());
  EXPECT_FALSE(undone.refused);
  EXPECT_TRUE(state_.Find(1)->stopped_by_user);
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(state_.snapshot.Find(2)->state, SessionState::kQueued);
}

// A stop that comes while another plan is in flight waits for it (pschedd holds it
// until the PlanCarriedOut, one plan at a time): what it decides depends on how that
// plan went. Landed, a surpass had suspended the session, and the stop only records the
// user's word; rolled back, the session runs, and the stop suspends it.
TEST_F(StepTest, AStopWhileAnotherPlanIsInFlightIsDecidedOnceThatPlanLanded) {
  ASSERT_FALSE(Arrive(2, "surpass", 0).refused);
  Do(PlanCarriedOut{}, 0);
  ASSERT_TRUE(Suspends(Arrive(4, "surpass", 1).plan, 1));
  const State in_flight = state_;
  Do(PlanCarriedOut{}, 1);
  Outcome after_landing = Do(UserControl{1, true}, 2);
  EXPECT_FALSE(after_landing.refused);
  EXPECT_TRUE(after_landing.plan.empty()) << "its ranks are stopped already, by the surpass";
  EXPECT_FALSE(state_.in_flight);
  EXPECT_TRUE(state_.Find(1)->stopped_by_user);
  state_ = in_flight;
  Do(PlanCarriedOut{"node 0 (n0): suspend: timeout"}, 1);
  ASSERT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning);
  Outcome after_rollback = Do(UserControl{1, true}, 2);
  EXPECT_TRUE(Suspends(after_rollback.plan, 1));
  EXPECT_FALSE(state_.Find(1)->stopped_by_user);
  Do(PlanCarriedOut{}, 2);
  EXPECT_TRUE(state_.Find(1)->stopped_by_user);
}

// A node's daemon joining is a step: the node enters the snapshot in id order (a
// second join of an id replaces what the first said) and messages name it by host.
TEST_F(StepTest, ANodeJoiningEntersTheSnapshotInIdOrder) {
  EXPECT_TRUE(Do(NodeJoined{2, "n2", NodeTopology::Uniform(1, 2, 1)}, 0).plan.empty());
  Do(NodeJoined{1, "old", NodeTopology::Uniform(1, 2, 1)}, 0);
  Do(NodeJoined{1, "n1", NodeTopology::Uniform(2, 3, 1, 1)}, 0);
  ASSERT_EQ(state_.snapshot.nodes.size(), 3u);
  EXPECT_EQ(state_.snapshot.nodes[0].id, 0);
  EXPECT_EQ(state_.snapshot.nodes[1].id, 1);
  EXPECT_EQ(state_.snapshot.nodes[2].id, 2);
  EXPECT_EQ(state_.snapshot.nodes[1].hostname, "n1");
  EXPECT_EQ(state_.snapshot.nodes[1].topology.NumPus(), 6);
  EXPECT_EQ(state_.snapshot.TotalPus(), 4 + 6 + 2);
  EXPECT_EQ(state_.NodeName(1), "node 1 (n1)");
  EXPECT_FALSE(state_.in_flight);
  // What joined is what arrivals are decided on: 12 ranks fit only on all three.
  Outcome wide = Arrive(12, "wait", 1);
  ASSERT_FALSE(wide.refused) << *wide.refused;
  EXPECT_TRUE(Starts(wide.plan, 1));
}

// One arrival path: the same request as a launch and as MPI_Comm_spawn's children of
// session 1 differ only by the parent's rules.
TEST_F(StepTest, ChildrenArriveAsLaunchesDoPlusTheParentsRules) {
  ASSERT_FALSE(Arrive(2, "surpass", 1).refused);
  ASSERT_FALSE(Arrive(2, "surpass", 2).refused);  // the allocation is full
  State before = state_;
  Outcome launch = Arrive(2, "surpass", 3);
  ASSERT_FALSE(launch.refused);
  const bool displaces_1 = Suspends(launch.plan, 1);
  state_ = before;
  Outcome children = Arrive(2, "surpass", 3, /*parent=*/displaces_1 ? 1 : 2);
  ASSERT_TRUE(children.refused) << "the plan suspends the parent, which waits for them";
  EXPECT_NE(children.refused->find("waits for these children (MPI_Comm_spawn)"), std::string::npos)
      << *children.refused;
  EXPECT_EQ(state_.Find(children.session), nullptr);
}

TEST_F(StepTest, QueuedChildrenThatFitOnlyOnTheirParentsSlotsAreRefused) {
  ASSERT_FALSE(Arrive(3, "wait", 1).refused);
  Outcome wait = Arrive(2, "wait", 2, /*parent=*/1);
  ASSERT_TRUE(wait.refused);
  EXPECT_EQ(*wait.refused,
            "the children need 2 slots but at most 1 of the allocation's 4 can be free while "
            "session 1 holds its own");
  // Overbook starts them at once on shared slots: never refused for their width.
  state_ = State{};
  state_.snapshot.nodes.push_back(Node::Make(0, "n0", NodeTopology::Uniform(1, 4, 1)));
  ASSERT_FALSE(Arrive(3, "overbook", 1).refused);
  Outcome overbook = Arrive(2, "overbook", 2, /*parent=*/1);
  ASSERT_FALSE(overbook.refused) << *overbook.refused;
  EXPECT_TRUE(Starts(overbook.plan, overbook.session));
  EXPECT_EQ(state_.Find(overbook.session)->parent, 1);
}

TEST_F(StepTest, AFloatingSpawnBindsEachRankToItsWholeNodeAndOverbookedRanksYield) {
  StartRanksAction start;
  start.session = 1;
  start.placement.ranks = {RankSlots{0, 0, {2}}, RankSlots{1, 0, {3}}};
  RankLayout pinned = LayoutOf(state_.snapshot, start);
  EXPECT_EQ(pinned.ranks[1].pus, std::vector<int>{3});
  EXPECT_FALSE(pinned.yield_when_idle);
  start.floating = true;
  start.overbooked = true;
  RankLayout floating = LayoutOf(state_.snapshot, start);
  EXPECT_EQ(floating.ranks[1].pus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(floating.ranks[1].rank, 1);
  EXPECT_TRUE(floating.yield_when_idle);
}

TEST_F(StepTest, AnEndFreesTheSlotsAndRecordsTheRuntimeAtTheStepsTime) {
  ASSERT_FALSE(Arrive(4, "wait", 0).refused);
  ASSERT_FALSE(Arrive(4, "wait", 1).refused);
  Outcome end = Do(End{1, true}, 30);
  EXPECT_TRUE(Starts(end.plan, 2));
  EXPECT_EQ(state_.Find(1), nullptr);
  EXPECT_EQ(state_.snapshot.Find(1), nullptr);
  EXPECT_DOUBLE_EQ(state_.snapshot.now, 30);
}

// A surpass yields to interaction: the connector that suspended its victim resumes it
// beside itself (policies/yield.hpp); any other pair of sessions that connect changes
// nothing.
TEST_F(StepTest, AConnectToTheSessionItSurpassedResumesItAndNoOtherConnectDoes) {
  state_.snapshot.nodes = {Node::Make(0, "n0", NodeTopology::Uniform(1, 4, 1))};
  ASSERT_FALSE(Arrive(2, "surpass", 0).refused);
  ASSERT_FALSE(Arrive(2, "surpass", 1).refused);
  Outcome surpass = Arrive(4, "surpass", 2);
  ASSERT_TRUE(Suspends(surpass.plan, 1)) << "session 3 surpasses both";
  ASSERT_EQ(state_.snapshot.Find(1)->displaced_by, 3);
  Outcome yield = Do(Connect{3, 1}, 3);
  EXPECT_FALSE(yield.refused);
  EXPECT_TRUE(Resumes(yield.plan, 1)) << "the victim runs again beside its connector";
  EXPECT_FALSE(Resumes(yield.plan, 2)) << "session 2 was not connected to";
  ASSERT_EQ(yield.log.size(), 1u);
  EXPECT_NE(yield.log[0].find("session 1"), std::string::npos) << yield.log[0];
  EXPECT_TRUE(Do(Connect{1, 3}, 3).plan.empty()) << "session 1 surpassed nobody";
  EXPECT_TRUE(Do(Connect{2, 1}, 3).plan.empty()) << "session 2 did not displace session 1";
  EXPECT_TRUE(Do(Connect{3, 9}, 3).plan.empty()) << "no session 9";
}

// A plan the nodes failed and rolled back: the snapshot goes back, the arrival it was
// for is refused, every session it concerned is told why, and queued sessions that can
// start without it do (here the head of the queue was dropped while the plan ran).
TEST_F(StepTest, AFailedPlanGoesBackRefusesItsArrivalTellsWhomItConcernedAndStartsTheQueue) {
  ASSERT_FALSE(Arrive(2, "surpass", 0).refused);
  ASSERT_FALSE(Arrive(4, "wait", 1).refused);  // queued
  ASSERT_FALSE(Arrive(2, "wait", 2).refused);  // queued behind session 2 (no backfill)
  ASSERT_EQ(state_.snapshot.Find(3)->state, SessionState::kQueued);
  Outcome surpass = Arrive(4, "surpass", 3);
  ASSERT_TRUE(Suspends(surpass.plan, 1));
  ASSERT_TRUE(Starts(surpass.plan, 4));
  Drop(state_, 2);  // killed while queued, before the plan landed
  Outcome undone = Do(PlanCarriedOut{"node 0: cannot freeze"}, 4);
  EXPECT_EQ(undone.session, 4);
  ASSERT_TRUE(undone.refused);
  EXPECT_EQ(*undone.refused, "could not start: node 0: cannot freeze (rolled back)");
  ASSERT_NE(state_.Find(4), nullptr) << "the caller drops it once its launcher is told";
  EXPECT_EQ(state_.snapshot.Find(4), nullptr);
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(state_.snapshot.Find(2), nullptr) << "a dropped session came back";
  ASSERT_EQ(undone.notes.size(), 1u);
  EXPECT_EQ(undone.notes[0].session, 1);
  EXPECT_EQ(undone.notes[0].text,
            "was to be suspended for the arrival of session 4, which failed and was undone: "
            "node 0: cannot freeze");
  ASSERT_EQ(undone.log.size(), 1u);
  EXPECT_EQ(undone.log[0],
            "the plan for the arrival of session 4 failed and was rolled back: node 0: cannot "
            "freeze");
  EXPECT_TRUE(Starts(undone.plan, 3)) << "session 3 fits beside session 1";
  EXPECT_FALSE(Suspends(undone.plan, 1));
}

// A node lost while a plan ran: carried out, the sessions it started there end
// unstarted; rolled back, the node does not come back with the snapshot.
TEST_F(StepTest, ANodeLostWhileAPlanRanStaysLostAndNoSessionStartsThere) {
  state_.snapshot.nodes = {Node::Make(0, "n0", NodeTopology::Uniform(1, 2, 1)),
                           Node::Make(1, "n1", NodeTopology::Uniform(1, 2, 1))};
  ASSERT_FALSE(Arrive(2, "surpass", 0).refused);
  Outcome surpass = Arrive(4, "surpass", 1);
  ASSERT_TRUE(Starts(surpass.plan, 2));
  state_.lost_nodes[1] = "its daemon was killed";
  std::erase_if(state_.snapshot.nodes, [](const Node& n) { return n.id == 1; });
  const State lost = state_;
  Outcome done = Do(PlanCarriedOut{}, 2);
  EXPECT_FALSE(done.refused);
  EXPECT_EQ(done.on_lost_node, (std::map<SessionId, int>{{2, 1}}));
  EXPECT_EQ(Kills(done), (std::map<SessionId, std::vector<int>>{{2, {}}})) << "it runs nowhere";
  EXPECT_EQ(done.ended, std::vector<SessionId>{2}) << "it never starts";
  EXPECT_EQ(FirstFailure(2),
            "lost node 1 (its daemon is gone: its daemon was killed) before it could start");
  EXPECT_TRUE(done.notes.empty());
  state_ = lost;
  Outcome undone = Do(PlanCarriedOut{"node 0: timeout"}, 2);
  EXPECT_TRUE(undone.refused);
  ASSERT_EQ(state_.snapshot.nodes.size(), 1u);
  EXPECT_EQ(state_.snapshot.nodes[0].id, 0);
}

// A session runs on the nodes its start plan placed it on (once carried out) until
// each has reported it done; a lost node fails the sessions with ranks there, and ends
// those no other node runs.
TEST_F(StepTest, ASessionEndsWhenEveryNodeReportedItDoneAndALostNodeFailsItsSessions) {
  state_.snapshot.nodes = {Node::Make(0, "n0", NodeTopology::Uniform(1, 2, 1)),
                           Node::Make(1, "n1", NodeTopology::Uniform(1, 2, 1))};
  Outcome first = Arrive(4, "wait", 0);
  ASSERT_TRUE(Starts(first.plan, 1));
  ASSERT_TRUE(Do(PlanCarriedOut{}, 0).on_lost_node.empty());
  EXPECT_EQ(state_.Find(1)->running_on, (std::set<int>{0, 1}));
  ASSERT_FALSE(Arrive(2, "wait", 1).refused);  // queued: runs nowhere
  const State running = state_;
  EXPECT_TRUE(Do(NodeDone{1, 0}, 2).ended.empty());
  EXPECT_TRUE(Do(NodeDone{1, 0}, 2).ended.empty()) << "a node reports once";
  EXPECT_TRUE(Do(NodeDone{2, 0}, 2).ended.empty()) << "session 2 runs nowhere";
  EXPECT_EQ(Do(NodeDone{1, 1}, 3).ended, std::vector<SessionId>{1});
  state_ = running;
  Outcome lost = Do(NodesLost{{1}, "its daemon was killed"}, 2);
  EXPECT_EQ(lost.on_lost_node, (std::map<SessionId, int>{{1, 1}}));
  EXPECT_EQ(Kills(lost), (std::map<SessionId, std::vector<int>>{{1, {0}}}))
      << "node 0 kills the ranks it runs";
  EXPECT_EQ(FirstFailure(1), "lost node 1 (its daemon is gone: its daemon was killed)");
  EXPECT_TRUE(lost.ended.empty()) << "node 0 still runs session 1's other ranks";
  EXPECT_EQ(state_.lost_nodes.at(1), "its daemon was killed");
  ASSERT_EQ(state_.snapshot.nodes.size(), 1u);
  EXPECT_EQ(Do(NodeDone{1, 0}, 3).ended, std::vector<SessionId>{1});
  state_ = running;
  Outcome both = Do(NodesLost{{0, 1}, "the switch died"}, 2);
  EXPECT_EQ(both.on_lost_node, (std::map<SessionId, int>{{1, 0}}));
  EXPECT_EQ(Kills(both), (std::map<SessionId, std::vector<int>>{{1, {}}}));
  EXPECT_EQ(FirstFailure(1), "lost node 0 (its daemon is gone: the switch died)");
  EXPECT_EQ(both.ended, std::vector<SessionId>{1});
}

// A queued session that no longer fits what a node loss left would wait for ever: it is
// dropped with the refusal its arrival would now get. One that still fits stays queued.
TEST_F(StepTest, AQueuedSessionThatNoLongerFitsAfterANodeLossIsDropped) {
  state_.snapshot.nodes = {Node::Make(0, "n0", NodeTopology::Uniform(1, 2, 1)),
                           Node::Make(1, "n1", NodeTopology::Uniform(1, 2, 1))};
  ASSERT_TRUE(Starts(Arrive(4, "wait", 0).plan, 1));
  Do(PlanCarriedOut{}, 0);
  ASSERT_FALSE(Arrive(4, "wait", 1).refused);  // queued behind 1: needs both nodes
  ASSERT_FALSE(Arrive(2, "wait", 1).refused);
  ASSERT_EQ(state_.snapshot.Find(2)->state, SessionState::kQueued);
  ASSERT_EQ(state_.snapshot.Find(3)->state, SessionState::kQueued);
  Outcome lost = Do(NodesLost{{1}, "its daemon was killed"}, 2);
  ASSERT_EQ(lost.dropped.size(), 1u);
  EXPECT_EQ(lost.dropped[0].session, 2);
  EXPECT_EQ(lost.dropped[0].code, 1);
  EXPECT_EQ(lost.dropped[0].text.rfind("dropped: lost node 1 (its daemon is gone: its daemon was "
                                       "killed); cannot run in this allocation even when it is "
                                       "empty: needs 4 ranks",
                                       0),
            0u)
      << lost.dropped[0].text;
  EXPECT_EQ(state_.Find(2), nullptr);
  EXPECT_EQ(state_.snapshot.Find(2), nullptr);
  ASSERT_NE(state_.snapshot.Find(3), nullptr) << "2 slots are left: session 3 still fits";
}

// The first failing rank ends its session: the nodes running it kill the rest after
// its kill wait. Every failure is reported twice (at once and in node_done) and counts
// once; later ones are listed to the launcher, not those the leader's SIGTERM ended.
TEST_F(StepTest, TheFirstFailingRankEndsItsSessionAndLaterOnesAreListedOnce) {
  state_.hostnames[0] = "n0";
  Arrival a;
  a.request.ranks = 3;
  a.request.allocator = "compact";
  a.policy = Policy("wait");
  a.kill_wait_s = 2.5;
  ASSERT_FALSE(Do(a, 0).refused);
  ASSERT_TRUE(Do(PlanCarriedOut{}, 0).kills.empty());
  Outcome first = Do(RankFailed{{1, 2, 0, 3, 0, "exited with status 3"}}, 1);
  ASSERT_EQ(first.kills.size(), 1u);
  EXPECT_EQ(first.kills[0].session, 1);
  EXPECT_EQ(first.kills[0].nodes, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(first.kills[0].kill_wait_s, 2.5);
  ASSERT_TRUE(state_.Find(1)->failure);
  EXPECT_EQ(state_.Find(1)->failure->code, 3);
  EXPECT_EQ(FirstFailure(1),
            "rank 2 on node 0 (n0) exited with status 3; the other ranks were killed");
  EXPECT_TRUE(Do(RankFailed{{1, 2, 0, 3, 0, "exited with status 3"}}, 2).kills.empty())
      << "node_done's report of the same rank";
  EXPECT_TRUE(Do(RankFailed{{1, 0, 0, 143, SIGTERM, "killed by signal 15"}}, 2).kills.empty());
  EXPECT_TRUE(Do(RankFailed{{1, 1, 0, 4, 0, "exited with status 4"}}, 2).kills.empty());
  EXPECT_TRUE(Do(RankFailed{{1, 1, 0, 4, 0, "exited with status 4"}}, 2).kills.empty());
  EXPECT_EQ(state_.Find(1)->failure->later.size(), 2u) << "each rank once";
  EXPECT_EQ(FailureText(state_, *state_.Find(1)),
            "rank 2 on node 0 (n0) exited with status 3; the other ranks were killed\n"
            "  also rank 1 on node 0 (n0) exited with status 4");
  EXPECT_TRUE(Do(RankFailed{{7, 0, 0, 1, 0, "exited with status 1"}}, 2).kills.empty())
      << "no session 7";
}

// A kill (psched-ctl, a launcher gone) ends a running session, and with it its
// MPI_Comm_spawn children: those running are killed too, those queued dropped (their
// parent waits for them no more). A queued session killed is dropped, no end plan.
TEST_F(StepTest, AKillEndsASessionItsRunningChildrenAndDropsItsQueuedOnes) {
  Outcome parent = Arrive(2, "wait", 0);
  ASSERT_TRUE(Starts(parent.plan, 1));
  Do(PlanCarriedOut{}, 0);
  Outcome child = Arrive(1, "wait", 1, /*parent=*/1);
  ASSERT_TRUE(Starts(child.plan, 2));
  Do(PlanCarriedOut{}, 1);
  ASSERT_FALSE(Arrive(2, "wait", 2, /*parent=*/1).refused);  // queued for session 1's slots
  ASSERT_EQ(state_.snapshot.Find(3)->state, SessionState::kQueued);
  ASSERT_FALSE(Arrive(4, "wait", 3).refused);  // queued, no parent
  const State running = state_;

  Outcome queued = Do(SessionKilled{4, 137, "session killed by psched-ctl kill"}, 4);
  EXPECT_TRUE(queued.kills.empty());
  ASSERT_EQ(queued.dropped.size(), 1u);
  EXPECT_EQ(queued.dropped[0].session, 4);
  EXPECT_EQ(queued.dropped[0].code, 137);
  EXPECT_EQ(queued.dropped[0].text, "session killed by psched-ctl kill while queued");
  EXPECT_EQ(state_.Find(4), nullptr);
  EXPECT_EQ(state_.snapshot.Find(4), nullptr);

  Outcome kill = Do(SessionKilled{1, 137, "session killed by psched-ctl kill"}, 5);
  EXPECT_EQ(Kills(kill), (std::map<SessionId, std::vector<int>>{{1, {0}}, {2, {0}}}));
  EXPECT_EQ(FirstFailure(1), "session killed by psched-ctl kill");
  EXPECT_EQ(FirstFailure(2), "parent session 1 ended");
  ASSERT_EQ(kill.dropped.size(), 1u);
  EXPECT_EQ(kill.dropped[0].session, 3);
  EXPECT_EQ(kill.dropped[0].parent, 1) << "the state no longer says";
  EXPECT_EQ(kill.dropped[0].text, "dropped: its parent session ended");
  EXPECT_EQ(state_.Find(3), nullptr);
  EXPECT_TRUE(Do(SessionKilled{1, 1, "again"}, 6).kills.empty()) << "the first end wins";
  EXPECT_EQ(FirstFailure(1), "session killed by psched-ctl kill");

  // A parent that ends on its own takes its children with it.
  state_ = running;
  Outcome end = Do(End{1, true}, 5);
  EXPECT_EQ(Kills(end), (std::map<SessionId, std::vector<int>>{{2, {0}}}));
  ASSERT_EQ(end.dropped.size(), 1u);
  EXPECT_EQ(end.dropped[0].session, 3);
  EXPECT_EQ(state_.Find(1), nullptr);
}

// The state a step leaves holds its plan: in the snapshot, and in flight until the
// nodes say how it went. A user's stop is in flight too, but only acts on the ranks:
// the snapshot unchanged.
TEST_F(StepTest, AStepsPlanIsInTheSnapshotAndInFlightUntilCarriedOut) {
  Outcome first = Arrive(2, "surpass", 0);
  ASSERT_TRUE(Starts(first.plan, 1));
  ASSERT_NE(state_.snapshot.Find(1), nullptr) << "the caller applies nothing";
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(state_.snapshot.Find(1)->placement.ranks.size(), 2u);
  EXPECT_EQ(state_.snapshot.Find(1)->request.submit_time, 0);
  ASSERT_TRUE(state_.in_flight);
  EXPECT_EQ(state_.in_flight->arrival, 1);
  EXPECT_EQ(state_.in_flight->before.Find(1), nullptr);
  EXPECT_EQ(state_.in_flight->plan.actions.size(), first.plan.actions.size());
  Do(PlanCarriedOut{}, 0);
  EXPECT_FALSE(state_.in_flight);
  EXPECT_EQ(state_.Find(1)->running_on, std::set<int>{0});
  EXPECT_TRUE(Do(PlanCarriedOut{}, 0).plan.empty()) << "nothing was in flight";
  const Snapshot running = state_.snapshot;
  ASSERT_TRUE(Suspends(Do(UserControl{1, true}, 1).plan, 1));
  ASSERT_TRUE(state_.in_flight) << "a user's stop is in flight too";
  EXPECT_EQ(state_.in_flight->user_control, 1);
  EXPECT_EQ(state_.snapshot.Find(1)->state, running.Find(1)->state) << "it keeps its slots";
  Do(PlanCarriedOut{}, 1);
  // Failed on the nodes: back to the snapshot before the plan.
  ASSERT_TRUE(Suspends(Arrive(4, "surpass", 2).plan, 1));
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kSuspended);
  Do(PlanCarriedOut{"node 0: timeout"}, 3);
  EXPECT_EQ(state_.snapshot.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(state_.snapshot.Find(2), nullptr);
}

// A connect's yield is the victim's once the nodes carried it out: status names the
// connector, and the victim's launcher is told. Undone, it is not recorded.
TEST_F(StepTest, AYieldToAConnectorIsRecordedOnceCarriedOut) {
  ASSERT_FALSE(Arrive(2, "surpass", 0).refused);
  Do(PlanCarriedOut{}, 0);
  ASSERT_TRUE(Suspends(Arrive(4, "surpass", 1).plan, 1));
  Do(PlanCarriedOut{}, 1);
  const State surpassed = state_;
  Outcome yield = Do(Connect{2, 1}, 2);
  ASSERT_TRUE(Resumes(yield.plan, 1));
  EXPECT_EQ(state_.Find(1)->yielded_to, kNoSession) << "not before the nodes resumed it";
  Outcome done = Do(PlanCarriedOut{}, 2);
  EXPECT_EQ(state_.Find(1)->yielded_to, 2);
  ASSERT_EQ(done.notes.size(), 1u);
  EXPECT_EQ(done.notes[0].session, 1);
  ASSERT_EQ(yield.log.size(), 1u);
  EXPECT_EQ("session 1 " + done.notes[0].text, yield.log[0]);
  state_ = surpassed;
  ASSERT_FALSE(Do(Connect{2, 1}, 2).plan.empty());
  Outcome undone = Do(PlanCarriedOut{"node 0: cannot resume"}, 2);
  EXPECT_EQ(state_.Find(1)->yielded_to, kNoSession);
  EXPECT_EQ(state_.snapshot.Find(1)->displaced_by, 2);
}

}  // namespace
}  // namespace psched::sched::leader
