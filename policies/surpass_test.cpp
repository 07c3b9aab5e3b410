#include "policies/surpass.hpp"

#include <gtest/gtest.h>

#include "policies/policy_registry.hpp"
#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using sched::SessionState;
using namespace testing;

class SurpassTest : public ::testing::Test {
 protected:
  // Arrivals one second apart, so "most recent" is well defined.
  sched::Plan Start(const sched::SessionRequest& request) {
    s_.now += 1;
    return Arrive(s_, policy_, request, *compact_);
  }
  void ExpectAllFree() {
    EXPECT_TRUE(s_.sessions.empty());
    EXPECT_EQ(s_.FreePus(), 160);
    EXPECT_EQ(CheckUses(s_), "");
  }

  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  SurpassPolicy policy_{PolicyOptions{}};
  sched::Snapshot s_ = PaperAllocation();
};

TEST_F(SurpassTest, PaperAnalysisSuspendsTheSimulationUntilItEnds) {
  Start(Request(1, 160));
  sched::Plan plan = Start(Request(2, 32));
  ASSERT_EQ(plan.actions.size(), 2u);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[0]).session, 1);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[0]).by, 2);
  EXPECT_EQ(std::get<sched::StartRanksAction>(plan.actions[1]).session, 2);

  EXPECT_EQ(s_.Find(1)->state, SessionState::kSuspended);
  EXPECT_EQ(s_.Find(1)->displaced_by, 2);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(2)->placement.Nodes(), std::vector<sched::NodeId>{0});
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 0));
  for (int n = 1; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 0));

  plan = End(s_, policy_, 2, *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  EXPECT_EQ(std::get<sched::ResumeAction>(plan.actions[0]).session, 1);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(1)->displaced_by, sched::kNoSession);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  ExpectAllFree();
}

TEST_F(SurpassTest, SpreadAnalysisTakesEightSlotsPerNode) {
  Start(Request(1, 160));
  Start(Request(2, 32, 1, true));
  EXPECT_EQ(s_.Find(1)->state, SessionState::kSuspended);
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(UsesAre(s_, n, 0, 8, 1));
    EXPECT_TRUE(UsesAre(s_, n, 8, 40, 0));
  }
  End(s_, policy_, 2, *compact_);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  ExpectAllFree();
}

TEST_F(SurpassTest, ThreadsVariant) {
  Start(Request(1, 32, 5));
  Start(Request(2, 8, 4));
  EXPECT_EQ(s_.Find(1)->state, SessionState::kSuspended);
  for (const sched::RankSlots& r : s_.Find(2)->placement.ranks) EXPECT_EQ(r.pus.size(), 4u);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 0));
  End(s_, policy_, 2, *compact_);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  ExpectAllFree();
}

TEST_F(SurpassTest, NestedSurpassResumesOneLevelAtATime) {
  Start(Request(1, 160));
  Start(Request(2, 32));
  // 128 slots are free but reserved for 1: 3 surpasses 2, the most recent.
  sched::Plan plan = Start(Request(3, 32));
  ASSERT_EQ(CountActions(plan, 1), 1);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[0]).session, 2);
  EXPECT_EQ(s_.Find(1)->displaced_by, 2);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kSuspended);
  EXPECT_EQ(s_.Find(2)->displaced_by, 3);
  EXPECT_EQ(s_.Find(3)->placement, s_.Find(2)->placement);

  End(s_, policy_, 3, *compact_);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kSuspended);
  End(s_, policy_, 2, *compact_);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  End(s_, policy_, 1, *compact_);
  ExpectAllFree();
}

TEST_F(SurpassTest, SuspendsMostRecentFirstAndResumesInReverseOrder) {
  Start(Request(1, 100));
  Start(Request(2, 60));
  sched::Plan plan = Start(Request(3, 150));
  ASSERT_EQ(CountActions(plan, 1), 2);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[0]).session, 2);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[1]).session, 1);
  plan = End(s_, policy_, 3, *compact_);
  ASSERT_EQ(CountActions(plan, 2), 2);
  EXPECT_EQ(std::get<sched::ResumeAction>(plan.actions[0]).session, 1);
  EXPECT_EQ(std::get<sched::ResumeAction>(plan.actions[1]).session, 2);
  EXPECT_EQ(s_.FreePus(), 0);
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(SurpassTest, SparesARecentSessionThatNeedNotStop) {
  Start(Request(1, 120));
  Start(Request(2, 40));
  sched::Plan plan = Start(Request(3, 60));  // suspending 1 alone is enough
  ASSERT_EQ(CountActions(plan, 1), 1);
  EXPECT_EQ(std::get<sched::SuspendAction>(plan.actions[0]).session, 1);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);
}

TEST_F(SurpassTest, FitsOnFreeSlotsWithoutSuspendingAnyone) {
  Start(Request(1, 100));
  sched::Plan plan = Start(Request(2, 60));
  ASSERT_EQ(plan.actions.size(), 1u);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
}

TEST_F(SurpassTest, SessionKilledWhileSuspendedLetsItsVictimResumeWhenSlotsFree) {
  Start(Request(1, 160));
  Start(Request(2, 32));
  Start(Request(3, 32));
  // 2 is killed while suspended: 1's displacer is gone but 3 holds part of 1's slots.
  sched::Plan plan = End(s_, policy_, 2, *compact_);
  EXPECT_TRUE(plan.empty());
  EXPECT_EQ(s_.Find(1)->state, SessionState::kSuspended);
  End(s_, policy_, 3, *compact_);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  End(s_, policy_, 1, *compact_);
  ExpectAllFree();
}

TEST_F(SurpassTest, TooBigIsRejectedAndNobodyIsSuspended) {
  Start(Request(1, 160));
  sched::Plan plan = Start(Request(2, 200));
  ASSERT_EQ(plan.actions.size(), 1u);
  EXPECT_NE(std::get<sched::RejectAction>(plan.actions[0]).reason.find("200 slots"),
            std::string::npos);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
}

}  // namespace
}  // namespace psched::policies

namespace psched::policies {
namespace {

using namespace testing;

// A suspended session's GPUs are reserved like its slots: a session needing a GPU does
// not take it meanwhile (it did, and the resume then held 2 of the node's 1 GPU).
TEST(SurpassGpus, SuspendedSessionsGpusWaitForItsResume) {
  sched::Snapshot s;
  s.nodes.push_back(sched::Node::Make(0, "n0", sched::NodeTopology::Uniform(1, 8, 1, 1)));
  auto wait = *MakePolicy("wait");
  auto surpass = *MakePolicy("surpass");
  auto compact = *sched::MakeAllocator("compact");
  Arrive(s, *wait, Request(1, 5), *compact);
  sched::SessionRequest gpu = Request(2, 2);
  gpu.gpus_per_node = 1;
  Arrive(s, *wait, gpu, *compact);
  s.now += 1;
  Arrive(s, *surpass, Request(3, 2), *compact);
  ASSERT_EQ(s.Find(2)->state, sched::SessionState::kSuspended);
  sched::SessionRequest later = Request(4, 1);
  later.gpus_per_node = 1;
  Arrive(s, *wait, later, *compact);
  EXPECT_EQ(s.Find(4)->state, sched::SessionState::kQueued);
  End(s, *wait, 3, *compact);
  EXPECT_EQ(s.Find(2)->state, sched::SessionState::kRunning);
  EXPECT_GE(s.nodes[0].FreeGpus(), 0);
  EXPECT_EQ(CheckUses(s), "");
}

}  // namespace
}  // namespace psched::policies
