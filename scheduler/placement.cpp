#include "scheduler/placement.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

#include "scheduler/node_shares.hpp"

namespace psched::sched {

namespace {

// A node as this placement sees it: the use counts it started with plus the
// slots it has already handed to earlier ranks of the same request. The counts are
// copied only once a rank lands here: most nodes a placement looks at stay untouched.
struct NodeWork {
  const Node* node;
  std::vector<int> own;  // empty until the first rank lands here
  int ranks_placed = 0;

  int Use(int pu) const { return own.empty() ? node->uses[pu] : own[pu]; }
  void Take(int pu) {
    if (own.empty()) own = node->uses;
    ++own[pu];
  }
};

bool Usable(const NodeWork& w, int pu, int max_uses) {
  return w.Use(pu) <= max_uses;
}

// The T least-used usable PUs of the first group (core, then package, then node)
// that has T of them, in logical order: a rank's threads stay neighbours.
// `usable` is scratch memory (no state).
std::optional<std::vector<int>> TakeSlots(NodeWork& w, int threads, int max_uses,
                                          std::vector<int>& usable) {
  const auto& pus = w.node->topology.pus;
  const int n = static_cast<int>(pus.size());
  auto try_groups = [&](auto group_of) -> std::optional<std::vector<int>> {
    int begin = 0;
    while (begin < n) {
      int end = begin;
      while (end < n && group_of(pus[end]) == group_of(pus[begin])) ++end;
      usable.clear();
      for (int pu = begin; pu < end; ++pu)
        if (Usable(w, pu, max_uses)) usable.push_back(pu);
      if (static_cast<int>(usable.size()) >= threads) {
        // Least used first, logical order among equals (a stable insertion sort: groups
        // are small, and free-slot placements are already in order).
        for (size_t i = 1; i < usable.size(); ++i) {
          const int pu = usable[i];
          size_t j = i;
          for (; j > 0 && w.Use(usable[j - 1]) > w.Use(pu); --j) usable[j] = usable[j - 1];
          usable[j] = pu;
        }
        std::vector<int> taken(usable.begin(), usable.begin() + threads);
        std::sort(taken.begin(), taken.end());
        for (int pu : taken) w.Take(pu);
        return taken;
      }
      begin = end;
    }
    return std::nullopt;
  };
  if (auto s = try_groups([](const Pu& p) { return p.core; })) return s;
  if (auto s = try_groups([](const Pu& p) { return p.package; })) return s;
  return try_groups([](const Pu&) { return 0; });
}

// How many more ranks of `threads` slots fit on this node at `max_uses`.
int RankCapacity(const NodeWork& w, int threads, int max_uses, std::vector<int>& scratch) {
  if (threads == 1) {
    // Each rank takes one least-used usable slot: a slot used u times takes max_uses + 1 - u.
    int count = 0;
    for (int pu = 0; pu < w.node->topology.NumPus(); ++pu)
      if (w.Use(pu) <= max_uses) count += max_uses + 1 - w.Use(pu);
    return count;
  }
  NodeWork copy = w;
  int count = 0;
  while (TakeSlots(copy, threads, max_uses, scratch)) ++count;
  return count;
}

bool PlaceOne(NodeWork& w, int rank, int threads, int max_uses, Placement& out,
              std::vector<int>& scratch) {
  auto slots = TakeSlots(w, threads, max_uses, scratch);
  if (!slots) return false;
  out.ranks.push_back(RankSlots{rank, w.node->id, std::move(*slots)});
  ++w.ranks_placed;
  return true;
}

// Places up to `count` more ranks on one node, least-used slots first: every slot of
// use 0 before any of use 1, and so on up to max_uses. Returns how many it placed.
int FillNode(NodeWork& w, int count, int& rank, int threads, int max_uses, Placement& out,
             std::vector<int>& scratch) {
  int placed = 0;
  for (int level = 0; level <= max_uses && placed < count; ++level)
    while (placed < count && PlaceOne(w, rank, threads, level, out, scratch)) ++rank, ++placed;
  return placed;
}

// Rank numbers in node order (a block distribution, as users expect) once ranks were
// placed in several passes.
void NumberRanksByNode(Placement& out) {
  std::stable_sort(out.ranks.begin(), out.ranks.end(),
                   [](const RankSlots& a, const RankSlots& b) { return a.node < b.node; });
  for (size_t i = 0; i < out.ranks.size(); ++i) out.ranks[i].rank = static_cast<int>(i);
}

// The nodes of a -N request under compact and each one's share (NodesAndShares), on `work`.
std::vector<std::pair<NodeWork*, int>> CompactNodesAndShares(std::vector<NodeWork>& work,
                                                             const SessionRequest& req, int threads,
                                                             int max_uses,
                                                             std::vector<int>& scratch) {
  std::vector<int> room(work.size(), -1);  // ranks each node can take, computed on demand
  auto room_of = [&](size_t i) {
    if (room[i] < 0) {
      room[i] = RankCapacity(work[i], threads, max_uses, scratch);
      if (req.ppn > 0) room[i] = std::min(room[i], req.ppn);
    }
    return room[i];
  };
  std::vector<std::pair<NodeWork*, int>> shares;
  for (auto [i, share] : NodesAndShares(work.size(), room_of, req))
    shares.emplace_back(&work[i], share);
  return shares;
}

std::optional<Placement> PlaceCompact(std::vector<NodeWork>& work, const SessionRequest& req,
                                      int max_uses) {
  std::vector<int> scratch;
  Placement out;
  out.gpus_per_node = req.gpus_per_node;
  const int threads = std::max(1, req.threads_per_rank);
  int rank = 0;
  if (req.nodes > 0) {
    for (auto [w, share] : CompactNodesAndShares(work, req, threads, max_uses, scratch))
      if (FillNode(*w, share, rank, threads, max_uses, out, scratch) < share) return std::nullopt;
    if (rank < req.ranks) return std::nullopt;
    return out;
  }
  // Least-used slots first: the nodes in order at use 0, then again at use 1, ...
  for (int level = 0; level <= max_uses; ++level) {
    for (NodeWork& w : work) {
      while (rank < req.ranks && (req.ppn == 0 || w.ranks_placed < req.ppn) &&
             PlaceOne(w, rank, threads, level, out, scratch))
        ++rank;
      if (rank == req.ranks) {
        if (level > 0) NumberRanksByNode(out);
        return out;
      }
    }
  }
  return std::nullopt;
}

std::optional<Placement> PlaceSpread(std::vector<NodeWork>& work, const SessionRequest& req,
                                     int max_uses) {
  std::vector<int> scratch;
  Placement out;
  out.gpus_per_node = req.gpus_per_node;
  const int threads = std::max(1, req.threads_per_rank);
  if (req.nodes > 0) {
    // -N with spread: the N nodes with the most room.
    std::stable_sort(work.begin(), work.end(), [&](const NodeWork& a, const NodeWork& b) {
      return RankCapacity(a, threads, max_uses, scratch) >
             RankCapacity(b, threads, max_uses, scratch);
    });
    if (static_cast<int>(work.size()) > req.nodes) work.resize(req.nodes);
  }
  // Round robin over the nodes, least-used slots first: every round at use 0 until none
  // places a rank, then at use 1, ...
  int rank = 0;
  for (int level = 0; level <= max_uses && rank < req.ranks; ++level) {
    bool progress = true;
    while (rank < req.ranks && progress) {
      progress = false;
      for (NodeWork& w : work) {
        if (rank == req.ranks) break;
        if (req.ppn > 0 && w.ranks_placed >= req.ppn) continue;
        if (PlaceOne(w, rank, threads, level, out, scratch)) {
          ++rank;
          progress = true;
        }
      }
    }
  }
  if (rank < req.ranks) return std::nullopt;
  // -N is exact, as in compact: min(N, ranks) nodes, not fewer because some had no room.
  if (req.nodes > 0 && static_cast<int>(out.Nodes().size()) < std::min(req.nodes, req.ranks))
    return std::nullopt;
  NumberRanksByNode(out);
  return out;
}

std::optional<Placement> PlaceLayout(std::vector<NodeWork>& work, const SessionRequest& req,
                                     const PlaceOptions& options) {
  return options.layout == Layout::kSpread ? PlaceSpread(work, req, options.max_uses)
                                           : PlaceCompact(work, req, options.max_uses);
}

bool NeighbouringIds(const Placement& p) {
  std::vector<NodeId> ids = p.Nodes();
  return ids.empty() || ids.back() - ids.front() + 1 == static_cast<NodeId>(ids.size());
}

// A contiguous request lands on neighbouring node ids, each holding a rank. It is placed by
// the usual layout on one run of neighbouring nodes that can take a rank: compact tries the
// runs in node order (first fit), spread the longest first (most nodes). A -N request tries
// every window of exactly N nodes of a run; otherwise the layout gets the run from a
// start node to the run's end, and a later start is tried only when a quota left a gap.
std::optional<Placement> PlaceContiguous(std::vector<NodeWork>& work, const SessionRequest& req,
                                         const PlaceOptions& options) {
  std::sort(work.begin(), work.end(),
            [](const NodeWork& a, const NodeWork& b) { return a.node->id < b.node->id; });
  const int threads = std::max(1, req.threads_per_rank);
  std::vector<int> scratch;
  struct Run {
    size_t begin, end;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < work.size(); ++i) {
    if (RankCapacity(work[i], threads, options.max_uses, scratch) == 0) continue;
    if (runs.empty() || runs.back().end != i || work[i - 1].node->id + 1 != work[i].node->id)
      runs.push_back(Run{i, i});
    runs.back().end = i + 1;
  }
  if (options.layout == Layout::kSpread) {
    std::stable_sort(runs.begin(), runs.end(),
                     [](const Run& a, const Run& b) { return a.end - a.begin > b.end - b.begin; });
  }
  const size_t exact = req.nodes > 0 ? static_cast<size_t>(req.nodes) : 0;
  for (const Run& run : runs) {
    for (size_t start = run.begin; start < run.end; ++start) {
      const size_t end = exact > 0 ? start + exact : run.end;
      if (end > run.end) break;
      std::vector<NodeWork> part(work.begin() + static_cast<long>(start),
                                 work.begin() + static_cast<long>(end));
      std::optional<Placement> p = PlaceLayout(part, req, options);
      if (p && NeighbouringIds(*p)) return p;
      // Without -N a later start only has fewer nodes: if this one failed, so do they.
      if (!p && exact == 0) break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::pair<size_t, int>> NodesAndShares(size_t n,
                                                   const std::function<int(size_t)>& room_of,
                                                   const SessionRequest& req) {
  const size_t want = static_cast<size_t>(std::min(req.nodes, req.ranks));
  std::vector<size_t> chosen;
  int held = 0;
  // Usually the first nodes with room hold it.
  for (size_t i = 0; i < n && chosen.size() < want; ++i) {
    if (room_of(i) > 0) {
      chosen.push_back(i);
      held += room_of(i);
    }
  }
  if (chosen.size() < want) return {};
  if (held < req.ranks) {
    // Take node i when the best nodes after it can still hold what is left.
    chosen.clear();
    held = 0;
    for (size_t i = 0; i < n && chosen.size() < want; ++i) {
      if (room_of(i) == 0) continue;
      std::vector<int> later;
      for (size_t j = i + 1; j < n; ++j)
        if (room_of(j) > 0) later.push_back(room_of(j));
      const size_t more = want - chosen.size() - 1;
      if (later.size() < more) break;
      std::partial_sort(later.begin(), later.begin() + static_cast<long>(more), later.end(),
                        std::greater<>());
      const int best_after =
          std::accumulate(later.begin(), later.begin() + static_cast<long>(more), 0);
      if (held + room_of(i) + best_after < req.ranks) continue;
      chosen.push_back(i);
      held += room_of(i);
    }
    if (chosen.size() < want || held < req.ranks) return {};
  }
  // One rank per node in turn, skipping full ones: as even as the room allows.
  std::vector<std::pair<size_t, int>> shares;
  shares.reserve(chosen.size());
  for (size_t i : chosen) shares.emplace_back(i, 0);
  for (int left = req.ranks; left > 0;) {
    for (auto& [i, share] : shares) {
      if (left > 0 && share < room_of(i)) {
        ++share;
        --left;
      }
    }
  }
  return shares;
}

int UsablePus(const Node& node, int max_uses) {
  return static_cast<int>(
      std::count_if(node.uses.begin(), node.uses.end(), [&](int u) { return u <= max_uses; }));
}

std::optional<Placement> PlaceRanks(std::span<const Node> nodes, const SessionRequest& request,
                                    const PlaceOptions& options) {
  if (request.ranks <= 0) return std::nullopt;
  std::vector<NodeWork> work;
  auto consider = [&](const Node& n) {
    if (n.FreeGpus() >= request.gpus_per_node) work.push_back(NodeWork{&n, {}, 0});
  };
  if (options.candidate_nodes.empty()) {
    work.reserve(nodes.size());
    for (const Node& n : nodes) consider(n);
  } else {
    work.reserve(options.candidate_nodes.size());
    if (IdsFollowIndexes(nodes)) {
      for (NodeId id : options.candidate_nodes)
        if (const Node* n = FindNode(nodes, id)) consider(*n);
    } else {
      // Any other order: one hash of the ids rather than a scan per candidate.
      std::unordered_map<NodeId, const Node*> by_id;
      by_id.reserve(nodes.size());
      for (const Node& n : nodes) by_id.emplace(n.id, &n);
      for (NodeId id : options.candidate_nodes)
        if (auto it = by_id.find(id); it != by_id.end()) consider(*it->second);
    }
  }
  if (request.contiguous) return PlaceContiguous(work, request, options);
  return PlaceLayout(work, request, options);
}

std::optional<LeastUsedPlacement> PlaceOnLeastUsed(std::span<const Node> nodes,
                                                   const SessionRequest& request, Layout layout,
                                                   int max_level) {
  for (int level = 0; level <= max_level; ++level) {
    PlaceOptions options{layout, level, {}};
    if (auto p = PlaceRanks(nodes, request, options)) return LeastUsedPlacement{*p, level > 0};
  }
  return std::nullopt;
}

}  // namespace psched::sched
