// Property tests: random (seeded) sequences of arrivals and ends for every policy,
// checking the invariants after every step.
#include <gtest/gtest.h>

#include <random>

#include "policies/policy_registry.hpp"
#include "policies/queue.hpp"
#include "policies/test_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::policies {
namespace {

using namespace testing;

struct Case {
  std::string policy;
  PolicyOptions options;
  std::string allocator;
  std::string label;
};

std::string PrintCase(const ::testing::TestParamInfo<Case>& info) {
  return info.param.label;
}

class PolicyProperties : public ::testing::TestWithParam<Case> {};

int MaxUses(const sched::Snapshot& s) {
  int most = 0;
  for (const sched::Node& n : s.nodes)
    for (int u : n.uses) most = std::max(most, u);
  return most;
}

// Every live exclusive session holds its slots alone.
std::string CheckExclusive(const sched::Snapshot& s) {
  for (const sched::Session& session : s.sessions) {
    if (session.exclusive && HoldsSlots(session)) {
      for (const sched::RankSlots& r : session.placement.ranks) {
        for (int pu : r.pus) {
          if (s.nodes[r.node].uses[pu] != 1) {
            return "session " + std::to_string(session.request.id) + " shares node " +
                   std::to_string(r.node) + " PU " + std::to_string(pu);
          }
        }
      }
    }
  }
  return "";
}

TEST_P(PolicyProperties, RandomArrivalsAndEndsKeepTheInvariants) {
  const Case& c = GetParam();
  auto policy = *MakePolicy(c.policy, c.options);
  auto allocator = *sched::MakeAllocator(c.allocator);
  // What the sequences made the policy do: a property test that never reaches the
  // interesting cases proves nothing.
  int enqueued = 0, queued_started = 0, suspended = 0, resumed = 0, overbooked = 0, sidestepped = 0,
      restored = 0;
  auto tally = [&](const sched::Plan& plan, bool on_end) {
    for (const sched::Action& a : plan.actions) {
      if (std::holds_alternative<sched::EnqueueAction>(a)) ++enqueued;
      if (const auto* start = std::get_if<sched::StartRanksAction>(&a)) {
        queued_started += on_end;
        overbooked += start->overbooked;
      }
      if (std::holds_alternative<sched::SuspendAction>(a)) ++suspended;
      if (std::holds_alternative<sched::ResumeAction>(a)) ++resumed;
      if (const auto* repin = std::get_if<sched::RepinAction>(&a))
        ++(repin->by == sched::kNoSession ? restored : sidestepped);
    }
  };
  for (unsigned seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    sched::Snapshot s = PaperAllocation(seed % 3 == 0 ? 2 : 4);
    sched::SessionId next = 1;
    auto check = [&](const std::string& step) {
      ASSERT_EQ(CheckUses(s), "") << step;
      if (c.policy == "wait" || c.policy == "surpass") {
        ASSERT_LE(MaxUses(s), 1) << step;
      }
      if (c.policy == "sidestep") {
        ASSERT_EQ(CheckExclusive(s), "") << step;
      }
    };
    for (int step = 0; step < 120; ++step) {
      s.now += std::uniform_real_distribution<double>(0, 20)(rng);
      bool arrive = s.sessions.empty() || rng() % 5 < 3;
      if (arrive) {
        sched::SessionRequest r =
            Request(next++, 1 + static_cast<int>(rng() % 60),
                    rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 5) : 1, rng() % 3 == 0);
        if (rng() % 2) r.estimate_s = 10 + static_cast<double>(rng() % 300);
        r.priority = static_cast<double>(rng() % 3);
        tally(Arrive(s, *policy, r, *allocator), false);
        const sched::Session* mine = s.Find(r.id);
        if (c.policy == "sidestep" && mine != nullptr && mine->exclusive) {
          for (const sched::RankSlots& rank : mine->placement.ranks) {
            for (int pu : rank.pus) {
              ASSERT_EQ(s.nodes[rank.node].uses[pu], 1) << "new session on a shared slot";
            }
          }
        }
        check("arrival of " + std::to_string(r.id));
      } else {
        const sched::Session& victim = s.sessions[rng() % s.sessions.size()];
        sched::SessionId id = victim.request.id;
        tally(End(s, *policy, id, *allocator), true);
        check("end of " + std::to_string(id));
      }
    }
    // Everything ends, in a random order: every slot is free afterwards.
    while (!s.sessions.empty()) {
      sched::SessionId id = s.sessions[rng() % s.sessions.size()].request.id;
      tally(End(s, *policy, id, *allocator), true);
      check("drain, end of " + std::to_string(id));
    }
    EXPECT_EQ(s.FreePus(), s.TotalPus());
  }
  if (c.policy == "wait") {
    EXPECT_GT(enqueued, 0);
    EXPECT_GT(queued_started, 0);
  }
  if (c.policy == "surpass") {
    EXPECT_GT(suspended, 0);
    EXPECT_GT(resumed, 0);
  }
  if (c.policy == "overbook") {
    EXPECT_GT(overbooked, 0);
  }
  if (c.policy == "sidestep") {
    EXPECT_GT(sidestepped, 0);
    EXPECT_GT(restored, 0);
  }
  if (c.policy != "wait") {
    EXPECT_EQ(queued_started, 0);  // only wait ever queues
  }
}

