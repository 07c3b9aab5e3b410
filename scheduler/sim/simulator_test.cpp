#include "scheduler/sim/simulator.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler/allocator_registry.hpp"
#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/scheduler_spec.hpp"

namespace psched::sim {
namespace {

Result<SimResult> RunSim(const Workload& w, const std::string& name, double interval = 0) {
  auto spec = ParseSchedulerSpec(name);
  if (!spec) return Fail(spec.error());
  auto parts = BuildScheduler(*spec, {}, {});
  if (!parts) return Fail(parts.error());
  (*parts)->setup.interval_s = interval;
  return Simulate(w, (*parts)->setup);
}

// What every correct schedule satisfies, whatever the scheduler: a contiguous job runs
// on one block of neighbouring nodes (fragmentation 1) under every discipline and allocator.
void ExpectSound(const Workload& w, const SimResult& r) {
  ASSERT_EQ(r.records.size(), w.jobs.size());
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const JobRecord& j = r.records[i];
    ASSERT_TRUE(j.Ran()) << "job " << j.id;
    EXPECT_GE(j.start, j.submit);
    EXPECT_NEAR(j.end - j.start, w.jobs[i].runtime_s, 1e-6);
    EXPECT_GE(j.fragmentation, 1);
    EXPECT_GE(j.spread, 1.0);
    EXPECT_GE(j.packing, 1.0);
    if (w.jobs[i].request.contiguous) {
      EXPECT_EQ(j.fragmentation, 1) << "job " << j.id;
    }
    if (w.jobs[i].request.nodes > 0) {
      EXPECT_EQ(j.nodes_used, w.jobs[i].request.nodes);
    }
  }
  for (auto [t, busy] : BusyCoresOverTime(r.records)) EXPECT_LE(busy, w.machine.TotalCores());
  EXPECT_GT(r.summary.utilisation, 0);
  EXPECT_LE(r.summary.utilisation, 1.0 + 1e-9);
}

TEST(SimulatorTest, AuctionWorkloadsAreSoundUnderEveryQueueDiscipline) {
  for (int version = 1; version <= 3; ++version) {
    AuctionWorkloadSpec spec;
    spec.kind = 5;
    spec.version = version;
    spec.theoretical_runtime_s = 900;  // small: fast
    auto w = MakeAuctionWorkload(spec);
    ASSERT_TRUE(w);
    for (const char* s : {"fcfs", "easy", "compact", "spread", "netload"}) {
      auto r = RunSim(*w, s);
      ASSERT_TRUE(r) << s << ": " << r.error().ToString();
      ExpectSound(*w, *r);
      EXPECT_EQ(r->summary.scheduler, s);
    }
  }
}

TEST(SimulatorTest, EasyIsAtLeastAsGoodAsFcfsOnAFullQueue) {
  AuctionWorkloadSpec spec;
  spec.kind = 1;
  spec.theoretical_runtime_s = 3600;
  auto w = MakeAuctionWorkload(spec);
  ASSERT_TRUE(w);
  auto fcfs = RunSim(*w, "fcfs");
  auto easy = RunSim(*w, "easy");
  ASSERT_TRUE(fcfs && easy);
  EXPECT_LE(easy->summary.wait_s.mean, fcfs->summary.wait_s.mean);
  EXPECT_GE(easy->summary.utilisation, fcfs->summary.utilisation - 1e-9);
}

TEST(SimulatorTest, IntervalRoundsStartJobsOnTheGrid) {
  Workload w;
  w.machine = Machine{2, 1, 0};
  SimJob a;
  a.request.id = 1, a.request.ranks = 1, a.request.submit_time = 3, a.runtime_s = 7;
  a.request.estimate_s = 7;
  SimJob b = a;
  b.request.id = 2, b.request.submit_time = 12;
  w.jobs = {a, b};
  auto r = RunSim(w, "easy", 5);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->records[0].start, 5);
  EXPECT_EQ(r->records[1].start, 15);
}

// Aging reorders the queue between events, so rounds go on every interval while jobs
// wait. Two 1-core nodes: A holds one until t = 1000; H (both nodes, long estimate) heads
// the queue and blocks X (1 core, short estimate), which cannot backfill (it would end
// after H's reservation). After one aging step X (49 + 49 * 150 / 2000) outranks H
// (49 + 49 * 150 / 10000) and starts on the free node at the next round, t = 300; rounds
// only at events would start it at A's end instead.
TEST(SimulatorTest, AgingPrioritiesGetRoundsBetweenEvents) {
  Workload w;
  w.machine = Machine{2, 1, 0};
  SimJob a;
  a.request.id = 1, a.request.ranks = 1, a.runtime_s = 1000, a.request.estimate_s = 1000;
  SimJob h = a;
  h.request.id = 2, h.request.ranks = 2, h.request.submit_time = 1;
  h.runtime_s = h.request.estimate_s = 10000;
  SimJob x = a;
  x.request.id = 3, x.request.submit_time = 2, x.runtime_s = x.request.estimate_s = 2000;
  w.jobs = {a, h, x};
  auto aging = RunSim(w, "easy/psp+aging", 150);
  ASSERT_TRUE(aging) << aging.error().ToString();
  EXPECT_EQ(aging->records[2].start, 300);
  EXPECT_EQ(aging->records[1].start, 2400);  // H at the first round after X ends (2300)
  // psp without aging: the order stays H, X; X waits for H.
  auto plain = RunSim(w, "easy/psp", 150);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->records[1].start, 1050);
  EXPECT_GT(plain->records[2].start, plain->records[1].start);
}

