#include "scheduler/allocators/ipwindow.hpp"

#include <algorithm>
#include <cmath>

#include "scheduler/allocators/auction/bids.hpp"
#include "scheduler/allocators/auction/job.hpp"
#include "scheduler/allocators/rank_layout.hpp"
#include "scheduler/placement.hpp"

namespace psched::sched::ipwindow {

Outcome Solve(const std::vector<Node>& nodes, std::span<const SessionRequest> window,
              double time_limit_s, bool cpu_time_limit) {
  const int n = static_cast<int>(nodes.size());
  const int m = static_cast<int>(window.size());
  Outcome out;
  out.shares.resize(m);
  out.selected.assign(m, false);
  if (n == 0 || m == 0) {
    out.status = mip::Status::kOptimal;
    return out;
  }
  // The same job view as the auction (priorities, ranks, threads, GPUs).
  std::vector<auction::Job> jobs = auction::JobsOf(window);
  std::vector<auction::NodeFree> free;
  free.reserve(nodes.size());
  for (const Node& node : nodes) free.push_back({node.FreePus(), std::max(0, node.FreeGpus())});

  mip::Problem p;
  std::vector<int> s(m), c(m);
  std::vector<std::vector<int>> x(m, std::vector<int>(n, -1)), t = x;
  for (int j = 0; j < m; ++j) {
    const auction::Job& job = jobs[j];
    s[j] = p.AddColumn(job.priority, 0, 1, true);
    c[j] = p.AddColumn(-job.priority, 0, 0.5, false);
    for (int i = 0; i < n; ++i) {
      // A node without the job's GPUs or a slot for one rank cannot take it at all.
      int bound = std::min(free[i].cores / job.threads, job.cpu);
      if (window[j].ppn > 0) bound = std::min(bound, window[j].ppn);
      if (free[i].gpus < job.gpus || bound <= 0) continue;
      x[j][i] = p.AddColumn(0, 0, bound, true);
      t[j][i] = p.AddColumn(0, 0, 1, true);
      // (6)
      int row = p.AddRow(-mip::kInfinity, 0);
      p.Set(row, x[j][i], 1);
      p.Set(row, t[j][i], -bound);
      row = p.AddRow(0, mip::kInfinity);
      p.Set(row, x[j][i], 1);
      p.Set(row, t[j][i], -1);
    }
    // (2)
    int row = p.AddRow(0, 0);
    for (int i = 0; i < n; ++i)
      if (x[j][i] >= 0) p.Set(row, x[j][i], 1);
    p.Set(row, s[j], -job.cpu);
    // (4)
    row = p.AddRow(0, 0);
    for (int i = 0; i < n; ++i)
      if (t[j][i] >= 0) p.Set(row, t[j][i], 1);
    p.Set(row, c[j], -2.0 * n);
    // A valid cut, not in the paper, that tightens the LP bound of (6): a selected
    // job needs at least ceil(r_j / largest per-node bound) nodes.
    int widest = 0;
    for (int i = 0; i < n; ++i)
      if (x[j][i] >= 0) widest = std::max(widest, static_cast<int>(p.ColumnUpper(x[j][i])));
    if (widest > 0) {
      row = p.AddRow(0, mip::kInfinity);
      for (int i = 0; i < n; ++i)
        if (t[j][i] >= 0) p.Set(row, t[j][i], 1);
      p.Set(row, s[j], -std::ceil(static_cast<double>(job.cpu) / widest));
    }
    // (5)
    const int n_min = window[j].nodes > 0 ? window[j].nodes : 1;
    const int n_max = window[j].nodes > 0 ? window[j].nodes : n;
    row = p.AddRow(0, mip::kInfinity);
    p.Set(row, c[j], 2.0 * n);
    p.Set(row, s[j], -n_min);
    row = p.AddRow(-mip::kInfinity, 0);
    p.Set(row, c[j], 2.0 * n);
    p.Set(row, s[j], -n_max);
  }
  for (int i = 0; i < n; ++i) {
    int cpu = p.AddRow(-mip::kInfinity, free[i].cores);  // (1)
    int gpu = p.AddRow(-mip::kInfinity, free[i].gpus);   // (3)
    for (int j = 0; j < m; ++j) {
      if (x[j][i] < 0) continue;
      p.Set(cpu, x[j][i], jobs[j].threads);
      if (jobs[j].gpus > 0) p.Set(gpu, t[j][i], jobs[j].gpus);
    }
  }

  // Warm start: one-at-a-time best fit, in window order and with GPU jobs first (the
  // trap of the paper's Table 1 is a CPU-only job best-fitted onto GPU nodes); the
  // better of the two by the objective.
  auto greedy = [&](bool gpu_first) {
    std::vector<int> order(m);
    for (int j = 0; j < m; ++j) order[j] = j;
    if (gpu_first) {
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return jobs[a].gpus > jobs[b].gpus; });
    }
    std::vector<double> x0(p.NumColumns(), 0.0);
    std::vector<auction::NodeFree> left = free;
    for (int j : order) {
      auto fit = auction::BestFit(jobs[j], left);
      if (fit.empty()) continue;
      bool ok = true;
      for (const auto& [i, ranks] : fit) ok = ok && x[j][i] >= 0;
      if (!ok) continue;
      auction::Take(jobs[j], fit, left);
      x0[s[j]] = 1;
      for (const auto& [i, ranks] : fit) {
        x0[x[j][i]] = ranks;
        x0[t[j][i]] = 1;
      }
      x0[c[j]] = static_cast<double>(fit.size()) / (2.0 * n);
    }
    return x0;
  };
  std::vector<double> warm = greedy(false);
  std::vector<double> other = greedy(true);
  if (p.Feasible(other) && (!p.Feasible(warm) || p.Objective(other) > p.Objective(warm)))
    warm = std::move(other);

  mip::Solution sol = mip::Solve(p, mip::Options{true, time_limit_s, warm, cpu_time_limit});
  out.status = sol.status;
  out.solved = true;
  out.timed_out = sol.status == mip::Status::kFeasible || sol.status == mip::Status::kNoSolution;
  if (sol.x.empty()) return out;
  out.objective = sol.objective;
  for (int j = 0; j < m; ++j) {
    out.selected[j] = sol.x[s[j]] > 0.5;
    if (!out.selected[j]) continue;
    for (int i = 0; i < n; ++i) {
      if (x[j][i] >= 0 && sol.x[x[j][i]] > 0.5)
        out.shares[j].push_back({i, static_cast<int>(std::lround(sol.x[x[j][i]]))});
    }
  }
  return out;
}

