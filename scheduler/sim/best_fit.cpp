#include "scheduler/sim/best_fit.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "scheduler/placement.hpp"

namespace psched::sched {

namespace {

using Run = NodeRun;

// What node `n` offers the job: ranks it can take (core requests), or 1/0 (node requests).
long Offer(const Node& n, const SessionRequest& r, int threads, int per_node_quota) {
  if (n.FreeGpus() < r.gpus_per_node) return 0;
  long ranks = UsablePus(n, 0) / threads;
  if (r.nodes > 0) return ranks >= per_node_quota ? 1 : 0;
  if (r.ppn > 0) ranks = std::min<long>(ranks, r.ppn);
  return ranks;
}

// The window of `run` with the least waste that still offers `need`: [begin, end).
struct Window {
  int begin = 0, end = 0;
  long waste = std::numeric_limits<long>::max();
};
Window BestWindow(const std::vector<long>& offer, const Run& run, long need) {
  Window best;
  long sum = 0;
  int lo = run.begin;
  for (int hi = run.begin; hi < run.end; ++hi) {
    sum += offer[hi];
    // Shrink from the left while the window still holds the job: the minimal window ending at hi.
    while (lo < hi && sum - offer[lo] >= need) sum -= offer[lo++];
    if (sum >= need) {
      long waste = sum - need;
      if (waste < best.waste || (waste == best.waste && hi + 1 - lo < best.end - best.begin))
        best = Window{lo, hi + 1, waste};
    }
  }
  return best;
}

}  // namespace

bool BestFitFits(std::span<const Node> nodes, int free_slots, const SessionRequest& request,
                 BestFitScratch* scratch) {
  if (request.ranks <= 0) return false;
  // Which nodes a -N or contiguous request may take depends on more than counts.
  if (request.nodes > 0 || request.contiguous)
    return PlaceBestFit(nodes, request, scratch).has_value();
  const int threads = std::max(1, request.threads_per_rank);
  // Every free slot takes a rank: PlaceBestFit places whenever the offers add up.
  if (threads == 1 && request.ppn == 0 && request.gpus_per_node == 0)
    return request.ranks <= free_slots;
  if (static_cast<long>(request.ranks) * threads > free_slots) return false;
  // Without -N or contiguity PlaceBestFit places exactly when the offers add up: on the
  // tightest run that holds the job, else on the biggest runs (see PlaceBestFit).
  long available = 0;
  for (const Node& n : nodes) {
    available += Offer(n, request, threads, 0);
    if (available >= request.ranks) return true;
  }
  return false;
}

std::optional<Placement> PlaceBestFit(std::span<const Node> nodes, const SessionRequest& request,
                                      BestFitScratch* scratch) {
  if (request.ranks <= 0) return std::nullopt;
  BestFitScratch local;
  BestFitScratch& s = scratch != nullptr ? *scratch : local;
  const int threads = std::max(1, request.threads_per_rank);
  int quota = 0;
  long need = request.ranks;
  if (request.nodes > 0) {
    quota = request.ppn > 0 ? request.ppn : (request.ranks + request.nodes - 1) / request.nodes;
    need = request.nodes;
  }
  const int n = static_cast<int>(nodes.size());
  std::vector<long>& offer = s.offer;
  offer.assign(n, 0);
  std::vector<Run>& runs = s.runs;
  runs.clear();
  long available = 0;
  for (int i = 0; i < n; ++i) {
    offer[i] = Offer(nodes[i], request, threads, quota);
    available += offer[i];
    if (offer[i] == 0) continue;
    if (runs.empty() || runs.back().end != i) runs.push_back(Run{i, i, 0});
    runs.back().end = i + 1;
    runs.back().total += offer[i];
  }
  if (available < need) return std::nullopt;

  // PlaceRanks gets exactly the chosen nodes as its span (a candidate list would cost
  // candidates x nodes lookups), in node order, so its compact fill keeps them neighbours.
  const Run* best = nullptr;
  for (const Run& run : runs)
    if (run.total >= need && (best == nullptr || run.total < best->total)) best = &run;
  std::optional<Placement> p;
  if (best != nullptr) {
    // Best fit: the smallest consecutive set that holds the whole job, its tightest window.
    Window w = BestWindow(offer, *best, need);
    p = PlaceRanks(nodes.subspan(w.begin, w.end - w.begin), request);
  } else {
    if (request.contiguous) return std::nullopt;
    // No set is big enough: the biggest sets first, as few fragments as possible.
    std::vector<const Run*> order;
    order.reserve(runs.size());
    for (const Run& run : runs) order.push_back(&run);
    std::stable_sort(order.begin(), order.end(),
                     [](const Run* a, const Run* b) { return a->total > b->total; });
    long taken = 0;
    std::vector<int> chosen;
    for (const Run* run : order) {
      for (int i = run->begin; i < run->end; ++i) chosen.push_back(i);
      taken += run->total;
      if (taken >= need) break;
    }
    std::sort(chosen.begin(), chosen.end());
    std::vector<Node>& subset = s.subset;
    subset.resize(chosen.size());
    for (size_t k = 0; k < chosen.size(); ++k) subset[k] = nodes[chosen[k]];
    p = PlaceRanks(subset, request);
  }
  // The offers are per node; PlaceRanks knows cores and packages. Should they disagree,
  // any placement on the free slots beats refusing a job that fits.
  if (!p && !request.contiguous) p = PlaceRanks(nodes, request);
  return p;
}

}  // namespace psched::sched
