#include "policies/overbook.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <sstream>
#include <string>

#include "policies/displace.hpp"
#include "policies/queue.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {
namespace {

constexpr int kMaxLevel = kMaxOverbookLevel;        // uses per slot overbooking goes up to
constexpr int kNeverOverbooked = kMaxLevel + 1000;  // a slot no level reaches

// Slots of `n` overbooking may use (not a sidestepper's) and the ranks they hold.
struct NodeLoad {
  size_t index = 0;
  int slots = 0;
  int64_t uses = 0;
};

NodeLoad LoadOf(const sched::Node& n, size_t index) {
  NodeLoad load{index, 0, 0};
  for (int u : n.uses) {
    if (u > kMaxLevel) continue;
    ++load.slots;
    load.uses += u;
  }
  return load;
}

// How many of `request`'s ranks each node takes when the session is wider than the
// allocation: one at a time to the node whose slots are least used (its ranks so far
// included), as mpirun --oversubscribe spreads the ranks beyond the slots evenly over the
// nodes. -N picks that many least-used nodes; --ppn caps each. Empty when they cannot
// hold them (--ppn too small, nodes too small for a rank's threads).
std::vector<int> SharesBeyond(const std::vector<sched::Node>& nodes,
                              const sched::SessionRequest& request) {
  const int threads = request.threads_per_rank;
  std::vector<NodeLoad> loads;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeLoad load = LoadOf(nodes[i], i);
    if (load.slots >= threads && nodes[i].FreeGpus() >= request.gpus_per_node)
      loads.push_back(load);
  }
  auto per_slot = [](const NodeLoad& l) { return static_cast<double>(l.uses) / l.slots; };
  if (request.nodes > 0) {
    if (loads.size() < static_cast<size_t>(request.nodes)) return {};
    std::stable_sort(loads.begin(), loads.end(), [&](const NodeLoad& a, const NodeLoad& b) {
      return per_slot(a) < per_slot(b);
    });
    loads.resize(static_cast<size_t>(request.nodes));
  }
  if (loads.empty()) return {};
  std::vector<int> shares(nodes.size(), 0);
  // Least used per slot first, then the lower node index: a deterministic even spread.
  auto later = [&](const NodeLoad& a, const NodeLoad& b) {
    const double ua = per_slot(a), ub = per_slot(b);
    return ua != ub ? ua > ub : a.index > b.index;
  };
  std::priority_queue<NodeLoad, std::vector<NodeLoad>, decltype(later)> next(later, loads);
  for (int rank = 0; rank < request.ranks; ++rank) {
    if (next.empty()) return {};  // every node at --ppn
    NodeLoad l = next.top();
    next.pop();
    ++shares[l.index];
    l.uses += threads;
    if (request.ppn == 0 || shares[l.index] < request.ppn) next.push(l);
  }
  return shares;
}

// Places a session wider than the allocation: each node's share of the ranks on its
// least-used slots (every slot once before any twice: round-robin), ranks numbered in
// node order. nullopt when it cannot (see SharesBeyond, or over kMaxLevel uses).
std::optional<sched::Placement> PlaceBeyond(const std::vector<sched::Node>& nodes,
                                            const sched::SessionRequest& request) {
  const std::vector<int> shares = SharesBeyond(nodes, request);
  if (shares.empty()) return std::nullopt;
  sched::Placement out;
  out.gpus_per_node = request.gpus_per_node;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (shares[i] == 0) continue;
    sched::SessionRequest part = request;
    part.ranks = shares[i];
    part.nodes = 0;
    part.ppn = 0;
    part.spread = false;
    part.contiguous = false;
    auto placed =
        sched::PlaceOnLeastUsed(std::span(&nodes[i], 1), part, sched::Layout::kCompact, kMaxLevel);
    if (!placed) return std::nullopt;
    for (sched::RankSlots& r : placed->placement.ranks) {
      r.rank = static_cast<int>(out.ranks.size());
      out.ranks.push_back(std::move(r));
    }
  }
  return out;
}

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

sched::Plan OverbookPolicy::OnArrival(const sched::Snapshot& snapshot,
                                      const sched::SessionRequest& request,
                                      const sched::Allocator& allocator) const {
  sched::Snapshot view = ReservedView(snapshot);
  // Wider than the allocation (or than the nodes -N/--ppn allow): shared slots or nothing.
  const std::optional<std::string> never =
      NeverFits(snapshot, request, allocator, /*suggest_overbook=*/false);
  const bool wider = never.has_value();
  if (!wider) {
    if (std::optional<sched::Placement> p = allocator.PlaceOne(view, request))
      return sched::Plan{{sched::StartRanksAction{request.id, std::move(*p), false}}};
  }
  // A sidestepper's slots are its own until it ends (model.hpp, `exclusive`): pinned ranks
  // stack on every other slot and never on those.
  if (options_.overbook_mode == OverbookMode::kPinned) {
    for (const auto& [node, pus] : ExclusiveSlots(snapshot)) {
      for (sched::Node& n : view.nodes) {
        if (n.id != node) continue;
        for (size_t pu = 0; pu < pus.size() && pu < n.uses.size(); ++pu)
          if (pus[pu]) n.uses[pu] = kNeverOverbooked;
      }
    }
  }
  const bool floating = options_.overbook_mode == OverbookMode::kFloat;
  if (wider) {
    // As mpirun --oversubscribe: every slot takes several of its ranks, unless the admin
    // caps how far (max_overbook_factor; 1 forbids it).
    const int64_t need = request.SlotsNeeded();
    const int total = snapshot.TotalPus();
    const std::string sizes = "session needs " + std::to_string(need) + " slots (" +
                              std::to_string(request.ranks) + " ranks x " +
                              std::to_string(request.threads_per_rank) +
                              " threads), the allocation has " + std::to_string(total);
    if (static_cast<double>(need) > options_.max_overbook_factor * total) {
      return sched::Plan{{sched::RejectAction{
          request.id, "overbook: " + sizes + ", and the admin allows at most " +
                          Number(options_.max_overbook_factor) +
                          " times that (max_overbook_factor in the config)"}}};
    }
    std::optional<sched::Placement> p = PlaceBeyond(view.nodes, request);
    if (!p) {
      return sched::Plan{{sched::RejectAction{
          request.id, "overbook: " + *never + "; nor can its ranks share slots as asked (-N, " +
                          "--ppn, GPUs, or over " + std::to_string(kMaxLevel) + " uses a slot)"}}};
    }
    sched::StartRanksAction start{request.id, std::move(*p), floating};
    start.overbooked = true;
    return sched::Plan{{std::move(start)}};
  }
  const sched::Layout layout = LayoutFor(request, allocator);
  std::optional<sched::LeastUsedPlacement> least =
      sched::PlaceOnLeastUsed(view.nodes, request, layout, kMaxLevel);
  if (!least) {
    return sched::Plan{{sched::RejectAction{
        request.id, "overbook: no placement even on the least-used slots (over " +
                        std::to_string(kMaxLevel) +
                        " uses each, or held exclusively by a sidestepping session)"}}};
  }
  sched::StartRanksAction start{request.id, std::move(least->placement), floating};
  start.overbooked = least->overbooked;
  return sched::Plan{{std::move(start)}};
}

sched::Plan OverbookPolicy::OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                                  const sched::Allocator& allocator) const {
  (void)ended;
  return EndPlan(snapshot, allocator, options_.backfill);
}

}  // namespace psched::policies
