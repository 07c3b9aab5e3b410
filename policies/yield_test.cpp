#include "policies/yield.hpp"

#include <gtest/gtest.h>

#include "policies/sidestep.hpp"
#include "policies/surpass.hpp"
#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using sched::SessionState;
using namespace testing;

class YieldTest : public ::testing::Test {
 protected:
  sched::Plan Start(const sched::SessionRequest& request, const Policy& policy) {
    s_.now += 1;
    return Arrive(s_, policy, request, *compact_);
  }
  Yield Connect(sched::SessionId connector, sched::SessionId victim) {
    Yield y = YieldToConnect(s_, connector, victim);
    sched::ApplyPlan(s_, y.plan);
    return y;
  }

  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  SurpassPolicy surpass_{PolicyOptions{}};
  SidestepPolicy sidestep_{PolicyOptions{}};
  sched::Snapshot s_ = PaperAllocation();
};

// The paper's analysis surpassed the simulation, then asks it for data: the simulation
// moves (stopped) off the analysis' 32 slots onto node 0's other 8, resumes there, and
// goes back to its own slots when the analysis ends.
TEST_F(YieldTest, SurpassedSimulationResumesSidesteppedWhenTheAnalysisConnects) {
  Start(Request(1, 160), surpass_);
  const sched::Placement original = s_.Find(1)->placement;
  Start(Request(2, 32), surpass_);
  ASSERT_EQ(s_.Find(1)->state, SessionState::kSuspended);

  Yield y = Connect(2, 1);
  ASSERT_EQ(y.plan.actions.size(), 2u);
  const auto& repin = std::get<sched::RepinAction>(y.plan.actions[0]);
  EXPECT_EQ(repin.session, 1);
  EXPECT_EQ(repin.by, 2);
  EXPECT_EQ(std::get<sched::ResumeAction>(y.plan.actions[1]).session, 1);
  EXPECT_FALSE(y.shares);
  EXPECT_EQ(y.note, "session 1 resumed, sidestepped by 2, was surpassed: 2 connected to it");

  EXPECT_EQ(s_.Find(1)->state, SessionState::kSidestepped);
  EXPECT_EQ(s_.Find(1)->displaced_by, 2);
  EXPECT_TRUE(s_.Find(2)->exclusive);
  EXPECT_EQ(s_.Find(2)->state, SessionState::kRunning);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 32, 1));
  EXPECT_TRUE(UsesAre(s_, 0, 32, 40, 5));
  for (int n = 1; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
  EXPECT_EQ(CheckUses(s_), "");

  // Connecting again changes nothing: it is not suspended any more.
  EXPECT_TRUE(YieldToConnect(s_, 2, 1).plan.empty());

  // A sidestepper arriving now does not take the analysis' slots (it holds them alone).
  Start(Request(3, 4), sidestep_);
  for (const sched::RankSlots& r : s_.Find(3)->placement.ranks)
    EXPECT_FALSE(r.node == 0 && r.pus[0] < 32) << r.node << ":" << r.pus[0];
  End(s_, sidestep_, 3, *compact_);

  End(s_, surpass_, 2, *compact_);
  EXPECT_EQ(s_.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(s_.Find(1)->displaced_by, sched::kNoSession);
  EXPECT_EQ(s_.Find(1)->placement, original);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(UsesAre(s_, n, 0, 40, 1));
}

TEST_F(YieldTest, NothingToYieldUnlessTheConnectorSuspendedTheOtherItself) {
  Start(Request(1, 160), surpass_);
  EXPECT_TRUE(YieldToConnect(s_, 1, 1).plan.empty());
  Start(Request(2, 32), surpass_);
  // The victim connecting to its surpasser (it cannot, stopped) or a stranger: nothing.
  EXPECT_TRUE(YieldToConnect(s_, 1, 2).plan.empty());
  EXPECT_TRUE(YieldToConnect(s_, 7, 1).plan.empty());
  EXPECT_TRUE(YieldToConnect(s_, 2, 7).plan.empty());
  // Nested: 3 surpasses 2, which surpassed 1. 3 connecting to 1 is not 1's surpasser;
  // 2, suspended itself, does not run to connect to anyone.
  Start(Request(3, 160), surpass_);
  ASSERT_EQ(s_.Find(2)->state, SessionState::kSuspended);
  EXPECT_TRUE(YieldToConnect(s_, 3, 1).plan.empty());
  EXPECT_TRUE(YieldToConnect(s_, 2, 1).plan.empty());
  // 3 connecting to 2, which it surpassed, does yield.
  EXPECT_FALSE(YieldToConnect(s_, 3, 2).plan.empty());
}

// Two nodes of `pus` slots each: session 1 fills them, then 2 (one rank) surpasses it.
sched::Snapshot SurpassedOnTwoNodes(int pus) {
  sched::Snapshot s;
  for (int i = 0; i < 2; ++i) {
    s.nodes.push_back(
        sched::Node::Make(i, "n" + std::to_string(i), sched::NodeTopology::Uniform(1, pus, 1)));
  }
  auto compact = *sched::MakeAllocator("compact");
  SurpassPolicy surpass{PolicyOptions{}};
  Arrive(s, surpass, Request(1, 2 * pus), *compact);
  s.now = 1;
  Arrive(s, surpass, Request(2, 1), *compact);
  EXPECT_EQ(s.Find(1)->state, SessionState::kSuspended);
  return s;
}

// One slot per node (the 2-core demo): nowhere to move the simulation's rank off the
// analysis' node. It resumes in place, sharing that slot, rather than leave the analysis
// waiting forever.
TEST(YieldOneSlotNodes, VictimResumesSharingTheConnectorsSlot) {
  sched::Snapshot s = SurpassedOnTwoNodes(1);

  Yield y = YieldToConnect(s, 2, 1);
  ASSERT_EQ(y.plan.actions.size(), 1u);
  EXPECT_EQ(std::get<sched::ResumeAction>(y.plan.actions[0]).session, 1);
  EXPECT_TRUE(y.shares);
  EXPECT_NE(y.note.find("resumed sharing 2's slots"), std::string::npos) << y.note;
  sched::ApplyPlan(s, y.plan);
  EXPECT_EQ(s.Find(1)->state, SessionState::kRunning);
  EXPECT_EQ(s.Find(1)->displaced_by, sched::kNoSession);
  EXPECT_FALSE(s.Find(2)->exclusive);
  EXPECT_EQ(s.nodes[0].uses, std::vector<int>{2});
  EXPECT_EQ(s.nodes[1].uses, std::vector<int>{1});
  EXPECT_EQ(CheckUses(s), "");
}

// The victim's own slots went to a sidestepper meanwhile and its node has no other: it
// stays suspended (resuming there would break the sidestepper's exclusivity) and resumes
// when the connector ends, as before; the note says why. Two nodes of 2 slots: 1 fills
// both, 2 surpasses it on node 0, 3 sidesteps 2 onto node 0's other slot and holds the
// first alone: node 0 has no slot outside 2's and 3's for 1's ranks.
TEST(YieldNoSlotLeft, VictimStaysSuspendedWhenASidestepperHoldsItsSlots) {
  sched::Snapshot s = SurpassedOnTwoNodes(2);
  s.now = 2;
  Arrive(s, SidestepPolicy{PolicyOptions{}}, Request(3, 1), **sched::MakeAllocator("compact"));
  ASSERT_EQ(s.Find(1)->state, SessionState::kSuspended);
  ASSERT_EQ(s.Find(2)->state, SessionState::kSidestepped);
  ASSERT_TRUE(s.Find(3)->exclusive);
  const std::vector<int> uses = s.nodes[0].uses;

  Yield y = YieldToConnect(s, 2, 1);
  EXPECT_TRUE(y.plan.empty());
  EXPECT_FALSE(y.shares);
  EXPECT_EQ(y.note,
            "session 1 stays suspended although 2 connected to it: no slot outside the exclusive "
            "sessions' is left for it");
  sched::ApplyPlan(s, y.plan);
  EXPECT_EQ(s.Find(1)->state, SessionState::kSuspended);
  EXPECT_EQ(s.Find(1)->displaced_by, 2);
  EXPECT_EQ(s.nodes[0].uses, uses);
  EXPECT_EQ(CheckUses(s), "");
}

}  // namespace
}  // namespace psched::policies
