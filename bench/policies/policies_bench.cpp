// Decision time of every co-scheduling policy on the paper's scenario: a
// simulation fills the allocation (40 ranks per node), then a 32-rank analysis
// arrives (compact, or spread over the nodes) and later ends. Measured on the
// paper's 4 x 40-PU allocation and on 64 such nodes; plus the wait queue's OnEnd
// with 100 queued sessions (with and without backfill).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "policies/policy_registry.hpp"
#include "scheduler/allocator_registry.hpp"

namespace {

using namespace psched;

sched::Snapshot Allocation(int nodes) {
  sched::Snapshot s;
  for (int i = 0; i < nodes; ++i) {
    s.nodes.push_back(
        sched::Node::Make(i, "node" + std::to_string(i), sched::NodeTopology::Uniform(2, 20, 1)));
  }
  return s;
}

sched::SessionRequest Request(sched::SessionId id, int ranks, bool spread) {
  sched::SessionRequest r;
  r.id = id;
  r.ranks = ranks;
  r.spread = spread;
  r.estimate_s = 100;
  return r;
}

struct Scenario {
  sched::Snapshot before;  // the simulation runs, the analysis arrives
  sched::Snapshot after;   // the analysis has just ended and been removed
  sched::Session ended;
  sched::SessionRequest analysis;
};

Scenario Build(const policies::Policy& policy, const sched::Allocator& allocator, int nodes,
               bool spread) {
  Scenario sc;
  sched::Snapshot s = Allocation(nodes);
  sched::SessionRequest sim = Request(1, nodes * 40, false);
  sched::ApplyPlan(s, policy.OnArrival(s, sim, allocator), &sim);
  s.now = 1;
  sc.before = s;
  sc.analysis = Request(2, 32, spread);
  sched::ApplyPlan(s, policy.OnArrival(s, sc.analysis, allocator), &sc.analysis);
  sc.ended = *s.Find(2);
  sched::RemoveSession(s, 2);
  sc.after = s;
  return sc;
}

void RegisterScenario(const std::string& policy_name, int nodes, bool spread) {
  std::string suffix =
      "/" + policy_name + "/nodes:" + std::to_string(nodes) + (spread ? "/spread" : "/compact");
  benchmark::RegisterBenchmark(("OnArrival" + suffix).c_str(), [=](benchmark::State& state) {
    auto policy = *policies::MakePolicy(policy_name);
    auto allocator = *sched::MakeAllocator("compact");
    Scenario sc = Build(*policy, *allocator, nodes, spread);
    for (auto _ : state)
      benchmark::DoNotOptimize(policy->OnArrival(sc.before, sc.analysis, *allocator));
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("OnEnd" + suffix).c_str(), [=](benchmark::State& state) {
    auto policy = *policies::MakePolicy(policy_name);
    auto allocator = *sched::MakeAllocator("compact");
    Scenario sc = Build(*policy, *allocator, nodes, spread);
    for (auto _ : state) benchmark::DoNotOptimize(policy->OnEnd(sc.after, sc.ended, *allocator));
  })->Unit(benchmark::kMicrosecond);
}

// 64 nodes full, 100 sessions of 8..200 ranks queued; the simulation ends.
void RegisterQueue(bool backfill) {
  std::string name = std::string("OnEnd/wait/nodes:64/queued:100") + (backfill ? "/backfill" : "");
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    policies::PolicyOptions options;
    options.backfill = backfill;
    auto policy = *policies::MakePolicy("wait", options);
    auto allocator = *sched::MakeAllocator("compact");
    sched::Snapshot s = Allocation(64);
    sched::SessionRequest sim = Request(1, 64 * 40 - 100, false);
    sched::ApplyPlan(s, policy->OnArrival(s, sim, *allocator), &sim);
    sched::SessionRequest other = Request(2, 100, false);
    other.estimate_s = 1000;
    sched::ApplyPlan(s, policy->OnArrival(s, other, *allocator), &other);
    for (int i = 0; i < 100; ++i) {
      sched::SessionRequest q = Request(10 + i, 8 + (i * 37) % 193, false);
      sched::ApplyPlan(s, policy->OnArrival(s, q, *allocator), &q);
    }
    sched::Session ended = *s.Find(1);
    sched::RemoveSession(s, 1);
    for (auto _ : state) benchmark::DoNotOptimize(policy->OnEnd(s, ended, *allocator));
  })->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string& name : psched::policies::PolicyNames()) {
    for (int nodes : {4, 64})
      for (bool spread : {false, true}) RegisterScenario(name, nodes, spread);
  }
  RegisterQueue(false);
  RegisterQueue(true);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
