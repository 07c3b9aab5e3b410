#include "scheduler/priorities/multifactor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sched::prio {
namespace {

PriorityConfig Machine(int cores) {
  PriorityConfig c;
  c.name = "multifactor";
  c.machine_cores = cores;
  return c;
}

SessionRequest Job(SessionId id, int ranks, double submit) {
  SessionRequest r;
  r.id = id;
  r.ranks = ranks;
  r.submit_time = submit;
  return r;
}

std::unique_ptr<PriorityModule> Make(const PriorityConfig& c) {
  auto m = MakePriority("multifactor", c);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().ToString());
  return m ? std::move(*m) : nullptr;
}

// Ids in priority order (highest first; equal priorities keep the given order).
std::vector<SessionId> Order(const PriorityModule& m, std::vector<SessionRequest> jobs,
                             double now) {
  std::stable_sort(jobs.begin(), jobs.end(), [&](const SessionRequest& a, const SessionRequest& b) {
    return m.Priority(a, {}, now) > m.Priority(b, {}, now);
  });
  std::vector<SessionId> ids;
  ids.reserve(jobs.size());
  for (const SessionRequest& j : jobs) ids.push_back(j.id);
  return ids;
}

TEST(Multifactor, DefaultsAreTheHarnessFormula) {
  auto m = Make(Machine(1024));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "multifactor");
  // docs/sim/auction_diag.cpp PRIO_SIZE=10080: 1 + age minutes + 10080 * cores / machine.
  const SessionRequest j = Job(1, 256, 600);
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 600), 1 + 10080.0 * 256 / 1024);
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 600 + 3600), 1 + 60 + 10080.0 * 256 / 1024);
  // Threads count: a rank of 4 threads holds 4 cores.
  SessionRequest threaded = Job(2, 64, 0);
  threaded.threads_per_rank = 4;
  EXPECT_DOUBLE_EQ(m->Priority(threaded, {}, 0), m->Priority(Job(3, 256, 0), {}, 0));
}

TEST(Multifactor, LargerJobsOutrankSmallerOnesSubmittedTogether) {
  auto m = Make(Machine(100));
  ASSERT_TRUE(m);
  EXPECT_EQ(Order(*m, {Job(1, 1, 0), Job(2, 50, 0), Job(3, 10, 0), Job(4, 100, 0)}, 30),
            (std::vector<SessionId>{4, 2, 3, 1}));
  EXPECT_GT(m->Priority(Job(1, 2, 0), {}, 0), m->Priority(Job(2, 1, 0), {}, 0));
}

TEST(Multifactor, AgeRaisesPriorityLinearly) {
  auto m = Make(Machine(100));
  ASSERT_TRUE(m);
  const SessionRequest j = Job(1, 10, 1000);
  const double p0 = m->Priority(j, {}, 1000);
  for (int minutes : {1, 2, 10, 1440, 100000})
    EXPECT_DOUBLE_EQ(m->Priority(j, {}, 1000 + 60.0 * minutes) - p0, minutes) << minutes;
  // Before its submission (a clock step back) a job has no age, not a negative one.
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 0), p0);
  EXPECT_GT(p0, 0);
}

TEST(Multifactor, MaxAgeCapsTheAgeFactor) {
  PriorityConfig c = Machine(100);
  c.multifactor_max_age_s = 3600;
  auto m = Make(c);
  ASSERT_TRUE(m);
  const SessionRequest j = Job(1, 10, 0);
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 1800) - m->Priority(j, {}, 0), 30);
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 3600) - m->Priority(j, {}, 0), 60);
  EXPECT_DOUBLE_EQ(m->Priority(j, {}, 86400) - m->Priority(j, {}, 0), 60);
}

TEST(Multifactor, WeightsDecideBetweenAnOldSmallAndAYoungLargeJob) {
  // Job 1: 1 core, submitted at 0; job 2: the whole machine, submitted 2 hours later.
  const std::vector<SessionRequest> jobs = {Job(1, 1, 0), Job(2, 100, 7200)};
  const double now = 7200;
  // Defaults: size 10080 >> 120 minutes of age: the large job first.
  auto by_default = Make(Machine(100));
  ASSERT_TRUE(by_default);
  EXPECT_EQ(Order(*by_default, jobs, now), (std::vector<SessionId>{2, 1}));
  // Size weight 60 (an hour of waiting for the whole machine): age wins.
  PriorityConfig c = Machine(100);
  c.multifactor_size_weight = 60;
  auto small_size = Make(c);
  ASSERT_TRUE(small_size);
  EXPECT_EQ(Order(*small_size, jobs, now), (std::vector<SessionId>{1, 2}));
  // Age weight 0: pure size, whatever the wait.
  c.multifactor_size_weight = 60;
  c.multifactor_age_weight = 0;
  auto no_age = Make(c);
  ASSERT_TRUE(no_age);
  EXPECT_EQ(Order(*no_age, jobs, now + 1e6), (std::vector<SessionId>{2, 1}));
  // Size weight 0: pure age, i.e. arrival order.
  c.multifactor_size_weight = 0;
  c.multifactor_age_weight = 1;
  auto no_size = Make(c);
  ASSERT_TRUE(no_size);
  EXPECT_EQ(Order(*no_size, jobs, now), (std::vector<SessionId>{1, 2}));
}

TEST(Multifactor, IsInTheRegistry) {
  const auto& names = PriorityNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "multifactor"), names.end());
}

TEST(Multifactor, NeedsTheMachineSize) {
  auto m = MakePriority("multifactor", PriorityConfig{});
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().ToString().find("needs the machine's core count (got 0)"), std::string::npos)
      << m.error().ToString();
}

TEST(Multifactor, NegativeWeightsAreRefused) {
  for (int which = 0; which < 3; ++which) {
    PriorityConfig c = Machine(10);
    (which == 0   ? c.multifactor_age_weight
     : which == 1 ? c.multifactor_size_weight
                  : c.multifactor_max_age_s) = -1;
    auto m = MakePriority("multifactor", c);
    ASSERT_FALSE(m.has_value()) << which;
    EXPECT_NE(m.error().ToString().find("must be >= 0"), std::string::npos) << m.error().ToString();
  }
}

TEST(Multifactor, UnknownNameListsIt) {
  auto m = MakePriority("multi", Machine(10));
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().ToString().find("unknown priority 'multi'"), std::string::npos);
  EXPECT_NE(m.error().ToString().find("multifactor"), std::string::npos);
}

}  // namespace
}  // namespace psched::sched::prio
