#include "policies/sidestep.hpp"

#include <gtest/gtest.h>

#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using sched::SessionState;
using namespace testing;

class SidestepTest : public ::testing::Test {
 protected:
  sched::Plan Start(const sched::SessionRequest& request) {
    s_.now += 1;
    return Arrive(s_, policy_, request, *compact_);
  }
  void ExpectExclusive(sched::SessionId id) {
    for (const sched::RankSlots& r : s_.Find(id)->placement.ranks)
      for (int pu : r.pus) EXPECT_EQ(s_.nodes[r.node].uses[pu], 1) << r.node << ":" << pu;
  }

  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  SidestepPolicy policy_{PolicyOptions{}};
  sched::Snapshot s_ = PaperAllocation();
};

TEST_F(SidestepTest, PaperAnalysisGetsItsSlotsAloneAndTheSimulationShares) {
  Start(Request(1, 160));
  const sched::Placement original = s_.Find(1)->placement;
  sched::Plan plan = Start(Request(2, 32));
  ASSERT_EQ(plan.actions.size(), 2u);
  const auto& repin = std::get<sched::RepinAction>(plan.actions[0]);
  EXPECT_EQ(repin.session, 1);
  EXPECT_EQ(repin.by, 2);
  EXPECT_TRUE(std::get<sched::StartRanksAction>(plan.actions[1]).exclusive);
  EXPECT_FALSE(std::get<sched::StartRanksAction>(plan.actions[1]).overbooked);

  EXPECT_EQ(s_.Find(1)->state, SessionState::kSidestepped);
  EXPECT_EQ(s_.Find(1)->displaced_by, 2);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  ExpectExclusive(2);
  // Node 0: the analysis alone on 0..31; the simulation's 40 ranks on 32..39.
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 5));
  for (int n = 1; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  // Only the simulation's ranks on node 0's slots 0..31 moved, within node 0.
  const sched::Placement& now = s_.Find(1)->placement;
  for (size_t r = 0; r < now.ranks.size(); ++r) {
    EXPECT_EQ(now.ranks[r].node, original.ranks[r].node);
    if (original.ranks[r].node == 0 && original.ranks[r].pus[0] < 32) {
      EXPECT_GE(now.ranks[r].pus[0], 32);
    } else {
      EXPECT_EQ(now.ranks[r], original.ranks[r]);
    }
  }

  plan = End(s_, policy_, 2, *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  EXPECT_EQ(std::get<sched::RepinAction>(plan.actions[0]).by, sched::kNoSession);
  EXPECT_EQ(s_.Find(1)->placement, original);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(1)->displaced_by, sched::kNoSession);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(SidestepTest, SpreadAnalysisDisplacesEightRanksPerNode) {
  Start(Request(1, 160));
  const sched::Placement original = s_.Find(1)->placement;
  Start(Request(2, 32, 1, true));
  ExpectExclusive(2);
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(UsesAre(s_, n, 0, 8, 1)) << n;   // the analysis
    EXPECT_TRUE(UsesAre(s_, n, 8, 16, 2)) << n;  // 8 moved simulation ranks share here
    EXPECT_TRUE(UsesAre(s_, n, 16, 40, 1)) << n;
  }
  End(s_, policy_, 2, *compact_);
  EXPECT_EQ(s_.Find(1)->placement, original);
  End(s_, policy_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(SidestepTest, ThreadsVariant) {
  Start(Request(1, 32, 5));
  const sched::Placement original = s_.Find(1)->placement;
  Start(Request(2, 8, 4));
  ExpectExclusive(2);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 5));
  for (const sched::RankSlots& r : s_.Find(1)->placement.ranks) EXPECT_EQ(r.pus.size(), 5u);
  End(s_, policy_, 2, *compact_);
  EXPECT_EQ(s_.Find(1)->placement, original);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(SidestepTest, SecondSidestepKeepsOffTheFirstOnesSlots) {
  Start(Request(1, 160));
  const sched::Placement original = s_.Find(1)->placement;
  Start(Request(2, 32));
  Start(Request(3, 32));
  ExpectExclusive(2);
  ExpectExclusive(3);
  EXPECT_EQ(CheckUses(s_), "");
  // 2 ends first: 1 moves back where it can, but stays off 3's slots.
  End(s_, policy_, 2, *compact_);
  ExpectExclusive(3);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kSidestepped);
  EXPECT_EQ(s_.Find(1)->displaced_by, 3);
  End(s_, policy_, 3, *compact_);
  EXPECT_EQ(s_.Find(1)->placement, original);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  End(s_, policy_, 1, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(SidestepTest, AWholeNodeRequestLeavesRoomForTheDisplacedRanks) {
  Start(Request(1, 160));
  Start(Request(2, 40));
  ExpectExclusive(2);
  EXPECT_EQ(CheckUses(s_), "");
  // No node is given away whole: node 0 would leave its 40 simulation ranks nowhere.
  EXPECT_GT(s_.Find(2)->placement.Nodes().size(), 1u);
  End(s_, policy_, 2, *compact_);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
}

TEST_F(SidestepTest, FreeSlotsNeedNoSidestep) {
  Start(Request(1, 100));
  sched::Plan plan = Start(Request(2, 60));
  ASSERT_EQ(plan.actions.size(), 1u);
  EXPECT_FALSE(std::get<sched::StartRanksAction>(plan.actions[0]).exclusive);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
}

TEST_F(SidestepTest, AllocationFullOfSidesteppersRejects) {
  Start(Request(1, 160));
  sched::Plan plan = Start(Request(2, 160));
  ASSERT_EQ(CountActions(plan, 5), 1);
  EXPECT_NE(std::get<sched::RejectAction>(plan.actions[0]).reason.find("sidestep"),
            std::string::npos);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
}

}  // namespace
}  // namespace psched::policies
