#include "scheduler/model.hpp"

#include <gtest/gtest.h>

#include "scheduler/placement.hpp"

namespace psched::sched {
namespace {

Snapshot TwoNodes() {
  Snapshot s;
  for (int i = 0; i < 2; ++i) s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 4, 1)));
  return s;
}

SessionRequest Req(SessionId id, int ranks) {
  SessionRequest r;
  r.id = id;
  r.ranks = ranks;
  return r;
}

TEST(Topology, UniformIsInLogicalOrder) {
  NodeTopology t = NodeTopology::Uniform(2, 3, 2);
  ASSERT_EQ(t.NumPus(), 12);
  EXPECT_EQ(t.NumCores(), 6);
  EXPECT_EQ(t.NumPackages(), 2);
  EXPECT_EQ(t.pus[5].core, 2);
  EXPECT_EQ(t.pus[6].package, 1);
}

TEST(FindNode, ByIndexBySubspanAndByScan) {
  std::vector<Node> nodes;
  nodes.reserve(5);
  for (int i = 0; i < 5; ++i) nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 1, 1)));
  EXPECT_EQ(FindNode(nodes, 3), &nodes[3]);
  EXPECT_EQ(FindNode(nodes, 5), nullptr);
  EXPECT_EQ(FindNode(nodes, -1), nullptr);
  std::span<const Node> tail = std::span<const Node>(nodes).subspan(2);
  EXPECT_TRUE(IdsFollowIndexes(tail));
  EXPECT_EQ(FindNode(tail, 3), &nodes[3]);
  EXPECT_EQ(FindNode(tail, 1), nullptr);
  std::swap(nodes[1], nodes[4]);
  EXPECT_FALSE(IdsFollowIndexes(nodes));
  EXPECT_EQ(FindNode(nodes, 4)->id, 4);
  EXPECT_EQ(FindNode(nodes, 1), &nodes[4]);
}

TEST(ApplyPlan, SpawnCountsUsesAndEndReleasesThem) {
  Snapshot s = TwoNodes();
  SessionRequest r = Req(1, 6);
  Plan plan{{StartRanksAction{1, *PlaceRanks(s.nodes, r), false}}};
  ApplyPlan(s, plan, &r);
  EXPECT_EQ(s.FreePus(), 2);
  ASSERT_NE(s.Find(1), nullptr);
  EXPECT_EQ(s.Find(1)->state, SessionState::kRunning);
  RemoveSession(s, 1);
  EXPECT_EQ(s.FreePus(), 8);
  EXPECT_EQ(s.Find(1), nullptr);
}

// A placement naming a PU the node does not have (a hand-written snapshot for psched-place,
// say) is ignored for the counts, and never read out of bounds (ASan would say).
TEST(ApplyPlan, SpawnIgnoresPusTheNodeDoesNotHave) {
  Snapshot s = TwoNodes();
  SessionRequest r = Req(1, 2);
  Placement p;
  p.ranks = {RankSlots{0, 0, {1}}, RankSlots{1, 0, {4, -1}}};
  ApplyPlan(s, Plan{{StartRanksAction{1, p, false}}}, &r);
  EXPECT_EQ(s.FreePus(), 7);
  EXPECT_EQ(s.Find(1)->state, SessionState::kRunning);
}

TEST(ApplyPlan, SuspendFreesSlotsAndResumeTakesThemBack) {
  Snapshot s = TwoNodes();
  SessionRequest r = Req(1, 8);
  ApplyPlan(s, Plan{{StartRanksAction{1, *PlaceRanks(s.nodes, r), false}}}, &r);
  ApplyPlan(s, Plan{{SuspendAction{1, 2}}});
  EXPECT_EQ(s.FreePus(), 8);
  EXPECT_EQ(s.Find(1)->state, SessionState::kSuspended);
  EXPECT_EQ(s.Find(1)->displaced_by, 2);
  ApplyPlan(s, Plan{{ResumeAction{1}}});
  EXPECT_EQ(s.FreePus(), 0);
  EXPECT_EQ(s.Find(1)->state, SessionState::kRunning);
}

TEST(ApplyPlan, SpawnOnUsedSlotsIsOverbooked) {
  Snapshot s = TwoNodes();
  SessionRequest a = Req(1, 8), b = Req(2, 2);
  ApplyPlan(s, Plan{{StartRanksAction{1, *PlaceRanks(s.nodes, a), false}}}, &a);
  auto over = PlaceOnLeastUsed(s.nodes, b, Layout::kCompact);
  ASSERT_TRUE(over);
  ApplyPlan(s, Plan{{StartRanksAction{2, over->placement, false}}}, &b);
  EXPECT_EQ(s.Find(2)->state, SessionState::kOverbooked);
  EXPECT_EQ(s.nodes[0].uses[0], 2);
  EXPECT_EQ(s.nodes[0].uses[2], 1);
}

TEST(ApplyPlan, SpawnKeepsExclusiveMark) {
  Snapshot s = TwoNodes();
  SessionRequest r = Req(1, 2);
  StartRanksAction spawn{1, *PlaceRanks(s.nodes, r), false};
  spawn.exclusive = true;
  ApplyPlan(s, Plan{{spawn}}, &r);
  EXPECT_TRUE(s.Find(1)->exclusive);
}

TEST(ApplyPlan, RepinMovesUsesAndRestoreEndsSidestep) {
  Snapshot s = TwoNodes();
  SessionRequest a = Req(1, 2);
  Placement start = *PlaceRanks(s.nodes, a);
  ApplyPlan(s, Plan{{StartRanksAction{1, start, false}}}, &a);
  Placement moved = start;
  moved.ranks[0].pus = {3};
  moved.ranks[1].pus = {3};
  ApplyPlan(s, Plan{{RepinAction{1, moved, 9}}});
  EXPECT_EQ(s.nodes[0].uses, (std::vector<int>{0, 0, 0, 2}));
  EXPECT_EQ(s.Find(1)->state, SessionState::kSidestepped);
  ApplyPlan(s, Plan{{RepinAction{1, start, kNoSession}}});
  EXPECT_EQ(s.nodes[0].uses, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(s.Find(1)->state, SessionState::kRunning);
}

}  // namespace
}  // namespace psched::sched
