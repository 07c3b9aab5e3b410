// EASY and FCFS (sched::ScheduleQueue) as the simulator drives them, with best fit.
#include <gtest/gtest.h>

#include "scheduler/backfill.hpp"
#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/report.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/simulator.hpp"

namespace psched::sim {
namespace {

using sched::SessionRequest;

SimJob Job(sched::SessionId id, double submit, int cores, double runtime, double estimate) {
  SimJob j;
  j.request.id = id;
  j.request.submit_time = submit;
  j.request.ranks = cores;
  j.request.estimate_s = estimate;
  j.runtime_s = runtime;
  return j;
}

SimSetup QueueSetup(Discipline d) {
  SimSetup s;
  s.name = d == Discipline::kEasy ? "easy" : "fcfs";
  s.discipline = d;
  s.select = [](std::span<const sched::Node> n, const SessionRequest& r) {
    return sched::PlaceBestFit(n, r);
  };
  return s;
}

// 4 single-core nodes. A (2 cores, 100 s) runs; B (4 cores) must wait for A: its shadow
// time is 100. C (2 cores, 50 s) fits now and ends at 52 <= 100: EASY backfills it, FCFS
// makes it wait behind B. D (1 core, estimate 300) would run past the shadow time on the
// slots B needs: EASY must not start it before B.
Workload Tiny() {
  Workload w;
  w.name = "tiny";
  w.machine = Machine{4, 1, 0};
  w.jobs = {Job(1, 0, 2, 100, 100), Job(2, 1, 4, 10, 10), Job(3, 2, 2, 50, 50),
            Job(4, 60, 1, 300, 300)};
  return w;
}

TEST(EasyBackfillTest, BackfillsOnlyWhatDoesNotDelayTheHead) {
  Result<SimResult> r = Simulate(Tiny(), QueueSetup(Discipline::kEasy));
  ASSERT_TRUE(r) << r.error().ToString();
  const auto& j = r->records;
  EXPECT_EQ(j[0].start, 0);
  EXPECT_EQ(j[2].start, 2);    // C backfilled
  EXPECT_EQ(j[1].start, 100);  // B at its shadow time, not delayed
  EXPECT_EQ(j[3].start, 110);  // D after B (its 300 s would have blocked B's nodes)
}

TEST(EasyBackfillTest, FcfsKeepsOrder) {
  Result<SimResult> r = Simulate(Tiny(), QueueSetup(Discipline::kFcfs));
  ASSERT_TRUE(r) << r.error().ToString();
  const auto& j = r->records;
  EXPECT_EQ(j[0].start, 0);
  EXPECT_EQ(j[1].start, 100);
  EXPECT_EQ(j[2].start, 110);
  EXPECT_EQ(j[3].start, 110);  // D fits beside C once B is done
}

TEST(BestFitTest, PicksTheSmallestConsecutiveSetAndHonoursContiguity) {
  // 8 nodes of 1 core.
  std::vector<sched::Node> nodes;
  nodes.reserve(8);
  for (int i = 0; i < 8; ++i)
    nodes.push_back(sched::Node::Make(i, "n", sched::NodeTopology::Uniform(1, 1, 1)));
  nodes[2].uses[0] = 1;
  nodes[6].uses[0] = 1;  // free runs: {0,1}, {3,4,5}, {7}
  SessionRequest r;
  r.ranks = 2;
  auto p = sched::PlaceBestFit(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<sched::NodeId>{0, 1}));  // the exact fit, not {3,4}
  r.ranks = 3;
  p = sched::PlaceBestFit(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<sched::NodeId>{3, 4, 5}));
  r.ranks = 4;  // no run holds 4: the biggest runs first when contiguity is not asked
  p = sched::PlaceBestFit(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<sched::NodeId>{0, 1, 3, 4}));
  r.contiguous = true;
  EXPECT_FALSE(sched::PlaceBestFit(nodes, r));
}

