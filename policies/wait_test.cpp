#include "policies/wait.hpp"

#include <gtest/gtest.h>

#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using sched::SessionState;
using namespace testing;

class WaitTest : public ::testing::Test {
 protected:
  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  WaitPolicy policy_{PolicyOptions{}};
  sched::Snapshot s_ = PaperAllocation();
};

TEST_F(WaitTest, PaperAnalysisWaitsForTheSimulationThenRunsOnOneNode) {
  Arrive(s_, policy_, Request(1, 160), *compact_);
  ASSERT_EQ(s_.Find(1)->state, SessionState::kRunning);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));

  sched::Plan plan = Arrive(s_, policy_, Request(2, 32), *compact_);
  ASSERT_EQ(plan.actions.size(), 1u);
  const auto& enqueue = std::get<sched::EnqueueAction>(plan.actions[0]);
  EXPECT_EQ(enqueue.reason, "waits for 32 slots: 0 free, 0 sessions ahead, policy wait");
  EXPECT_EQ(s_.Find(2)->state, SessionState::kQueued);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));  // never overbooked

  plan = End(s_, policy_, 1, *compact_);
  ASSERT_EQ(CountActions(plan, 0), 1);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(2)->placement.Nodes(), std::vector<sched::NodeId>{0});
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 0));
  EXPECT_EQ(CheckUses(s_), "");

  End(s_, policy_, 2, *compact_);
  EXPECT_TRUE(s_.sessions.empty());
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(WaitTest, SpreadAnalysisStartsWithEightRanksPerNode) {
  Arrive(s_, policy_, Request(1, 160), *compact_);
  Arrive(s_, policy_, Request(2, 32, 1, /*spread=*/true), *compact_);
  End(s_, policy_, 1, *compact_);
  ASSERT_EQ(s_.Find(2)->state, SessionState::kRunning);
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(UsesAre(s_, n, 0, 8, 1)) << n;
    EXPECT_TRUE(UsesAre(s_, n, 8, 40, 0)) << n;
  }
}

TEST_F(WaitTest, ThreadsOccupyThreadsSlotsPerRank) {
  Arrive(s_, policy_, Request(1, 32, 5), *compact_);
  EXPECT_EQ(s_.FreePus(), 0);
  for (const sched::RankSlots& r : s_.Find(1)->placement.ranks) EXPECT_EQ(r.pus.size(), 5u);
  sched::Plan plan = Arrive(s_, policy_, Request(2, 8, 4), *compact_);
  EXPECT_EQ(std::get<sched::EnqueueAction>(plan.actions[0]).reason,
            "waits for 32 slots: 0 free, 0 sessions ahead, policy wait");
  End(s_, policy_, 1, *compact_);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 0));
  End(s_, policy_, 2, *compact_);
  EXPECT_EQ(s_.FreePus(), 160);
}

TEST_F(WaitTest, ReasonCountsFreeSlotsAndSessionsAhead) {
  Arrive(s_, policy_, Request(1, 152), *compact_);
  Arrive(s_, policy_, Request(2, 32), *compact_);
  sched::Plan plan = Arrive(s_, policy_, Request(3, 32), *compact_);
  EXPECT_EQ(std::get<sched::EnqueueAction>(plan.actions[0]).reason,
            "waits for 32 slots: 8 free, 1 session ahead, policy wait");
}

TEST_F(WaitTest, SmallLaterSessionDoesNotOvertakeWithoutBackfill) {
  Arrive(s_, policy_, Request(1, 150), *compact_);
  Arrive(s_, policy_, Request(2, 32), *compact_);                    // waits: 10 free
  sched::Plan plan = Arrive(s_, policy_, Request(3, 4), *compact_);  // fits, but 2 is ahead
  EXPECT_EQ(CountActions(plan, 4), 1);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kQueued);
}

