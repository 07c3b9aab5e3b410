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
    const auto& spawn = std::get<sched::SpawnAction>(plan->actions[0]);
    EXPECT_EQ(spawn.session, 2) << name;
    for (const sched::RankSlots& r : spawn.placement.ranks)
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

}  // namespace
}  // namespace psched::daemon
