#include "daemon/round.hpp"

#include <gtest/gtest.h>

namespace psched::daemon {
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
  for (const sched::Action& a : plan.actions) n += std::holds_alternative<sched::SpawnAction>(a);
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

}  // namespace
}  // namespace psched::daemon