TEST_F(WaitTest, QueueStartsInPriorityOrderAndStopsAtTheFirstThatDoesNotFit) {
  Arrive(s_, policy_, Request(1, 160), *compact_);
  sched::SessionRequest low = Request(2, 100), high = Request(3, 100), tiny = Request(4, 10);
  high.priority = 5;
  Arrive(s_, policy_, low, *compact_);
  Arrive(s_, policy_, high, *compact_);
  Arrive(s_, policy_, tiny, *compact_);
  End(s_, policy_, 1, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);  // higher priority first
  EXPECT_EQ(s_.Find(2)->state, SessionState::kQueued);   // 60 free: does not fit
  EXPECT_EQ(s_.Find(4)->state, SessionState::kQueued);   // fits, but no overtaking
  End(s_, policy_, 3, *compact_);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(4)->state, SessionState::kRunning);
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(WaitTest, TooBigIsRejectedWithTheAllocationSize) {
  sched::Plan plan = Arrive(s_, policy_, Request(1, 161), *compact_);
  ASSERT_EQ(CountActions(plan, 5), 1);
  EXPECT_NE(std::get<sched::RejectAction>(plan.actions[0]).reason.find("161 slots"),
            std::string::npos);
  EXPECT_NE(std::get<sched::RejectAction>(plan.actions[0]).reason.find("160 slots on 4 nodes"),
            std::string::npos);
  EXPECT_TRUE(s_.sessions.empty());
}

// Backfill: 1 (150 slots, ends at t=100) runs; 2 (32 slots) waits for it.
class BackfillTest : public WaitTest {
 protected:
  void SetUp() override {
    sched::SessionRequest sim = Request(1, 150);
    sim.estimate_s = 100;
    Arrive(s_, backfill_, sim, *compact_);
    Arrive(s_, backfill_, Request(2, 32), *compact_);
    s_.now = 10;
  }
  WaitPolicy backfill_{PolicyOptions{OverbookMode::kPinned, /*backfill=*/true, 0}};
};

TEST_F(BackfillTest, ShortSessionThatEndsBeforeTheHeadsReservationStarts) {
  sched::SessionRequest short_one = Request(3, 8);
  short_one.estimate_s = 50;  // ends at 60 < 100
  Arrive(s_, backfill_, short_one, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kQueued);
}

TEST_F(BackfillTest, LongSessionThatLeavesRoomForTheHeadStarts) {
  sched::SessionRequest long_one = Request(3, 10);
  long_one.estimate_s = 500;  // still runs at t=100, but the head needs only 32 of 150
  Arrive(s_, backfill_, long_one, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kQueued);
}

// A session without an estimate never ends "in time", but it cannot delay the head from
// slots the head does not need (the shared EASY rule, sched::ScheduleQueue). This policy
// used to refuse it outright.
TEST_F(BackfillTest, WithoutAnEstimateASessionMayUseSlotsTheHeadDoesNotNeed) {
  Arrive(s_, backfill_, Request(3, 8), *compact_);  // no estimate
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);
  EXPECT_TRUE(UsesAre(s_, 3, 30, 38, 1));
}

TEST_F(WaitTest, WithoutAnEstimateASessionWaitsWhenItNeedsTheHeadsSlots) {
  WaitPolicy backfill{PolicyOptions{OverbookMode::kPinned, true, 0}};
  sched::SessionRequest sim = Request(1, 150);
  sim.estimate_s = 100;
  Arrive(s_, backfill, sim, *compact_);              // 10 free: node 3, slots 30-39
  Arrive(s_, backfill, Request(2, 155), *compact_);  // reserved at t=100 up to node 3 slot 34
  Arrive(s_, backfill, Request(3, 8), *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kQueued);
  Arrive(s_, backfill, Request(4, 5), *compact_);
  EXPECT_EQ(s_.Find(4)->state, SessionState::kRunning);
  EXPECT_TRUE(UsesAre(s_, 3, 35, 40, 1));
}