// With everything ended except queued sessions, a wait queue always makes progress:
// nobody stays suspended or queued once the allocation is idle.
TEST_P(PolicyProperties, IdleAllocationLeavesNobodyWaiting) {
  const Case& c = GetParam();
  auto policy = *MakePolicy(c.policy, c.options);
  auto allocator = *sched::MakeAllocator(c.allocator);
  std::mt19937 rng(99);
  sched::Snapshot s = PaperAllocation();
  for (sched::SessionId id = 1; id <= 30; ++id) {
    s.now += 1;
    Arrive(s, *policy, Request(id, 1 + static_cast<int>(rng() % 100)), *allocator);
  }
  // End only sessions that hold slots; the others must be started or resumed by then.
  for (int guard = 0; guard < 1000 && !s.sessions.empty(); ++guard) {
    const sched::Session* holder = nullptr;
    for (const sched::Session& session : s.sessions)
      if (HoldsSlots(session)) holder = &session;
    ASSERT_NE(holder, nullptr) << "sessions left waiting on an idle allocation";
    End(s, *policy, holder->request.id, *allocator);
    ASSERT_EQ(CheckUses(s), "");
  }
  EXPECT_TRUE(s.sessions.empty());
  EXPECT_EQ(s.FreePus(), s.TotalPus());
}

INSTANTIATE_TEST_SUITE_P(
    AllPolicies, PolicyProperties,
    ::testing::Values(
        Case{"wait", {}, "compact", "wait"},
        Case{"wait", {OverbookMode::kPinned, true, 0}, "compact", "wait_backfill"},
        Case{"wait", {}, "spread", "wait_spread_allocator"},
        Case{"surpass", {}, "compact", "surpass"},
        Case{"overbook", {}, "compact", "overbook_pinned"},
        Case{"overbook", {OverbookMode::kFloat, false, 0}, "compact", "overbook_float"},
        Case{"sidestep", {}, "compact", "sidestep"},
        Case{"sidestep", {}, "spread", "sidestep_spread_allocator"}),
    PrintCase);

}  // namespace
}  // namespace psched::policies

namespace psched::policies {
namespace {

// Users of one allocation may each pick a policy: every arrival here uses a random
// one. The bookkeeping must stay exact and an idle allocation must leave nobody
// queued or suspended.
TEST(MixedPolicies, RandomPolicyPerArrivalKeepsTheBookkeeping) {
  std::vector<std::unique_ptr<Policy>> all;
  for (const std::string& name : PolicyNames()) all.push_back(*MakePolicy(name));
  all.push_back(*MakePolicy("overbook", PolicyOptions{OverbookMode::kFloat, false, 0}));
  auto allocator = *sched::MakeAllocator("compact");
  for (unsigned seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    sched::Snapshot s = PaperAllocation();
    for (int step = 0; step < 100; ++step) {
      s.now += 1;
      const Policy& policy = *all[rng() % all.size()];
      if (s.sessions.empty() || rng() % 5 < 3) {
        sched::SessionRequest r = Request(step + 1, 1 + static_cast<int>(rng() % 60),
                                          1 + static_cast<int>(rng() % 2), rng() % 3 == 0);
        Arrive(s, policy, r, *allocator);
      } else {
        End(s, policy, s.sessions[rng() % s.sessions.size()].request.id, *allocator);
      }
      ASSERT_EQ(CheckUses(s), "") << "step " << step << " policy " << policy.name();
    }
    for (int guard = 0; guard < 1000 && !s.sessions.empty(); ++guard) {
      const sched::Session* holder = nullptr;
      for (const sched::Session& session : s.sessions)
        if (HoldsSlots(session)) holder = &session;
      ASSERT_NE(holder, nullptr) << "sessions left waiting on an idle allocation";
      End(s, *all[0], holder->request.id, *allocator);
      ASSERT_EQ(CheckUses(s), "");
    }
    EXPECT_EQ(s.FreePus(), s.TotalPus());
  }
}

}  // namespace
}  // namespace psched::policies

