#include "scheduler/priorities/psp.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/priorities/fcfs.hpp"
#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sched::prio {
namespace {

// The paper's Table 1, interval by interval, at both ends of each interval.
TEST(Psp, AccuracyToPriorityTable) {
  struct Row {
    double low, high;
    int group, priority;
  };
  const Row table[] = {{0.00, 0.0499, 1, 1},  {0.05, 0.0999, 2, 10}, {0.10, 0.1499, 3, 20},
                       {0.15, 0.1999, 4, 25}, {0.20, 0.2999, 5, 30}, {0.30, 0.3999, 6, 35},
                       {0.40, 0.5199, 7, 40}, {0.52, 0.6399, 8, 43}, {0.64, 0.7799, 9, 46},
                       {0.78, 1.00, 10, 49}};
  for (const Row& row : table) {
    for (double a : {row.low, row.high}) {
      AccuracyGroup g = GroupOfAccuracy(a);
      EXPECT_EQ(g.group, row.group) << "accuracy " << a;
      EXPECT_EQ(g.priority, row.priority) << "accuracy " << a;
    }
  }
  // The paper's example: an owner with accuracy 0.17 starts at priority 25.
  EXPECT_EQ(GroupOfAccuracy(0.17).priority, 25);
}

TEST(Psp, AccuracyIsAverageOfLastTenJobs) {
  std::vector<FinishedJob> history;
  // Five old, perfectly accurate jobs that fall out of the window of 10...
  history.reserve(5);
  for (int i = 0; i < 5; ++i) history.push_back({100, 100});
  // ...then ten jobs at accuracy 0.1 and 0.3 alternately: average 0.2 -> g5, 30.
  for (int i = 0; i < 10; ++i) history.push_back({100, i % 2 ? 30.0 : 10.0});
  auto a = OwnerAccuracy(history, 10);
  ASSERT_TRUE(a);
  EXPECT_NEAR(*a, 0.2, 1e-12);
  Psp psp(PriorityConfig{}, false);
  SessionRequest r;
  EXPECT_DOUBLE_EQ(psp.Priority(r, history, 0), 30);
  // Fewer than 10 jobs: the average of what there is.
  std::vector<FinishedJob> short_history = {{100, 50}, {100, 70}};  // 0.6 -> g8
  EXPECT_DOUBLE_EQ(psp.Priority(r, short_history, 0), 43);
  // Runtime beyond the request counts as accuracy 1.
  std::vector<FinishedJob> over = {{100, 500}};
  EXPECT_DOUBLE_EQ(psp.Priority(r, over, 0), 49);
  EXPECT_DOUBLE_EQ(psp.Priority(r, {}, 0), Psp::kNoHistoryPriority);
}

// Equation (1) by hand: g = 25, estimate 1500 s, step 150 s.
TEST(Psp, AgingRecursion) {
  const double g = 25, e = 1500, step = 150;
  double p1 = g;
  double p2 = g + p1 * (1 * step) / e;  // 27.5
  double p3 = g + p2 * (2 * step) / e;  // 30.5
  double p4 = g + p3 * (3 * step) / e;  // 34.15
  EXPECT_DOUBLE_EQ(p2, 27.5);
  EXPECT_DOUBLE_EQ(p3, 30.5);
  EXPECT_NEAR(p4, 34.15, 1e-12);
  EXPECT_DOUBLE_EQ(AgedPriority(g, 0, step, e), p1);
  EXPECT_DOUBLE_EQ(AgedPriority(g, 1, step, e), p2);
  EXPECT_DOUBLE_EQ(AgedPriority(g, 2, step, e), p3);
  EXPECT_DOUBLE_EQ(AgedPriority(g, 3, step, e), p4);
  // A week of waiting on a 10-minute estimate saturates instead of overflowing to NaN.
  EXPECT_EQ(AgedPriority(g, 7 * 24 * 3600 / 150, step, 600), HUGE_VAL);

  PriorityConfig config;  // aging step 150 s by default
  EXPECT_EQ(config.aging_step_s, 150);
  Psp aging(config, true);
  SessionRequest r;
  r.submit_time = 1000;
  r.estimate_s = e;
  std::vector<FinishedJob> history = {{100, 17}};  // accuracy 0.17 -> 25
  EXPECT_DOUBLE_EQ(aging.Priority(r, history, 1000), p1);
  EXPECT_DOUBLE_EQ(aging.Priority(r, history, 1000 + 149), p1);  // no step yet
  EXPECT_DOUBLE_EQ(aging.Priority(r, history, 1000 + 150), p2);
  EXPECT_NEAR(aging.Priority(r, history, 1000 + 450), p4, 1e-12);
  // Without aging the priority stays g.
  Psp plain(config, false);
  EXPECT_DOUBLE_EQ(plain.Priority(r, history, 1000 + 450), 25);
}

// More steps than an int holds (a microsecond step over hours of waiting) still age:
// the step count used to be cast to int, undefined and on x86 INT_MIN, so no aging.
TEST(Psp, StepCountBeyondIntStillAges) {
  PriorityConfig config;
  config.aging_step_s = 1e-6;
  Psp aging(config, true);
  SessionRequest r;
  r.estimate_s = 1e-3;  // saturates within a few thousand steps: the test stays fast
  EXPECT_EQ(aging.Priority(r, {}, 1e4), HUGE_VAL);  // 1e10 steps
  EXPECT_GT(aging.Priority(r, {}, 1e-3), Psp::kNoHistoryPriority);
  // A step so short that the recursion would never saturate: the count stops at
  // kMaxAgingSteps (1e18 iterations before, which hung the leader on every round).
  config.aging_step_s = 1e-300;
  Psp tiny(config, true);
  r.estimate_s = 3600;
  EXPECT_TRUE(std::isfinite(tiny.Priority(r, {}, 1e4)));
  EXPECT_GE(tiny.Priority(r, {}, 1e4), Psp::kNoHistoryPriority);
}

// Short jobs age faster than long ones (the paper's Fig. 1 argument): a short job of
// a poorly estimating owner overtakes a long job of an accurate owner.
TEST(Psp, ShortJobOvertakesLongOneByAging) {
  Psp aging(PriorityConfig{}, true);
  SessionRequest short_job, long_job;
  short_job.estimate_s = 600;
  long_job.estimate_s = 36000;
  std::vector<FinishedJob> poor = {{100, 1}}, good = {{100, 90}};
  EXPECT_LT(aging.Priority(short_job, poor, 0), aging.Priority(long_job, good, 0));
  EXPECT_GT(aging.Priority(short_job, poor, 1500), aging.Priority(long_job, good, 1500));
}

TEST(Fcfs, EarlierSubmissionFirst) {
  Fcfs fcfs;
  SessionRequest a, b;
  a.submit_time = 10;
  b.submit_time = 20;
  EXPECT_GT(fcfs.Priority(a, {}, 100), fcfs.Priority(b, {}, 100));
  EXPECT_GT(fcfs.Priority(b, {}, 100), 0);
}

TEST(PriorityRegistry, BuildsByNameAndRejectsUnknown) {
  PriorityConfig config;
  config.machine_cores = 8;  // multifactor divides by it
  for (const std::string& name : PriorityNames()) {
    auto m = MakePriority(name, config);
    ASSERT_TRUE(m) << name;
    EXPECT_EQ((*m)->name(), name);
  }
  auto bad = MakePriority("lifo");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("psp+aging"), std::string::npos);
}

}  // namespace
}  // namespace psched::sched::prio
