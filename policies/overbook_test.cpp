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
  const auto& spawn = std::get<sched::SpawnAction>(plan.actions[0]);
  EXPECT_TRUE(spawn.overbooked);  // the daemon sets OMPI_MCA_mpi_yield_when_idle=1
  EXPECT_FALSE(spawn.floating);
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
  const auto& spawn = std::get<sched::SpawnAction>(plan.actions[0]);
  EXPECT_TRUE(spawn.floating);
  EXPECT_TRUE(spawn.overbooked);
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
  const auto& spawn = std::get<sched::SpawnAction>(plan.actions[0]);
  EXPECT_FALSE(spawn.overbooked);
  EXPECT_FALSE(spawn.floating);
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

}  // namespace
}  // namespace psched::policies