namespace {

bool OnNeighbouringNodes(const std::vector<Node>& nodes, const std::vector<NodeShare>& shares) {
  std::vector<NodeId> ids;
  ids.reserve(shares.size());
  for (const NodeShare& share : shares) ids.push_back(nodes[share.node_index].id);
  std::sort(ids.begin(), ids.end());
  return ids.empty() || ids.back() - ids.front() + 1 == static_cast<NodeId>(ids.size());
}

// The IP has no notion of contiguity (IPSCHED has none): a session that asks for one block
// of neighbouring nodes and was given nodes apart gets the compact layout's block on what
// is left instead, or waits.
std::vector<NodeShare> BlockShares(const std::vector<Node>& nodes, const SessionRequest& request) {
  std::optional<Placement> block = PlaceRanks(nodes, request);
  if (!block) return {};
  std::vector<NodeShare> shares;
  for (size_t i = 0; i < nodes.size(); ++i) {
    int ranks = 0;
    for (const RankSlots& r : block->ranks) ranks += r.node == nodes[i].id;
    if (ranks > 0) shares.push_back(NodeShare{static_cast<int>(i), ranks});
  }
  return shares;
}

}  // namespace

std::vector<Assignment> IpWindowAllocator::Allocate(const Snapshot& snapshot,
                                                    std::span<const SessionRequest> window) const {
  const int size = std::max(1, window_.load());
  std::span<const SessionRequest> part =
      window.first(std::min(window.size(), static_cast<size_t>(size)));
  Outcome o = Solve(snapshot.nodes, part, config_.time_limit_s, config_.cpu_time_limit);
  if (o.solved) ++solver_rounds_;
  if (o.timed_out) ++solver_timeouts_;
  if (o.timed_out) {
    window_.store(std::max(1, size / 2));
  } else if (o.status == mip::Status::kOptimal) {
    window_.store(std::min(std::max(1, config_.window), size * 2));
  }
  std::vector<Node> nodes = snapshot.nodes;
  std::vector<Assignment> out;
  for (size_t j = 0; j < part.size(); ++j) {
    if (!o.selected[j]) continue;
    std::vector<NodeShare> shares;
    for (const auto& [i, ranks] : o.shares[j]) shares.push_back(NodeShare{i, ranks});
    if (part[j].contiguous && !OnNeighbouringNodes(nodes, shares))
      shares = BlockShares(nodes, part[j]);
    if (shares.empty()) continue;
    if (auto placement = LayRanks(nodes, part[j], shares))
      out.push_back(Assignment{part[j].id, std::move(*placement)});
  }
  return out;
}

}  // namespace psched::sched::ipwindow
