#include "policies/overbook.hpp"

#include <gtest/gtest.h>

#include <set>

#include "policies/policy_registry.hpp"
#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using sched::SessionState;
using namespace testing;

class OverbookTest : public ::testing::Test {
 protected:
  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  OverbookPolicy pinned_{PolicyOptions{OverbookMode::kPinned, false, 0}};
  OverbookPolicy float_{PolicyOptions{OverbookMode::kFloat, false, 0}};
  sched::Snapshot s_ = PaperAllocation();
};

TEST_F(OverbookTest, PaperAnalysisSharesTheFirstNode) {
  Arrive(s_, pinned_, Request(1, 160), *compact_);
  sched::Plan plan = Arrive(s_, pinned_, Request(2, 32), *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  const auto& start = std::get<sched::StartRanksAction>(plan.actions[0]);
  EXPECT_TRUE(start.overbooked);  // the daemon sets OMPI_MCA_mpi_yield_when_idle=1
  EXPECT_FALSE(start.floating);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kOverbooked);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 2));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 1));
  for (int n = 1; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));

  plan = End(s_, pinned_, 2, *compact_);
  EXPECT_TRUE(plan.empty());
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, pinned_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(OverbookTest, SpreadOverbooksEveryNodeByEight) {
  Arrive(s_, pinned_, Request(1, 160), *compact_);
  Arrive(s_, pinned_, Request(2, 32, 1, true), *compact_);
  EXPECT_EQ(s_.Find(2)->placement.Nodes(), (std::vector<sched::NodeId>{0, 1, 2, 3}));
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(UsesAre(s_, n, 0, 8, 2)) << n;
    EXPECT_TRUE(UsesAre(s_, n, 8, 40, 1)) << n;
  }
  End(s_, pinned_, 1, *compact_);
  End(s_, pinned_, 2, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(OverbookTest, SpreadAllocatorSpreadsTheOverbookedRanks) {
  auto spread = *sched::MakeAllocator("spread");
  Arrive(s_, pinned_, Request(1, 160), *spread);
  Arrive(s_, pinned_, Request(2, 32), *spread);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 8, 2)) << n;
}

TEST_F(OverbookTest, FloatModeBindsToTheWholeNode) {
  Arrive(s_, float_, Request(1, 160), *compact_);
  sched::Plan plan = Arrive(s_, float_, Request(2, 32), *compact_);
  const auto& start = std::get<sched::StartRanksAction>(plan.actions[0]);
  EXPECT_TRUE(start.floating);
  EXPECT_TRUE(start.overbooked);
  EXPECT_TRUE(s_.Find(2)->floating);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 2));  // counted where it would be pinned
}

TEST_F(OverbookTest, ThreadsVariant) {
  Arrive(s_, pinned_, Request(1, 32, 5), *compact_);
  Arrive(s_, pinned_, Request(2, 8, 4), *compact_);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kOverbooked);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 2));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 1));
  End(s_, pinned_, 2, *compact_);
  End(s_, pinned_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(OverbookTest, FreeSlotsAreNotOverbooked) {
  Arrive(s_, pinned_, Request(1, 100), *compact_);
  sched::Plan plan = Arrive(s_, float_, Request(2, 60), *compact_);
  const auto& start = std::get<sched::StartRanksAction>(plan.actions[0]);
  EXPECT_FALSE(start.overbooked);
  EXPECT_FALSE(start.floating);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
}

TEST_F(OverbookTest, PrefersTheLeastUsedSlots) {
  Arrive(s_, pinned_, Request(1, 160), *compact_);
  Arrive(s_, pinned_, Request(2, 32), *compact_);
  Arrive(s_, pinned_, Request(3, 32), *compact_);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 40, 2));  // 3 took the 8 slots 2 left, then node 1
  EXPECT_TRUE(UsesAre(s_, 1, 0, 24, 2));
  EXPECT_TRUE(UsesAre(s_, 1, 24, 40, 1));
  EXPECT_EQ(CheckUses(s_), "");
}

