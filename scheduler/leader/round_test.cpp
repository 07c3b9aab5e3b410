#include "scheduler/leader/round.hpp"

#include <gtest/gtest.h>

namespace psched::sched::leader {
namespace {

sched::Snapshot OneNode(int pus) {
  sched::Snapshot s;
  sched::NodeTopology topo;
  for (int i = 0; i < pus; ++i) topo.pus.push_back({i, 0});
  s.nodes.push_back(sched::Node::Make(0, "n0", topo));
  return s;
}

void Queue(sched::Snapshot& s, sched::SessionId id, int ranks, std::string allocator) {
  sched::Session q;
  q.request.id = id;
  q.request.ranks = ranks;
  q.request.allocator = std::move(allocator);
  q.state = sched::SessionState::kQueued;
  s.sessions.push_back(q);
}

int Spawns(const sched::Plan& plan) {
  int n = 0;
  for (const sched::Action& a : plan.actions)
    n += std::holds_alternative<sched::StartRanksAction>(a);
  return n;
}

TEST(RoundPlan, NothingQueuedNothingToDo) {
  AllocatorCache cache({});
  auto plan = RoundPlan(OneNode(4), cache, "compact", false);
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_TRUE(plan->actions.empty());
  EXPECT_TRUE(cache.made().empty());  // no allocator made for an idle round
}

TEST(RoundPlan, QueuedSessionsThatFitStartWithTheHeadsAllocator) {
  for (const char* name : {"compact", "netload", "auction", "ipwindow"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    Queue(s, 1, 2, name);
    Queue(s, 2, 2, name);
    Queue(s, 3, 2, name);  // does not fit after the first two
    auto plan = RoundPlan(s, cache, "compact", false);
    ASSERT_TRUE(plan) << name << ": " << plan.error().message();
    EXPECT_EQ(Spawns(*plan), 2) << name;
    EXPECT_TRUE(cache.made().contains(name)) << name;
  }
}

TEST(RoundPlan, WindowAllocatorsMayStartALaterSessionWhileTheHeadWaits) {
  // 4 slots, 2 busy: the head needs 4 and must wait; the next needs 2 and fits.
  // In order (compact) nothing starts; auction and ipwindow decide over the window.
  for (const char* name : {"compact", "auction", "ipwindow"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    s.nodes[0].uses = {1, 1, 0, 0};
    Queue(s, 1, 4, name);
    Queue(s, 2, 2, name);
    auto plan = RoundPlan(s, cache, "compact", false);
    ASSERT_TRUE(plan) << name << ": " << plan.error().message();
    if (std::string(name) == "compact") {
      EXPECT_EQ(Spawns(*plan), 0);
      continue;
    }
    ASSERT_EQ(Spawns(*plan), 1) << name;
    const auto& start = std::get<sched::StartRanksAction>(plan->actions[0]);
    EXPECT_EQ(start.session, 2) << name;
    for (const sched::RankSlots& r : start.placement.ranks)
      for (int pu : r.pus) EXPECT_GE(pu, 2) << name << ": placed on a busy slot";
  }
}

TEST(RoundPlan, HeadWithoutAllocatorUsesTheDefault) {
  AllocatorCache cache({});
  sched::Snapshot s = OneNode(2);
  Queue(s, 1, 2, "");
  auto plan = RoundPlan(s, cache, "spread", false);
  ASSERT_TRUE(plan);
  EXPECT_EQ(Spawns(*plan), 1);
  EXPECT_TRUE(cache.made().contains("spread"));
}

TEST(RoundPlan, UnknownAllocatorIsAnError) {
  AllocatorCache cache({});
  sched::Snapshot s = OneNode(2);
  Queue(s, 1, 1, "nosuch");
  auto plan = RoundPlan(s, cache, "compact", false);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message().find("nosuch"), std::string::npos);
}

// A session displaced by session 99, which has ended (its end plan failed).
void LeftBy99(sched::Snapshot& s, sched::SessionId id, sched::SessionState state,
              std::vector<int> original, std::vector<int> now) {
  sched::Session o;
  o.request.id = id;
  o.request.ranks = static_cast<int>(original.size());
  o.state = state;
  o.displaced_by = 99;
  for (size_t i = 0; i < original.size(); ++i)
    o.original.ranks.push_back({static_cast<int>(i), 0, {original[i]}});
  for (size_t i = 0; i < now.size(); ++i) {
    o.placement.ranks.push_back({static_cast<int>(i), 0, {now[i]}});
    if (state != sched::SessionState::kSuspended) ++s.nodes[0].uses[now[i]];
  }
  s.sessions.push_back(o);
}

template <class A>
std::vector<sched::SessionId> Sessions(const sched::Plan& plan) {
  std::vector<sched::SessionId> ids;
  for (const sched::Action& a : plan.actions)
    if (const auto* x = std::get_if<A>(&a)) ids.push_back(x->session);
  return ids;
}

TEST(RoundPlan, ResumesASessionWhoseDisplacerEndedEvenWithNothingQueued) {
  // The end plan of session 99 failed (a node did not answer): the round retries it.
  for (const char* name : {"compact", "auction"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    LeftBy99(s, 1, sched::SessionState::kSuspended, {0, 1}, {0, 1});
    auto plan = RoundPlan(s, cache, name, false);
    ASSERT_TRUE(plan) << plan.error().message();
    EXPECT_EQ(Sessions<sched::ResumeAction>(*plan), std::vector<sched::SessionId>{1}) << name;
  }
}

TEST(RoundPlan, RestoresASidesteppedSessionWhoseDisplacerEnded) {
  AllocatorCache cache({});
  sched::Snapshot s = OneNode(4);
  LeftBy99(s, 1, sched::SessionState::kSidestepped, {0, 1}, {0, 0});
  auto plan = RoundPlan(s, cache, "compact", false);
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_EQ(Sessions<sched::RepinAction>(*plan), std::vector<sched::SessionId>{1});
}

TEST(RoundPlan, WindowAllocatorsStartQueuedSessionsBesideTheResumedOne) {
  for (const char* name : {"compact", "auction", "ipwindow"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    LeftBy99(s, 1, sched::SessionState::kSuspended, {0, 1}, {0, 1});
    Queue(s, 2, 2, name);
    auto plan = RoundPlan(s, cache, "compact", false);
    ASSERT_TRUE(plan) << plan.error().message();
    EXPECT_EQ(Sessions<sched::ResumeAction>(*plan), std::vector<sched::SessionId>{1}) << name;
    ASSERT_EQ(Sessions<sched::StartRanksAction>(*plan), std::vector<sched::SessionId>{2}) << name;
    for (const sched::Action& a : plan->actions) {
      const auto* start = std::get_if<sched::StartRanksAction>(&a);
      if (start == nullptr) continue;
      for (const sched::RankSlots& r : start->placement.ranks)
        for (int pu : r.pus) EXPECT_GE(pu, 2) << name << ": placed on the resumed session";
    }
  }
}

// Session 1 (slots 0-2) is suspended by session 3 (slot 3), which still runs: a round
// must leave session 1's slots to it, whatever the allocator (auction and ipwindow
// placed the queued session 2 on them).
TEST(RoundPlan, EveryAllocatorLeavesASuspendedSessionsSlotsAlone) {
  for (const char* name : {"compact", "spread", "netload", "auction", "ipwindow"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    sched::Session displacer;
    displacer.request.id = 3;
    displacer.request.ranks = 1;
    displacer.state = sched::SessionState::kRunning;
    displacer.placement.ranks.push_back({0, 0, {3}});
    s.nodes[0].uses[3] = 1;
    s.sessions.push_back(displacer);
    sched::Session suspended;
    suspended.request.id = 1;
    suspended.request.ranks = 3;
    suspended.state = sched::SessionState::kSuspended;
    suspended.displaced_by = 3;
    for (int r = 0; r < 3; ++r) suspended.placement.ranks.push_back({r, 0, {r}});
    s.sessions.push_back(suspended);
    Queue(s, 2, 3, name);
    auto plan = RoundPlan(s, cache, "compact", false);
    ASSERT_TRUE(plan) << name << ": " << plan.error().message();
    EXPECT_TRUE(Sessions<sched::StartRanksAction>(*plan).empty()) << name;
  }
}

TEST(QueuePlanWithoutUndo, StartsWhatFitsBesideASessionThatStaysSuspended) {
  for (const char* name : {"compact", "auction"}) {
    AllocatorCache cache({});
    sched::Snapshot s = OneNode(4);
    LeftBy99(s, 1, sched::SessionState::kSuspended, {0, 1}, {0, 1});
    Queue(s, 2, 2, name);
    auto plan = QueuePlanWithoutUndo(s, cache, "compact", false);
    ASSERT_TRUE(plan) << plan.error().message();
    EXPECT_TRUE(Sessions<sched::ResumeAction>(*plan).empty()) << "no node operations";
    ASSERT_EQ(Sessions<sched::StartRanksAction>(*plan), std::vector<sched::SessionId>{2}) << name;
    for (const sched::RankSlots& r :
         std::get<sched::StartRanksAction>(plan->actions[0]).placement.ranks)
      for (int pu : r.pus) EXPECT_GE(pu, 2) << name << ": took the suspended session's slot";
  }
}

TEST(QueuePlanWithoutUndo, KeepsTheSlotsASidesteppedSessionReturnsTo) {
  AllocatorCache cache({});
  sched::Snapshot s = OneNode(4);
  // Pinned on slot 0 only now, back on 0 and 1 when restored: slot 1 looks free but is not.
  LeftBy99(s, 1, sched::SessionState::kSidestepped, {0, 1}, {0, 0});
  Queue(s, 2, 3, "compact");
  auto plan = QueuePlanWithoutUndo(s, cache, "compact", false);
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_TRUE(plan->actions.empty()) << "3 ranks fit only on the restoration's slot";
  s.sessions.pop_back();
  Queue(s, 3, 2, "compact");
  plan = QueuePlanWithoutUndo(s, cache, "compact", false);
  ASSERT_TRUE(plan) << plan.error().message();
  ASSERT_EQ(Sessions<sched::StartRanksAction>(*plan), std::vector<sched::SessionId>{3});
  for (const sched::RankSlots& r :
       std::get<sched::StartRanksAction>(plan->actions[0]).placement.ranks)
    for (int pu : r.pus) EXPECT_GE(pu, 2);
}

TEST(QueuePlanWithoutUndo, NothingQueuedNothingToDo) {
  AllocatorCache cache({});
  sched::Snapshot s = OneNode(4);
  LeftBy99(s, 1, sched::SessionState::kSuspended, {0, 1}, {0, 1});
  auto plan = QueuePlanWithoutUndo(s, cache, "compact", false);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->actions.empty());
}

}  // namespace
}  // namespace psched::sched::leader