// SLURM's backfill looks at bf_max_job_test jobs from the head; queue_depth does the same.
// Two nodes: job 1 (1 node, 50 s) runs first; job 2 (2 nodes, 100 s) is the head after it; job
// 3 (1 node, 10 s) could backfill while job 1 runs only if the round looks past job 2.
TEST(SimulatorTest, QueueDepthLimitsHowFarEasyLooks) {
  Workload w;
  w.machine = Machine{2, 1, 0};
  SimJob a;
  a.request.id = 1, a.request.ranks = 2, a.runtime_s = 50, a.request.estimate_s = 50;
  SimJob b = a;
  b.request.id = 2, b.request.ranks = 2, b.runtime_s = 100, b.request.estimate_s = 100;
  SimJob c = a;
  c.request.id = 3, c.request.ranks = 1, c.runtime_s = 10, c.request.estimate_s = 10;
  a.request.ranks = 1;  // job 1 holds one of the two nodes for 50 s
  w.jobs = {a, b, c};
  auto run = [&](int depth) {
    auto spec = ParseSchedulerSpec("easy");
    auto parts = BuildScheduler(*spec, {}, {});
    (*parts)->setup.queue_depth = depth;
    return Simulate(w, (*parts)->setup);
  };
  auto whole = run(0);
  auto two = run(2);
  ASSERT_TRUE(whole && two);
  // Whole queue: job 3 backfills next to job 1 at once (it ends before job 2's shadow time).
  EXPECT_EQ(whole->records[2].start, 0);
  // Depth 2: the round sees jobs 1 and 2 only; job 3 waits until job 2 has started.
  EXPECT_EQ(two->records[1].start, 50);
  EXPECT_EQ(two->records[2].start, 150);
  auto spec = ParseSchedulerSpec("easy");
  auto parts = BuildScheduler(*spec, {}, {});
  (*parts)->setup.queue_depth = -1;
  auto bad = Simulate(w, (*parts)->setup);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("queue depth must be >= 0"), std::string::npos);
}

TEST(SimulatorTest, JobsThatCanNeverFitAreRejectedNotStuck) {
  Workload w;
  w.machine = Machine{2, 1, 0};
  SimJob a;
  a.request.id = 1, a.request.ranks = 3, a.runtime_s = 1, a.request.estimate_s = 1;
  SimJob b = a;
  b.request.id = 2, b.request.ranks = 1;
  w.jobs = {a, b};
  auto r = RunSim(w, "easy");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->records[0].Ran());
  EXPECT_TRUE(r->records[1].Ran());
  EXPECT_EQ(r->summary.rejected, 1);
}

// PSP fixes a job's accuracy group when it arrives: priority modules see the owner's
// finished jobs as they were at submission, not the ones that finished while it waited.
TEST(SimulatorTest, PriorityModulesSeeTheOwnersHistoryAtSubmission) {
  Workload w;
  w.machine = Machine{1, 1, 0};
  for (int k = 0; k < 3; ++k) {
    SimJob j;
    j.request.id = k + 1;
    j.request.ranks = 1;
    j.request.submit_time = k == 2 ? 150 : 10.0 * k;  // 1 at 0, 2 at 10, 3 at 150
    j.request.estimate_s = 400;
    j.runtime_s = 100;
    j.user = 7;
    j.request.owner = OwnerName(7);
    w.jobs.push_back(j);
  }
  auto spec = ParseSchedulerSpec("fcfs/psp");
  ASSERT_TRUE(spec);
  auto parts = BuildScheduler(*spec, {}, {});
  ASSERT_TRUE(parts);
  std::map<sched::SessionId, std::set<size_t>> seen;  // job -> history sizes it was shown
  (*parts)->setup.priority = [&](const sched::SessionRequest& r, std::span<const OwnerJob> h,
                                 double) {
    seen[r.id].insert(h.size());
    return 1.0;
  };
  auto r = Simulate(w, (*parts)->setup);
  ASSERT_TRUE(r) << r.error().ToString();
  // Job 2 waits until job 1 ends at 100 (the owner then has one finished job); it still
  // sees the empty history of its submission. Job 3 arrives after that end.
  EXPECT_EQ(seen[2], (std::set<size_t>{0}));
  EXPECT_EQ(seen[3], (std::set<size_t>{1}));
  EXPECT_EQ(r->records[1].start, 100);
}

TEST(SimulatorTest, BadSetupsAreErrors) {
  Workload w;
  w.machine = Machine{0, 1, 0};
  auto r = RunSim(w, "easy");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("0 nodes"), std::string::npos);
  EXPECT_FALSE(ParseSchedulerSpec("lottery"));
  EXPECT_FALSE(ParseSchedulerSpec("easy/random"));
  EXPECT_TRUE(ParseSchedulerSpec("compact"));
}

}  // namespace
}  // namespace psched::sim
