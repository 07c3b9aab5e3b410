#include "scheduler/allocators/auction/auction.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "scheduler/allocators/rank_layout.hpp"

namespace psched::sched::auction {
namespace {

// Columns of the integer program.
struct Model {
  mip::Problem problem;
  std::vector<int> bid_column;               // per bid: b_jc
  std::vector<std::map<int, int>> u_column;  // per job: node -> u_jn
  std::vector<std::map<int, int>> r_column;  // per job: node -> r_jn
};

// Ranks a node may hold for job j beyond the first: min(A/T - 1, R - 1, ppn - 1).
int ExtraBound(const Job& job, const NodeFree& n) {
  return std::max(0, std::min(job.Capacity(n) - 1, job.cpu - 1));
}

Model Build(std::span<const Job> jobs, std::span<const NodeFree> free, const std::vector<Bid>& bids,
            double alpha) {
  Model m;
  mip::Problem& p = m.problem;
  const int njobs = static_cast<int>(jobs.size());
  m.u_column.resize(njobs);
  m.r_column.resize(njobs);
  std::vector<std::vector<int>> bids_of(njobs);
  for (int c = 0; c < static_cast<int>(bids.size()); ++c) {
    const Bid& b = bids[c];
    bids_of[b.job].push_back(c);
    m.bid_column.push_back(
        p.AddColumn(jobs[b.job].priority + alpha * b.preference, 0, 1, true));  // (1)
  }
  for (int j = 0; j < njobs; ++j) {
    const Job& job = jobs[j];
    // Nodes of any class of j, and C_jn for each.
    std::map<int, std::vector<int>> classes_of_node;
    for (int c : bids_of[j])
      for (int n : bids[c].nodes) classes_of_node[n].push_back(c);
    for (const auto& [n, classes] : classes_of_node) {
      int u = p.AddColumn(0, 0, 1, true);
      int extra = job.type == JobType::kNodesPerNode ? job.cpn - 1 : ExtraBound(job, free[n]);
      int r = p.AddColumn(0, 0, extra, true);
      m.u_column[j][n] = u;
      m.r_column[j][n] = r;
      // u_jn <= sum_{c in C_jn} b_jc
      int row = p.AddRow(-mip::kInfinity, 0);
      p.Set(row, u, 1);
      for (int c : classes) p.Set(row, m.bid_column[c], -1);
      if (job.type == JobType::kNodesPerNode) {
        // (8): u + r = cpn u, i.e. r = (cpn - 1) u.
        row = p.AddRow(0, 0);
        p.Set(row, r, 1);
        p.Set(row, u, -(job.cpn - 1));
      } else {
        // (7): r <= extra * u.
        row = p.AddRow(-mip::kInfinity, 0);
        p.Set(row, r, 1);
        p.Set(row, u, -extra);
      }
    }
    if (bids_of[j].empty()) continue;
    // (2)
    int row = p.AddRow(-mip::kInfinity, 1);
    for (int c : bids_of[j]) p.Set(row, m.bid_column[c], 1);
    // (3) per class: enough of its own nodes when selected...
    for (int c : bids_of[j]) {
      row = p.AddRow(0, mip::kInfinity);
      for (int n : bids[c].nodes) p.Set(row, m.u_column[j][n], 1);
      p.Set(row, m.bid_column[c], -bids[c].node_count);
    }
    // ...and exactly R^node nodes in all.
    row = p.AddRow(0, 0);
    for (const auto& [n, u] : m.u_column[j]) p.Set(row, u, 1);
    for (int c : bids_of[j]) p.Set(row, m.bid_column[c], -bids[c].node_count);
    // (4)
    row = p.AddRow(0, 0);
    for (const auto& [n, u] : m.u_column[j]) {
      p.Set(row, u, 1);
      p.Set(row, m.r_column[j].at(n), 1);
    }
    for (int c : bids_of[j]) p.Set(row, m.bid_column[c], -job.cpu);
  }
  // (5) and (6) per node.
  for (int n = 0; n < static_cast<int>(free.size()); ++n) {
    int cpu_row = -1, gpu_row = -1;
    for (int j = 0; j < njobs; ++j) {
      auto it = m.u_column[j].find(n);
      if (it == m.u_column[j].end()) continue;
      if (cpu_row < 0) cpu_row = p.AddRow(-mip::kInfinity, free[n].cores);
      p.Set(cpu_row, it->second, jobs[j].threads);
      p.Set(cpu_row, m.r_column[j].at(n), jobs[j].threads);
      if (jobs[j].gpus > 0) {
        if (gpu_row < 0) gpu_row = p.AddRow(-mip::kInfinity, free[n].gpus);
        p.Set(gpu_row, it->second, jobs[j].gpus);
      }
    }
  }
  return m;
}

// Greedy: jobs in `order`, each takes its first bid (in generation order) that still fits.
std::vector<Award> Greedy(std::span<const Job> jobs, std::span<const NodeFree> free,
                          const std::vector<Bid>& bids, const std::vector<int>& order) {
  std::vector<NodeFree> left(free.begin(), free.end());
  std::vector<Award> out;
  std::vector<bool> done(jobs.size(), false);
  std::vector<std::vector<int>> bids_of(jobs.size());
  for (int c = 0; c < static_cast<int>(bids.size()); ++c) bids_of[bids[c].job].push_back(c);
  std::vector<int> sequence;
  for (int j : order) sequence.insert(sequence.end(), bids_of[j].begin(), bids_of[j].end());
  for (int c : sequence) {
    const Bid& b = bids[c];
    if (done[b.job]) continue;
    const Job& job = jobs[b.job];
    // The R^node nodes of N_c with the most room.
    std::vector<int> nodes;
    for (int n : b.nodes)
      if (job.Eligible(left[n])) nodes.push_back(n);
    if (static_cast<int>(nodes.size()) < b.node_count) continue;
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](int x, int y) { return job.Capacity(left[x]) > job.Capacity(left[y]); });
    nodes.resize(b.node_count);
    std::sort(nodes.begin(), nodes.end());
    std::vector<std::pair<int, int>> shares;
    int rest = job.cpu - b.node_count;
    if (rest < 0) continue;
    for (int n : nodes) {
      int extra = job.type == JobType::kNodesPerNode ? job.cpn - 1
                                                     : std::min({rest, ExtraBound(job, left[n])});
      shares.push_back({n, 1 + extra});
      rest -= extra;
    }
    if (job.type != JobType::kNodesPerNode && rest != 0) continue;
    if (job.type == JobType::kNodesPerNode && job.cpn * b.node_count != job.cpu) continue;
    Take(job, shares, left);
    done[b.job] = true;
    out.push_back(Award{b.job, c, std::move(shares)});
  }
  std::sort(out.begin(), out.end(), [](const Award& a, const Award& b) { return a.job < b.job; });
  return out;
}