namespace psched::policies {
namespace {

using namespace testing;

// Sidestep and surpass in one allocation (each user picks a policy).
class MixedSidestepSurpass : public ::testing::Test {
 protected:
  void Start(const Policy& policy, const sched::SessionRequest& request) {
    s_.now += 1;
    Arrive(s_, policy, request, *compact_);
    ASSERT_EQ(CheckUses(s_), "");
  }
  void Finish(sched::SessionId id) {
    End(s_, *sidestep_, id, *compact_);
    ASSERT_EQ(CheckUses(s_), "");
  }
  sched::SessionState StateOf(sched::SessionId id) { return s_.Find(id)->state; }

  std::unique_ptr<sched::Allocator> compact_ = *sched::MakeAllocator("compact");
  std::unique_ptr<Policy> sidestep_ = *MakePolicy("sidestep");
  std::unique_ptr<Policy> surpass_ = *MakePolicy("surpass");
  sched::Snapshot s_ = PaperAllocation(1);
};

// A sidestepper suspended by a surpass gets its slots back when the surpasser ends: the
// session it sidestepped stays where it was moved (it was restored onto the
// sidestepper's slots, which then stayed suspended until that long session ended).
TEST_F(MixedSidestepSurpass, SuspendedSidestepperResumesOnItsSlots) {
  Start(*sidestep_, Request(1, 40));  // the simulation: the whole node
  Start(*sidestep_, Request(2, 10));  // an analysis sidesteps it
  ASSERT_EQ(StateOf(1), sched::SessionState::kSidestepped);
  Start(*surpass_, Request(3, 10));  // suspends the analysis, the most recent
  ASSERT_EQ(StateOf(2), sched::SessionState::kSuspended);
  Finish(3);
  EXPECT_EQ(StateOf(2), sched::SessionState::kRunning);
  EXPECT_EQ(StateOf(1), sched::SessionState::kSidestepped);
  Finish(2);
  EXPECT_EQ(StateOf(1), sched::SessionState::kRunning);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 40, 1));
}

// A sidestepped session suspended by a surpass, whose sidestepper ends meanwhile, gets
// its own slots back when it resumes (it resumed squeezed, with its slots idle, until
// some other session happened to end).
TEST_F(MixedSidestepSurpass, ResumedSidesteppedSessionIsRestored) {
  s_ = PaperAllocation(2);
  Start(*sidestep_, Request(1, 80));  // both nodes
  Start(*sidestep_, Request(2, 10));  // sidesteps it on node 0
  sched::SessionRequest whole_node = Request(3, 40);
  whole_node.nodes = 1;
  Start(*surpass_, whole_node);  // suspends session 1 only: the analysis need not stop
  ASSERT_EQ(StateOf(1), sched::SessionState::kSuspended);
  ASSERT_EQ(StateOf(2), sched::SessionState::kRunning);
  Finish(2);
  Finish(3);
  EXPECT_EQ(StateOf(1), sched::SessionState::kRunning);
  EXPECT_EQ(s_.Find(1)->placement, s_.Find(1)->original);
  EXPECT_TRUE(UsesAre(s_, 0, 0, 40, 1));
  EXPECT_TRUE(UsesAre(s_, 1, 0, 40, 1));
}

}  // namespace
}  // namespace psched::policies
