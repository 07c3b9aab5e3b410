#include "scheduler/sim/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace psched::sim {

double JobRecord::BoundedSlowdown() const {
  return std::max(1.0, (Wait() + runtime) / std::max(runtime, kBoundedSlowdownTau));
}

NodeShape ShapeOf(std::vector<sched::NodeId> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  NodeShape s;
  s.nodes = static_cast<int>(nodes.size());
  if (nodes.empty()) return s;
  s.blocks = 1;
  for (size_t i = 1; i < nodes.size(); ++i)
    if (nodes[i] != nodes[i - 1] + 1) ++s.blocks;
  s.spread = static_cast<double>(nodes.back() - nodes.front() + 1) / s.nodes;
  return s;
}

Stat StatOf(std::vector<double> values) {
  Stat s;
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / values.size();
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(sq / values.size());
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.max = values.back();
  return s;
}

Summary Summarise(const std::vector<JobRecord>& records, const Machine& machine) {
  Summary s;
  std::vector<double> wait, slow, bsld, frag, spread, pack;
  double work = 0, first_submit = INFINITY, last_end = 0, logged = 0;
  int logged_n = 0;
  for (const JobRecord& r : records) {
    if (!r.Ran()) {
      ++s.rejected;
      continue;
    }
    ++s.jobs;
    work += r.runtime * r.cores;
    first_submit = std::min(first_submit, r.submit);
    last_end = std::max(last_end, r.end);
    wait.push_back(r.Wait());
    slow.push_back(r.Slowdown());
    bsld.push_back(r.BoundedSlowdown());
    frag.push_back(r.fragmentation);
    spread.push_back(r.spread);
    pack.push_back(r.packing);
    if (r.logged_wait >= 0) {
      logged += r.logged_wait;
      ++logged_n;
    }
  }
  if (s.jobs == 0) return s;
  s.theoretical_runtime_s = work / machine.TotalCores();
  s.makespan_s = last_end - first_submit;
  s.utilisation = s.makespan_s > 0 ? s.theoretical_runtime_s / s.makespan_s : 0;
  s.wait_s = StatOf(std::move(wait));
  s.slowdown = StatOf(std::move(slow));
  s.bounded_slowdown = StatOf(std::move(bsld));
  s.fragmentation = StatOf(std::move(frag));
  s.spread = StatOf(std::move(spread));
  s.packing = StatOf(std::move(pack));
  if (logged_n > 0) s.logged_wait_mean_s = logged / logged_n;
  return s;
}

std::vector<std::pair<double, int>> BusyCoresOverTime(const std::vector<JobRecord>& records) {
  std::map<double, int> delta;
  for (const JobRecord& r : records) {
    if (!r.Ran()) continue;
    delta[r.start] += r.cores;
    delta[r.end] -= r.cores;
  }
  std::vector<std::pair<double, int>> steps;
  int busy = 0;
  for (auto [t, d] : delta) {
    busy += d;
    steps.emplace_back(t, busy);
  }
  return steps;
}

}  // namespace psched::sim