// A running session without an estimate used to switch backfill off. Now the head's
// reservation simply has no known time: later sessions may only use slots it does not
// need, however short they are.
TEST_F(WaitTest, ARunningSessionWithoutEstimateLeavesOnlyUnreservedSlots) {
  WaitPolicy backfill{PolicyOptions{OverbookMode::kPinned, true, 0}};
  Arrive(s_, backfill, Request(1, 150), *compact_);  // no estimate; 10 free
  Arrive(s_, backfill, Request(2, 155), *compact_);  // needs node 3 slots up to 34
  sched::SessionRequest quick = Request(3, 8);
  quick.estimate_s = 1;
  Arrive(s_, backfill, quick, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kQueued);
  sched::SessionRequest small = Request(4, 5);
  small.estimate_s = 1;
  Arrive(s_, backfill, small, *compact_);
  EXPECT_EQ(s_.Find(4)->state, SessionState::kRunning);
  EXPECT_TRUE(UsesAre(s_, 3, 35, 40, 1));
}

TEST_F(WaitTest, BackfillDoesNotStartASessionThatDelaysTheHead) {
  WaitPolicy backfill{PolicyOptions{OverbookMode::kPinned, true, 0}};
  sched::SessionRequest a = Request(1, 100), b = Request(2, 40);
  a.estimate_s = 100;
  b.estimate_s = 1000;
  Arrive(s_, backfill, a, *compact_);
  Arrive(s_, backfill, b, *compact_);            // 20 free
  sched::SessionRequest head = Request(3, 120);  // fits once a ends (100 + 20 free)
  Arrive(s_, backfill, head, *compact_);
  sched::SessionRequest late = Request(4, 10);
  late.estimate_s = 500;  // still running at t=100: leaves 110 < 120
  Arrive(s_, backfill, late, *compact_);
  EXPECT_EQ(s_.Find(4)->state, SessionState::kQueued);
  sched::SessionRequest quick = Request(5, 10);
  quick.estimate_s = 50;  // done by t=100
  Arrive(s_, backfill, quick, *compact_);
  EXPECT_EQ(s_.Find(5)->state, SessionState::kRunning);
  // When a ends, the head starts before anything else.
  s_.now = 100;
  End(s_, backfill, 5, *compact_);
  End(s_, backfill, 1, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);
  EXPECT_EQ(CheckUses(s_), "");
}

TEST_F(WaitTest, BackfillAtAnEndStartsOnlySessionsThatKeepTheHeadsReservation) {
  WaitPolicy backfill{PolicyOptions{OverbookMode::kPinned, true, 0}};
  auto estimated = [](sched::SessionId id, int ranks, double estimate) {
    sched::SessionRequest r = Request(id, ranks);
    r.estimate_s = estimate;
    return r;
  };
  Arrive(s_, backfill, estimated(1, 100, 100), *compact_);  // ends at t=100
  Arrive(s_, backfill, estimated(2, 60, 1000), *compact_);  // full now
  Arrive(s_, backfill, estimated(3, 120, 50), *compact_);   // head: fits at t=100
  Arrive(s_, backfill, estimated(4, 10, 20), *compact_);    // short
  Arrive(s_, backfill, estimated(5, 50, 5000), *compact_);  // long and big
  Arrive(s_, backfill, estimated(6, 5, 5000), *compact_);   // long and small
  for (sched::SessionId id : {3, 4, 5, 6}) EXPECT_EQ(s_.Find(id)->state, SessionState::kQueued);

  s_.now = 10;
  sched::Plan plan = End(s_, backfill, 2, *compact_);  // 60 free; the head needs 120
  EXPECT_EQ(s_.Find(3)->state, SessionState::kQueued);
  EXPECT_EQ(s_.Find(4)->state, SessionState::kRunning);  // done by t=30 < 100
  EXPECT_EQ(s_.Find(5)->state, SessionState::kQueued);   // would leave 110 < 120 at t=100
  EXPECT_EQ(s_.Find(6)->state, SessionState::kRunning);  // leaves 155 at t=100
  EXPECT_EQ(CountActions(plan, 0), 2);

  s_.now = 100;
  End(s_, backfill, 1, *compact_);
  EXPECT_EQ(s_.Find(3)->state, SessionState::kRunning);  // the head was not delayed
  EXPECT_EQ(s_.Find(5)->state, SessionState::kQueued);
  EXPECT_EQ(CheckUses(s_), "");
}

}  // namespace
}  // namespace psched::policies
