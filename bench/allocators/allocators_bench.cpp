// Speed of the allocators' decisions on instances of the papers' scales.
// Instances are generated from fixed seeds, so runs are comparable.
#include <benchmark/benchmark.h>

#include <random>

#include "scheduler/allocators/auction/auction.hpp"
#include "scheduler/allocators/ipwindow.hpp"
#include "scheduler/allocators/netload.hpp"

namespace psched::sched {
namespace {

// Machine-L of the AUCSCHED paper (1024 nodes, 8 cores, 2 GPUs), about half busy.
std::vector<auction::NodeFree> BusyMachine(int nodes, std::mt19937& rng) {
  std::vector<auction::NodeFree> free(nodes);
  std::uniform_int_distribution<int> cores(0, 8), gpus(0, 2);
  for (auto& n : free) {
    n.cores = cores(rng) / 2 * 2;
    n.gpus = n.cores == 0 ? 0 : gpus(rng);
  }
  return free;
}

// Workload V of the paper: a third cores only, a third node requests with 4 or 8
// cores per node, a sixth 1 GPU per node, a sixth 2 GPUs per node (1 or 2 cores per
// GPU); half of the jobs contiguous. The first `large` jobs are big (up to 128 cores
// or 16 nodes), the rest small (up to 32 cores or 4 nodes): together they ask for more
// than the machine has free, and a window-order greedy that lets the big ones in first
// is not optimal, so the solver has something to find.
std::vector<SessionRequest> WorkloadV(int count, int large, std::mt19937& rng) {
  std::vector<SessionRequest> w;
  std::uniform_int_distribution<int> kind(0, 5), coin(0, 1);
  for (int i = 0; i < count; ++i) {
    const bool big = i < large;
    std::uniform_int_distribution<int> nodes(1, big ? 16 : 4), cores(8, big ? 128 : 32);
    SessionRequest r;
    r.id = i + 1;
    r.priority = 1000 - i;
    r.contiguous = coin(rng) == 1;
    int k = kind(rng);
    if (k < 2) {
      r.ranks = cores(rng);
    } else if (k < 4) {
      r.nodes = nodes(rng);
      r.ppn = coin(rng) ? 4 : 8;
      r.ranks = r.nodes * r.ppn;
    } else {
      r.gpus_per_node = k == 4 ? 1 : 2;
      r.nodes = nodes(rng);
      r.ppn = r.gpus_per_node * (coin(rng) ? 1 : 2);
      r.ranks = r.nodes * r.ppn;
    }
    w.push_back(r);
  }
  return w;
}

struct AuctionInstance {
  std::vector<auction::Job> jobs;
  std::vector<auction::NodeFree> free;
  AuctionConfig config;
  double best_10s = 0;
  mip::Status best_10s_status = mip::Status::kNoSolution;
};

const AuctionInstance& Instance() {
  static const AuctionInstance instance = [] {
    AuctionInstance in;
    std::mt19937 rng(6);
    in.free = BusyMachine(1024, rng);
    std::vector<SessionRequest> window = WorkloadV(100, 70, rng);
    in.jobs = auction::JobsOf(window);
    in.config.window = 100;
    in.config.max_bids_per_job = 15;
    in.config.max_bids_total = 100 * 15;
    in.config.time_limit_s = 10;
    auction::Outcome best = auction::RunAuction(in.jobs, in.free, in.config, 15);
    in.best_10s = best.objective;
    in.best_10s_status = best.status;
    return in;
  }();
  return instance;
}

// Arg: the solver's time limit in ms. Counters: the objective relative to the best
// found with 10 s, and whether it is within 1%.
void BM_AuctionWindow100x1024x15(benchmark::State& state) {
  const AuctionInstance& in = Instance();
  AuctionConfig config = in.config;
  config.time_limit_s = state.range(0) / 1000.0;
  auction::Outcome o;
  for (auto _ : state) {
    o = auction::RunAuction(in.jobs, in.free, config, 15);
    benchmark::DoNotOptimize(o.objective);
  }
  state.counters["bids"] = static_cast<double>(o.bids.size());
  state.counters["placed"] = static_cast<double>(o.awards.size());
  state.counters["greedy/best10s"] = o.greedy_objective / in.best_10s;
  state.counters["obj/best10s"] = o.objective / in.best_10s;
  state.counters["within1pct"] = o.objective >= 0.99 * in.best_10s ? 1 : 0;
  state.counters["optimal"] = o.status == mip::Status::kOptimal ? 1 : 0;
  state.counters["best10s_optimal"] = in.best_10s_status == mip::Status::kOptimal ? 1 : 0;
}
BENCHMARK(BM_AuctionWindow100x1024x15)
    ->Arg(100)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(5000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

Snapshot NetloadMachine(int count) {
  std::mt19937 rng(4096);
  std::uniform_real_distribution<double> load(0, 8), util(0, 1), mem(0, 64000);
  std::uniform_int_distribution<int> peer(0, count - 1);
  std::uniform_real_distribution<double> lat(5, 500), bw(10, 10000);
  Snapshot s;
  for (int i = 0; i < count; ++i) {
    Node n = Node::Make(i, "n" + std::to_string(i), NodeTopology::Uniform(2, 8, 2));
    n.metrics = NodeMetrics{load(rng), 0, 0, util(rng), bw(rng), mem(rng), 64000, 2400};
    s.nodes.push_back(std::move(n));
  }
  // Each node has measured links to 16 peers (the daemons probe a sample, not all pairs).
  for (int i = 0; i < count; ++i)
    for (int k = 0; k < 16; ++k) s.links.push_back(LinkMetrics{i, peer(rng), lat(rng), bw(rng)});
  return s;
}

// Arg: ranks of the session.
void BM_Netload4096(benchmark::State& state) {
  static const Snapshot s = NetloadMachine(4096);
  SessionRequest r;
  r.id = 1;
  r.ranks = static_cast<int>(state.range(0));
  netload::NetloadAllocator alloc{NetloadConfig{}};
  for (auto _ : state) benchmark::DoNotOptimize(alloc.PlaceOne(s, r));
}
BENCHMARK(BM_Netload4096)->Arg(32)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

// Arg: the solver's time limit in ms.
void BM_IpWindow50x256(benchmark::State& state) {
  static const auto instance = [] {
    std::mt19937 rng(50);
    std::vector<Node> nodes;
    auto free = BusyMachine(256, rng);
    for (int i = 0; i < 256; ++i) {
      Node n = Node::Make(i, "n" + std::to_string(i), NodeTopology::Uniform(1, 8, 1, 2));
      for (int p = 0; p < 8 - free[i].cores; ++p) n.uses[p] = 1;
      n.gpus_used = 2 - free[i].gpus;
      nodes.push_back(std::move(n));
    }
    return std::make_pair(nodes, WorkloadV(50, 20, rng));
  }();
  ipwindow::Outcome o;
  for (auto _ : state)
    o = ipwindow::Solve(instance.first, instance.second, state.range(0) / 1000.0);
  int placed = 0;
  for (bool s : o.selected) placed += s;
  state.counters["placed"] = placed;
  state.counters["objective"] = o.objective;
  state.counters["optimal"] = o.status == mip::Status::kOptimal ? 1 : 0;
}
BENCHMARK(BM_IpWindow50x256)
    ->Arg(1000)
    ->Arg(5000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace psched::sched

BENCHMARK_MAIN();
