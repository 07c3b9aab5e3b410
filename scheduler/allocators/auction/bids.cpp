#include "scheduler/allocators/auction/bids.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace psched::sched::auction {
namespace {

struct Constants {
  double k1, k2, k3;
};

// Table 3.
Constants TableThree(JobType job, BidType bid) {
  const bool cores_only = job == JobType::kCores;
  switch (bid) {
    case BidType::kA:
      return cores_only ? Constants{0, 0.25, 0} : Constants{0, 0, 0};
    case BidType::kB:
      return cores_only ? Constants{0.25, 0.25, 0} : Constants{0.5, 0, 0};
    case BidType::kC:
      return cores_only ? Constants{0.5, 0.25, 0.25} : Constants{0.5, 0, 0.5};
    case BidType::kBaseline:
      return Constants{0, 0, 0};
  }
  return Constants{0, 0, 0};
}

// The smallest window [i, k] (k >= i) of eligible nodes starting at i that holds the
// job (type 1: enough ranks; types 2/3: exactly R^node nodes with enough ranks), with
// k <= limit. -1 when there is none.
int WindowEnd(const Job& job, std::span<const NodeFree> free, int i, int limit) {
  int ranks = 0;
  for (int k = i; k <= limit; ++k) {
    if (!job.Eligible(free[k])) return -1;
    ranks += job.Capacity(free[k]);
    const int count = k - i + 1;
    if (job.type == JobType::kCores) {
      if (ranks >= job.cpu) return k;
    } else if (count == job.nodes) {
      return ranks >= job.cpu ? k : -1;
    }
  }
  return -1;
}

// The same from the end: the smallest window [i, last] ending at `last`, i >= limit.
int WindowStart(const Job& job, std::span<const NodeFree> free, int last, int limit) {
  int ranks = 0;
  for (int i = last; i >= limit; --i) {
    if (!job.Eligible(free[i])) return -1;
    ranks += job.Capacity(free[i]);
    const int count = last - i + 1;
    if (job.type == JobType::kCores) {
      if (ranks >= job.cpu) return i;
    } else if (count == job.nodes) {
      return ranks >= job.cpu ? i : -1;
    }
  }
  return -1;
}

std::vector<int> Range(int first, int last) {
  std::vector<int> v(last - first + 1);
  std::iota(v.begin(), v.end(), first);
  return v;
}

}  // namespace

const char* BidTypeName(BidType type) {
  switch (type) {
    case BidType::kA:
      return "A";
    case BidType::kB:
      return "B";
    case BidType::kC:
      return "C";
    case BidType::kBaseline:
      return "baseline";
  }
  return "?";
}

double Preference(JobType job, BidType bid, int bid_nodes, int all_nodes, int bid_nodesets,
                  int all_nodesets) {
  Constants k = TableThree(job, bid);
  return 1.0 - k.k1 - k.k2 * bid_nodes / (all_nodes + 1.0) -
         k.k3 * bid_nodesets / (all_nodesets + 1.0);
}

std::vector<std::pair<int, int>> BestFit(const Job& job, std::span<const NodeFree> free) {
  const int n = static_cast<int>(free.size());
  struct Run {
    int first, last, ranks;
  };
  std::vector<Run> runs;
  for (int i = 0; i < n;) {
    if (!job.Eligible(free[i])) {
      ++i;
      continue;
    }
    Run r{i, i, 0};
    while (i < n && job.Eligible(free[i])) {
      r.ranks += job.Capacity(free[i]);
      r.last = i++;
    }
    runs.push_back(r);
  }
  const int want_nodes = job.type == JobType::kCores ? 0 : job.nodes;
  // Best fit: the run with the fewest ranks that holds the job in one window.
  int best = -1;
  for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
    if (runs[r].ranks < job.cpu) continue;
    if (want_nodes > runs[r].last - runs[r].first + 1) continue;
    bool fits = false;
    for (int i = runs[r].first; i <= runs[r].last && !fits; ++i)
      fits = WindowEnd(job, free, i, runs[r].last) >= 0;
    if (fits && (best < 0 || runs[r].ranks < runs[best].ranks)) best = r;
  }
  std::vector<int> nodes;
  if (best >= 0) {
    for (int i = runs[best].first; i <= runs[best].last; ++i) {
      int k = WindowEnd(job, free, i, runs[best].last);
      if (k >= 0) {
        nodes = Range(i, k);
        break;
      }
    }
  } else if (!job.contiguous) {
    // No run holds it: the largest runs together, node by node in order. A job that
    // asked for contiguity gets no best-fit bid at all rather than a fragmented one.
    std::vector<int> order(runs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return runs[a].ranks > runs[b].ranks; });
    int ranks = 0;
    for (int r : order) {
      for (int i = runs[r].first; i <= runs[r].last; ++i) {
        bool enough =
            want_nodes > 0 ? static_cast<int>(nodes.size()) == want_nodes : ranks >= job.cpu;
        if (enough) break;
        nodes.push_back(i);
        ranks += job.Capacity(free[i]);
      }
    }
    std::sort(nodes.begin(), nodes.end());
    if (want_nodes > 0 && static_cast<int>(nodes.size()) != want_nodes) return {};
    if (ranks < job.cpu) return {};
  }
  if (nodes.empty() || static_cast<int>(nodes.size()) > job.cpu) return {};
  // Ranks per node: one each (every chosen node is used), then fill in order.
  std::vector<std::pair<int, int>> shares;
  int left = job.cpu - static_cast<int>(nodes.size());
  for (int i : nodes) {
    int extra = std::min(left, job.Capacity(free[i]) - 1);
    if (job.type == JobType::kNodesPerNode) extra = job.cpn - 1;
    shares.push_back({i, 1 + extra});
    left -= extra;
  }
  if (job.type != JobType::kNodesPerNode && left > 0) return {};
  return shares;
}