// Job orders for the greedy start: the window's, and the most constrained first (GPU
// jobs, then fixed cores per node, then fixed node counts, then cores only; window
// order among equals),
// which avoids the trap of both papers' examples: a flexible job taking the nodes
// that only a constrained one could use.
std::vector<std::vector<int>> GreedyOrders(std::span<const Job> jobs) {
  std::vector<int> window(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) window[j] = static_cast<int>(j);
  std::vector<int> constrained = window;
  std::stable_sort(constrained.begin(), constrained.end(), [&](int a, int b) {
    if ((jobs[a].gpus > 0) != (jobs[b].gpus > 0)) return jobs[a].gpus > 0;
    return static_cast<int>(jobs[a].type) > static_cast<int>(jobs[b].type);
  });
  return {window, constrained};
}

std::vector<double> ToColumns(const Model& m, const std::vector<Award>& awards) {
  std::vector<double> x(m.problem.NumColumns(), 0.0);
  for (const Award& a : awards) {
    x[m.bid_column[a.bid]] = 1;
    for (const auto& [n, ranks] : a.shares) {
      x[m.u_column[a.job].at(n)] = 1;
      x[m.r_column[a.job].at(n)] = ranks - 1;
    }
  }
  return x;
}

std::vector<Award> FromColumns(const Model& m, const std::vector<Bid>& bids,
                               const std::vector<double>& x) {
  std::vector<Award> out;
  for (int c = 0; c < static_cast<int>(bids.size()); ++c) {
    if (x[m.bid_column[c]] < 0.5) continue;
    Award a{bids[c].job, c, {}};
    for (const auto& [n, u] : m.u_column[a.job]) {
      if (x[u] > 0.5)
        a.shares.push_back({n, 1 + static_cast<int>(std::lround(x[m.r_column[a.job].at(n)]))});
    }
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const Award& a, const Award& b) { return a.job < b.job; });
  return out;
}

}  // namespace

