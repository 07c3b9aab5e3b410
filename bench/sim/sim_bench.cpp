// Simulator speed (issue #22's targets, in CPU-s, are sim_scale's: see docs/sim):
//  - KTH-SP2 (28k jobs, 100 nodes) with EASY;
//  - a 100k-job trace (KTH-SP2 four times end to end, 113,868 jobs);
//  - one auction round on Machine-L (1024 nodes x 8 cores x 2 GPUs, a 100-job window).
// Trace reading is timed separately from the simulation.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "scheduler/allocator_registry.hpp"
#include "scheduler/allocators/auction/auction.hpp"
#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/generators.hpp"
#include "scheduler/sim/scheduler_spec.hpp"
#include "scheduler/sim/swf_file.hpp"

namespace psched::sim {
namespace {

// The trace, `copies` times end to end; read outside the timed loops.
Workload Kth(int copies) {
  Result<Workload> w = ReadSwfFile(PSCHED_SIM_BENCH_TRACE);
  if (!w) {
    std::fprintf(stderr, "sim_bench: %s\n", w.error().ToString().c_str());
    std::exit(2);
  }
  const size_t n = w->jobs.size();
  const double span = w->jobs.back().request.submit_time + 1;
  for (int c = 1; c < copies; ++c) {
    for (size_t i = 0; i < n; ++i) {
      SimJob j = w->jobs[i];
      j.request.id += static_cast<decltype(j.request.id)>(c) * 1000000;
      j.request.submit_time += c * span;
      w->jobs.push_back(std::move(j));
    }
  }
  return std::move(*w);
}

void BM_ReadKthTrace(benchmark::State& state) {
  for (auto _ : state) {
    Result<Workload> w = ReadSwfFile(PSCHED_SIM_BENCH_TRACE);
    benchmark::DoNotOptimize(w);
  }
}
BENCHMARK(BM_ReadKthTrace)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Replay(benchmark::State& state, const char* scheduler, int copies) {
  const Workload w = Kth(copies);
  auto spec = ParseSchedulerSpec(scheduler);
  double wait = 0;
  for (auto _ : state) {
    auto parts = BuildScheduler(*spec, {}, {});
    Result<SimResult> r = Simulate(w, (*parts)->setup);
    if (!r) {
      state.SkipWithError(r.error().ToString().c_str());
    } else {
      wait = r->summary.wait_s.mean;
    }
  }
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(w.jobs.size()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
  state.counters["mean_wait_s"] = wait;
}
BENCHMARK_CAPTURE(BM_Replay, kth_easy, "easy", 1)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Replay, kth_fcfs, "fcfs", 1)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Replay, kth_easy_psp_aging, "easy/psp+aging", 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Replay, kth_x4_easy_114k_jobs, "easy", 4)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// One auction round on Machine-L: the machine half busy with jobs of workload V.2
// (placed best-fit in order), the next 100 queued jobs as the window.
// `paper_limit`: the auction paper's 5 s limit counted in CPU time (psched-sim
// --solver-clock cpu), so the round's cost does not depend on the machine's load.
void BM_AuctionRoundMachineL(benchmark::State& state, const char* allocator_name,
                             bool paper_limit) {
  AuctionWorkloadSpec spec;
  spec.kind = 5;
  spec.version = 2;
  spec.machine = Machine{1024, 8, 2};
  spec.theoretical_runtime_s = 1800;
  Workload w = *MakeAuctionWorkload(spec);
  sched::Snapshot snap;
  snap.nodes = MakeNodes(w.machine);
  size_t next = 0;
  int busy = 0;
  for (; next < w.jobs.size() && busy < w.machine.TotalCores() / 2; ++next) {
    const sched::SessionRequest& r = w.jobs[next].request;
    auto p = sched::PlaceBestFit(snap.nodes, r);
    if (!p) break;
    sched::Plan plan;
    plan.actions.push_back(sched::StartRanksAction{r.id, *p, false});
    sched::ApplyPlan(snap, plan, &r);
    busy += r.SlotsNeeded();
  }
  std::vector<sched::SessionRequest> window;
  for (size_t k = next; k < w.jobs.size() && window.size() < 100; ++k) {
    window.push_back(w.jobs[k].request);
    window.back().priority = 1e9 - static_cast<double>(k);  // fcfs order
  }
  sched::AllocatorConfig config;
  if (paper_limit) {
    config.auction.time_limit_s = config.ipwindow.time_limit_s = 5;
    config.auction.cpu_time_limit = config.ipwindow.cpu_time_limit = true;
  }
  auto allocator = sched::MakeAllocator(allocator_name, config);
  size_t started = 0;
  for (auto _ : state) {
    auto a = (*allocator)->Allocate(snap, window);
    started = a.size();
    benchmark::DoNotOptimize(a);
  }
  state.counters["window"] = static_cast<double>(window.size());
  state.counters["started"] = static_cast<double>(started);
  state.counters["time_limit_s"] = config.auction.time_limit_s;
  if (auto* a = dynamic_cast<const sched::auction::AuctionAllocator*>(allocator->get()))
    state.counters["timed_out_rounds"] = static_cast<double>(a->solver_timeouts());
}
BENCHMARK_CAPTURE(BM_AuctionRoundMachineL, auction, "auction", false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_AuctionRoundMachineL, auction_cpu_5s, "auction", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_AuctionRoundMachineL, ipwindow, "ipwindow", false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace psched::sim

BENCHMARK_MAIN();