void Take(const Job& job, const std::vector<std::pair<int, int>>& shares,
          std::vector<NodeFree>& free) {
  for (const auto& [i, ranks] : shares) {
    free[i].cores -= ranks * job.threads;
    free[i].gpus -= job.gpus;
  }
}

std::vector<Bid> GenerateBids(std::span<const Job> jobs, std::span<const NodeFree> free,
                              const BidLimits& limits) {
  const int all_nodes = static_cast<int>(free.size());
  const std::vector<Nodeset> nodesets = MakeNodesets(free);
  const int all_nodesets = static_cast<int>(nodesets.size());
  std::vector<int> touched(all_nodes, 0);  // bids so far that include each node
  std::vector<NodeFree> after_baseline(free.begin(), free.end());
  std::vector<Bid> out;

  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    if (static_cast<int>(out.size()) >= limits.max_total) break;
    Job job = jobs[j];
    if (limits.contiguous_only) job.contiguous = true;
    std::vector<Bid> mine;
    std::set<std::pair<std::vector<int>, int>> seen;
    auto add = [&](BidType type, std::vector<int> nodes, int node_count, int sets) {
      if (nodes.empty() || !seen.insert({nodes, node_count}).second) return;
      Bid b;
      b.job = j;
      b.type = type;
      b.node_count = node_count;
      b.nodesets = sets;
      b.preference =
          Preference(job.type, type, static_cast<int>(nodes.size()), all_nodes, sets, all_nodesets);
      b.nodes = std::move(nodes);
      mine.push_back(std::move(b));
    };

    std::vector<const Nodeset*> level;
    for (const Nodeset& s : nodesets)
      if (s.gpus == job.gpus) level.push_back(&s);

    // A: aligned to a nodeset's start or end.
    for (const Nodeset* s : level) {
      int k = WindowEnd(job, free, s->first, s->last);
      if (k >= 0) add(BidType::kA, Range(s->first, k), k - s->first + 1, 1);
      int i = WindowStart(job, free, s->last, s->first);
      if (i >= 0) add(BidType::kA, Range(i, s->last), s->last - i + 1, 1);
    }
    // The best-fit ("SLURM") bid, after the aligned ones: equal preference, and a job
    // should rather take an aligned block than follow one-at-a-time best fit.
    int baseline_at = -1;
    if (limits.baseline) {
      auto shares = BestFit(job, after_baseline);
      if (!shares.empty()) {
        std::vector<int> nodes;
        nodes.reserve(shares.size());
        for (const auto& s : shares) nodes.push_back(s.first);
        int count = static_cast<int>(nodes.size());
        // When an aligned bid already asks for exactly these nodes, that bid is the
        // baseline bid (and gets its preference, 1).
        for (size_t i = 0; i < mine.size() && baseline_at < 0; ++i) {
          if (mine[i].nodes == nodes && mine[i].node_count == count) {
            mine[i].type = BidType::kBaseline;
            mine[i].preference = 1.0;
            baseline_at = static_cast<int>(i);
          }
        }
        if (baseline_at < 0) {
          baseline_at = static_cast<int>(mine.size());
          add(BidType::kBaseline, std::move(nodes), count, 1);
        }
        Take(job, shares, after_baseline);
      }
    }

    // B: windows inside a nodeset, the least contended first.
    struct Window {
      int first, last;
      long contention;
    };
    std::vector<Window> inner;
    for (const Nodeset* s : level) {
      for (int i = s->first + 1; i <= s->last; ++i) {
        int k = WindowEnd(job, free, i, s->last - 1);
        if (k < 0) continue;
        long c = 0;
        for (int n = i; n <= k; ++n) c += touched[n];
        inner.push_back(Window{i, k, c});
      }
    }
    std::stable_sort(inner.begin(), inner.end(),
                     [](const Window& a, const Window& b) { return a.contention < b.contention; });
    for (const Window& w : inner) {
      if (static_cast<int>(mine.size()) >= limits.max_per_job) break;
      add(BidType::kB, Range(w.first, w.last), w.last - w.first + 1, 1);
    }
    // C: a nodeset joined with its next neighbours until the union holds the job.
    if (!job.contiguous) {
      for (size_t s = 0; s < level.size(); ++s) {
        std::vector<int> nodes;
        int ranks = 0, sets = 0;
        for (size_t t = s; t < level.size(); ++t) {
          for (int n = level[t]->first; n <= level[t]->last; ++n) {
            if (!job.Eligible(free[n])) continue;
            nodes.push_back(n);
            ranks += job.Capacity(free[n]);
          }
          ++sets;
          if (sets < 2) continue;
          const int count = static_cast<int>(nodes.size());
          if (job.type == JobType::kCores) {
            if (ranks >= job.cpu) {
              add(BidType::kC, nodes, std::min(count, job.cpu), sets);
              break;
            }
          } else if (count >= job.nodes && ranks >= job.cpu) {
            add(BidType::kC, nodes, job.nodes, sets);
            break;
          }
        }
      }
    }
    if (static_cast<int>(mine.size()) > limits.max_per_job) {
      // The cap never drops the baseline bid.
      if (baseline_at >= limits.max_per_job)
        std::swap(mine[limits.max_per_job - 1], mine[baseline_at]);
      mine.resize(limits.max_per_job);
    }
    for (Bid& b : mine) {
      if (static_cast<int>(out.size()) >= limits.max_total) break;
      for (int n : b.nodes) ++touched[n];
      out.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace psched::sched::auction