TEST(BestFitTest, NodeRequestsAndGpus) {
  // 4 nodes x 8 cores x 2 GPUs; node 1 has a GPU taken. 2 nodes x 4 cores with 2 GPUs each.
  std::vector<sched::Node> nodes;
  nodes.reserve(4);
  for (int i = 0; i < 4; ++i)
    nodes.push_back(sched::Node::Make(i, "n", sched::NodeTopology::Uniform(1, 8, 1, 2)));
  nodes[1].gpus_used = 1;
  SessionRequest r;
  r.ranks = 8, r.nodes = 2, r.ppn = 4, r.gpus_per_node = 2;
  auto p = sched::PlaceBestFit(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<sched::NodeId>{2, 3}));
  EXPECT_EQ(p->gpus_per_node, 2);
  EXPECT_EQ(p->ranks.size(), 8u);
}

// With best fit's NodeFits, ScheduleQueue builds placements only for what starts (and the
// head's only when a candidate must stay beside it): the decisions must be the same job
// for job as with the selector alone. Workloads with node, GPU, -N and contiguous jobs.
TEST(EasyBackfillTest, FitsWithoutPlacementsDecidesAsTheSelector) {
  for (auto [kind, version, sizing] :
       {std::tuple{1, 2, AuctionJobSizing::kByCores}, std::tuple{5, 2, AuctionJobSizing::kByCores},
        std::tuple{5, 3, AuctionJobSizing::kByNodes}}) {
    AuctionWorkloadSpec spec;
    spec.kind = kind;
    spec.version = version;
    spec.sizing = sizing;
    spec.theoretical_runtime_s = 3600;
    Result<Workload> w = MakeAuctionWorkload(spec);
    ASSERT_TRUE(w);
    SimSetup plain = QueueSetup(Discipline::kEasy);
    SimSetup with_fits = plain;
    with_fits.fits = [](std::span<const sched::Node> n, int free, const SessionRequest& r) {
      return sched::BestFitFits(n, free, r);
    };
    Result<SimResult> a = Simulate(*w, plain);
    Result<SimResult> b = Simulate(*w, with_fits);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(JobsCsv(a->records), JobsCsv(b->records)) << w->name;
  }
}

// psched-sim's EASY and FCFS decide on slot counts (SlotMap, runs of nodes, no rank lists);
// they must start every job at the same time on the same nodes as ScheduleQueue on the
// nodes with PlaceBestFit does. Node, GPU, -N and contiguous jobs, with a priority module.
TEST(EasyBackfillTest, SlotCountsDecideAsTheNodes) {
  for (auto [kind, version, sizing] :
       {std::tuple{1, 2, AuctionJobSizing::kByCores}, std::tuple{4, 3, AuctionJobSizing::kByCores},
        std::tuple{5, 2, AuctionJobSizing::kByCores},
        std::tuple{5, 3, AuctionJobSizing::kByNodes}}) {
    AuctionWorkloadSpec spec;
    spec.kind = kind;
    spec.version = version;
    spec.sizing = sizing;
    spec.theoretical_runtime_s = 3600;
    Result<Workload> w = MakeAuctionWorkload(spec);
    ASSERT_TRUE(w);
    for (const char* name : {"easy", "fcfs", "easy/psp"}) {
      auto parts = BuildScheduler(*ParseSchedulerSpec(name), {}, {});
      ASSERT_TRUE(parts);
      SimSetup on_nodes = (*parts)->setup;
      ASSERT_TRUE(on_nodes.best_fit);
      on_nodes.best_fit = false;
      Result<SimResult> a = Simulate(*w, (*parts)->setup);
      Result<SimResult> b = Simulate(*w, on_nodes);
      ASSERT_TRUE(a && b);
      EXPECT_EQ(JobsCsv(a->records), JobsCsv(b->records)) << w->name << " " << name;
    }
  }
}

}  // namespace
}  // namespace psched::sim