// A sidestepper holds its slots exclusively until it ends: an overbooked session stacks
// its ranks on the other slots (it took the sidestepper's, the least used ones).
TEST_F(OverbookTest, PinnedRanksStayOffASidesteppersSlots) {
  s_ = PaperAllocation(1);
  auto sidestep = *MakePolicy("sidestep");
  Arrive(s_, *sidestep, Request(1, 40), *compact_);
  Arrive(s_, *sidestep, Request(2, 10), *compact_);
  ASSERT_TRUE(s_.Find(2)->exclusive);
  std::set<int> exclusive;
  for (const sched::RankSlots& r : s_.Find(2)->placement.ranks)
    exclusive.insert(r.pus.begin(), r.pus.end());
  Arrive(s_, pinned_, Request(3, 10), *compact_);
  ASSERT_EQ(s_.Find(3)->state, SessionState::kOverbooked);
  for (const sched::RankSlots& r : s_.Find(3)->placement.ranks)
    for (int pu : r.pus) EXPECT_FALSE(exclusive.contains(pu)) << "rank " << r.rank << " on " << pu;
  EXPECT_EQ(CheckUses(s_), "");
  // A node held entirely by sidesteppers takes no pinned overbooked rank.
  s_ = PaperAllocation(1);
  Arrive(s_, *sidestep, Request(4, 40), *compact_);
  s_.Find(4)->exclusive = true;
  sched::Plan plan = Arrive(s_, pinned_, Request(5, 1), *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  const auto* reject = std::get_if<sched::RejectAction>(&plan.actions[0]);
  ASSERT_NE(reject, nullptr);
  EXPECT_NE(reject->reason.find("sidestepping"), std::string::npos) << reject->reason;
}

// Nodes of 2 PUs (1 package x 2 cores): the laptop or small allocation where users reach
// for mpirun --oversubscribe.
sched::Snapshot SmallNodes(int nodes) {
  sched::Snapshot s;
  for (int i = 0; i < nodes; ++i) {
    s.nodes.push_back(
        sched::Node::Make(i, "node" + std::to_string(i), sched::NodeTopology::Uniform(1, 2, 1)));
  }
  return s;
}

std::vector<int> PusOfRanks(const sched::Session& session, sched::NodeId node) {
  std::vector<int> pus;
  for (const sched::RankSlots& r : session.placement.ranks)
    if (r.node == node) pus.insert(pus.end(), r.pus.begin(), r.pus.end());
  return pus;
}

// `psched-exec -n 5 --policy overbook` on 2 slots was refused ("the allocation has 2
// slots in all"); mpirun --oversubscribe runs it, its ranks round-robin over the slots.
TEST_F(OverbookTest, ASessionWiderThanTheAllocationSharesEverySlotRoundRobin) {
  s_ = SmallNodes(1);
  sched::Plan plan = Arrive(s_, pinned_, Request(1, 5), *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  const auto* start = std::get_if<sched::StartRanksAction>(&plan.actions[0]);
  ASSERT_NE(start, nullptr) << "refused";
  EXPECT_TRUE(start->overbooked);
  EXPECT_FALSE(start->floating);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kOverbooked);
  EXPECT_EQ(PusOfRanks(*s_.Find(1), 0), (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(s_.nodes[0].uses, (std::vector<int>{3, 2}));
  EXPECT_EQ(CheckUses(s_), "");
  End(s_, pinned_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 2);
}

// 2 x slots + 1 ranks over two nodes: evenly over the nodes (5 and 4), as mpirun
// --oversubscribe spreads what is beyond the slots, ranks in node order.
TEST_F(OverbookTest, BeyondTheAllocationRanksSpreadEvenlyOverTheNodes) {
  s_ = SmallNodes(2);
  Arrive(s_, pinned_, Request(1, 9), *compact_);
  const sched::Session& one = *s_.Find(1);
  ASSERT_EQ(one.state, SessionState::kOverbooked);
  EXPECT_EQ(s_.nodes[0].uses, (std::vector<int>{3, 2}));
  EXPECT_EQ(s_.nodes[1].uses, (std::vector<int>{2, 2}));
  for (int r = 0; r < 9; ++r) {
    EXPECT_EQ(one.placement.ranks[r].rank, r);
    EXPECT_EQ(one.placement.ranks[r].node, r < 5 ? 0 : 1) << r;
  }
  // Beside a running session, the least-used slots take more of the new ranks.
  s_ = SmallNodes(2);
  Arrive(s_, pinned_, Request(1, 2), *compact_);  // node 0's two slots
  Arrive(s_, pinned_, Request(2, 9), *compact_);
  EXPECT_EQ(s_.nodes[0].uses, (std::vector<int>{3, 3}));
  EXPECT_EQ(s_.nodes[1].uses, (std::vector<int>{3, 2}));
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(OverbookTest, BeyondTheAllocationFloatModePinsNothing) {
  s_ = SmallNodes(1);
  sched::Plan plan = Arrive(s_, float_, Request(1, 3), *compact_);
  const auto& start = std::get<sched::StartRanksAction>(plan.actions[0]);
  EXPECT_TRUE(start.floating);
  EXPECT_TRUE(start.overbooked);
}

TEST_F(OverbookTest, BeyondTheAllocationKeepsThreadsAndPerNodeLimits) {
  s_ = SmallNodes(2);
  Arrive(s_, pinned_, Request(1, 3, 2), *compact_);  // 6 slots of 4: 2 + 1 ranks
  EXPECT_EQ(s_.nodes[0].uses, (std::vector<int>{2, 2}));
  EXPECT_EQ(s_.nodes[1].uses, (std::vector<int>{1, 1}));
  s_ = SmallNodes(2);
  sched::SessionRequest one_node = Request(2, 3);
  one_node.nodes = 1;
  Arrive(s_, pinned_, one_node, *compact_);
  EXPECT_EQ(s_.Find(2)->placement.Nodes(), (std::vector<sched::NodeId>{0}));
  sched::SessionRequest capped = Request(3, 5);
  capped.ppn = 2;  // 2 nodes x 2 ranks < 5
  sched::Plan plan = Arrive(s_, pinned_, capped, *compact_);
  const auto* reject = std::get_if<sched::RejectAction>(&plan.actions[0]);
  ASSERT_NE(reject, nullptr);
  EXPECT_NE(reject->reason.find("nor can its ranks share slots as asked"), std::string::npos)
      << reject->reason;
}

// The admin's max_overbook_factor: how many times its slots a session may need; 1
// forbids sessions wider than the allocation.
TEST_F(OverbookTest, TheAdminCapsHowFarBeyondTheAllocation) {
  s_ = SmallNodes(1);
  PolicyOptions options{OverbookMode::kPinned, false, 0};
  options.max_overbook_factor = 2;
  OverbookPolicy capped(options);
  EXPECT_TRUE(std::holds_alternative<sched::StartRanksAction>(
      Arrive(s_, capped, Request(1, 4), *compact_).actions[0]));
  sched::Plan plan = Arrive(s_, capped, Request(2, 5), *compact_);
  const auto* reject = std::get_if<sched::RejectAction>(&plan.actions[0]);
  ASSERT_NE(reject, nullptr);
  EXPECT_EQ(reject->reason,
            "overbook: session needs 5 slots (5 ranks x 1 threads), the allocation has 2, and "
            "the admin allows at most 2 times that (max_overbook_factor in the config)");
  options.max_overbook_factor = 1;
  plan = Arrive(s_, OverbookPolicy(options), Request(3, 3), *compact_);
  EXPECT_TRUE(std::holds_alternative<sched::RejectAction>(plan.actions[0]));
}

// Wait, surpass and sidestep keep refusing what does not fit, and name the way out.
TEST_F(OverbookTest, OtherPoliciesRefuseASessionWiderThanTheAllocationSuggestingOverbook) {
  for (const char* name : {"wait", "surpass", "sidestep"}) {
    s_ = SmallNodes(1);
    sched::Plan plan = Arrive(s_, **MakePolicy(name), Request(1, 4), *compact_);
    const auto* reject = std::get_if<sched::RejectAction>(&plan.actions[0]);
    ASSERT_NE(reject, nullptr) << name;
    EXPECT_NE(reject->reason.find("the allocation has 2 slots on 1 nodes; --policy overbook runs "
                                  "it anyway on shared slots, as mpirun --oversubscribe"),
              std::string::npos)
        << name << ": " << reject->reason;
  }
}

}  // namespace
}  // namespace psched::policies