std::vector<NodeFree> FreeOf(const std::vector<Node>& nodes) {
  std::vector<NodeFree> out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) out.push_back(NodeFree{n.FreePus(), std::max(0, n.FreeGpus())});
  return out;
}

Outcome RunAuction(std::span<const Job> jobs, std::span<const NodeFree> free,
                   const AuctionConfig& config, int bid_cap) {
  Outcome out;
  out.next_bid_cap = bid_cap;
  BidLimits limits{std::max(1, bid_cap), config.max_bids_total, config.baseline_bids,
                   config.contiguous_bids_only};
  out.bids = GenerateBids(jobs, free, limits);
  if (out.bids.empty()) return out;
  double p_min = jobs.empty() ? 1 : jobs[0].priority;
  for (const Job& j : jobs) p_min = std::min(p_min, j.priority);
  out.alpha = p_min / (static_cast<double>(out.bids.size()) + 1);  // (10)

  Model m = Build(jobs, free, out.bids, out.alpha);
  std::vector<double> warm;
  for (const std::vector<int>& order : GreedyOrders(jobs)) {
    std::vector<Award> g = Greedy(jobs, free, out.bids, order);
    std::vector<double> x = ToColumns(m, g);
    const double objective = m.problem.Objective(x);
    if (warm.empty() || objective > out.greedy_objective + 1e-9) {
      out.greedy = std::move(g);
      out.greedy_objective = objective;
      warm = std::move(x);
    }
  }

  mip::Solution s =
      mip::Solve(m.problem, mip::Options{true, config.time_limit_s, warm, config.cpu_time_limit});
  out.status = s.status;
  out.solved = true;
  out.timed_out = s.status == mip::Status::kFeasible || s.status == mip::Status::kNoSolution;
  if (s.status == mip::Status::kNoSolution || s.x.empty()) {
    out.fell_back = true;
    out.awards = out.greedy;
    out.objective = out.greedy_objective;
    out.next_bid_cap = std::max(1, static_cast<int>(bid_cap / config.bid_cap_cut));
  } else {
    out.awards = FromColumns(m, out.bids, s.x);
    out.objective = s.objective;
    if (s.status == mip::Status::kOptimal) out.next_bid_cap = config.max_bids_per_job;
  }
  return out;
}

std::vector<Assignment> AuctionAllocator::Allocate(const Snapshot& snapshot,
                                                   std::span<const SessionRequest> window) const {
  const size_t size = std::min(window.size(), static_cast<size_t>(std::max(1, config_.window)));
  std::span<const SessionRequest> part = window.first(size);
  std::vector<Job> jobs = JobsOf(part);
  std::vector<Node> nodes = snapshot.nodes;
  Outcome o = RunAuction(jobs, FreeOf(nodes), config_, bid_cap_.load());
  bid_cap_.store(o.next_bid_cap);
  if (o.solved) ++solver_rounds_;
  if (o.timed_out) ++solver_timeouts_;
  std::vector<Assignment> out;
  for (const Award& a : o.awards) {
    std::vector<NodeShare> shares;
    shares.reserve(a.shares.size());
    for (const auto& [n, ranks] : a.shares) shares.push_back(NodeShare{n, ranks});
    if (auto p = LayRanks(nodes, part[a.job], shares))
      out.push_back(Assignment{part[a.job].id, std::move(*p)});
  }
  return out;
}

}  // namespace psched::sched::auction
