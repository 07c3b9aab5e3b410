#include "scheduler/sim/best_fit.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "scheduler/placement.hpp"

namespace psched::sched {

namespace {

using Run = NodeRun;

// What a node with these free PUs and GPUs offers the job: ranks it can take (core
// requests), or 1/0 (node requests).
long Offer(int free_pus, int free_gpus, const SessionRequest& r, int threads, int per_node_quota) {
  if (free_gpus < r.gpus_per_node) return 0;
  long ranks = free_pus / threads;
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

// What the job needs (`need`) in its units, and the per-node quota of a -N request.
struct Need {
  int threads = 1, quota = 0;
  long need = 0;
  explicit Need(const SessionRequest& r) : threads(std::max(1, r.threads_per_rank)), need(r.ranks) {
    if (r.nodes > 0) {
      quota = r.ppn > 0 ? r.ppn : (r.ranks + r.nodes - 1) / r.nodes;
      need = r.nodes;
    }
  }
};

// Every node's offer and the runs of neighbouring nodes with one, in `s`; returns the
// sum of the offers. `free_of(i)`: node i's free PUs and free GPUs.
template <class FreeOf>
long Offers(int n, FreeOf free_of, const SessionRequest& r, const Need& need, BestFitScratch& s) {
  s.offer.assign(n, 0);
  s.runs.clear();
  long available = 0;
  for (int i = 0; i < n; ++i) {
    const auto [pus, gpus] = free_of(i);
    const long offer = Offer(pus, gpus, r, need.threads, need.quota);
    s.offer[i] = offer;
    available += offer;
    if (offer == 0) continue;
    if (s.runs.empty() || s.runs.back().end != i) s.runs.push_back(Run{i, i, 0});
    s.runs.back().end = i + 1;
    s.runs.back().total += offer;
  }
  return available;
}

// The smallest run that holds `need` (the first of equals), or nullptr.
const Run* SmallestHolding(const std::vector<Run>& runs, long need) {
  const Run* best = nullptr;
  for (const Run& run : runs)
    if (run.total >= need && (best == nullptr || run.total < best->total)) best = &run;
  return best;
}

// The biggest runs (equals in node order) until they hold `need`, or all of them; returned
// in node order, in `order`.
const std::vector<const Run*>& BiggestFirst(const std::vector<Run>& runs, long need,
                                            std::vector<const Run*>& order) {
  order.clear();
  for (const Run& run : runs) order.push_back(&run);
  std::stable_sort(order.begin(), order.end(),
                   [](const Run* a, const Run* b) { return a->total > b->total; });
  long taken = 0;
  size_t used = 0;
  while (used < order.size() && taken < need) taken += order[used++]->total;
  order.resize(used);
  std::sort(order.begin(), order.end(),
            [](const Run* a, const Run* b) { return a->begin < b->begin; });
  return order;
}

// The nodes best fit takes, ascending, into s.chosen: the smallest consecutive set that
// holds the whole job, its tightest window; or, when no set is big enough and the job need
// not be contiguous, the biggest sets first. False when contiguity leaves none.
bool ChooseNodes(const SessionRequest& r, long need, BestFitScratch& s) {
  s.chosen.clear();
  if (const Run* best = SmallestHolding(s.runs, need)) {
    const Window w = BestWindow(s.offer, *best, need);
    for (int i = w.begin; i < w.end; ++i) s.chosen.push_back(i);
    return true;
  }
  if (r.contiguous) return false;
  for (const Run* run : BiggestFirst(s.runs, need, s.order))
    for (int i = run->begin; i < run->end; ++i) s.chosen.push_back(i);
  return true;
}

// BestFitFits for both views of the nodes. `offers_reach(ranks)`: whether the nodes'
// offers to a request without -N or contiguity add up to `ranks`.
template <class OffersReach, class Place>
bool Fits(OffersReach offers_reach, Place place, int free_slots, const SessionRequest& request) {
  if (request.ranks <= 0) return false;
  // Which nodes a -N or contiguous request may take depends on more than counts.
  if (request.nodes > 0 || request.contiguous) return place();
  const int threads = std::max(1, request.threads_per_rank);
  // Every free slot takes a rank: PlaceBestFit places whenever the offers add up.
  if (threads == 1 && request.ppn == 0 && request.gpus_per_node == 0)
    return request.ranks <= free_slots;
  if (static_cast<long>(request.ranks) * threads > free_slots) return false;
  // Without -N or contiguity PlaceBestFit places exactly when the offers add up: on the
  // tightest run that holds the job, else on the biggest runs (see PlaceBestFit).
  return offers_reach(request.ranks);
}

// Whether the offers of nodes (`free_of(i)`) to `request` (no -N) add up to `ranks`.
template <class FreeOf>
bool OffersReach(int n, FreeOf free_of, const SessionRequest& request, long ranks) {
  const int threads = std::max(1, request.threads_per_rank);
  long available = 0;
  for (int i = 0; i < n; ++i) {
    const auto [pus, gpus] = free_of(i);
    available += Offer(pus, gpus, request, threads, 0);
    if (available >= ranks) return true;
  }
  return false;
}

// One-core nodes without GPUs and a request of one-thread ranks, not -N, without GPUs: every
// node with its core free offers one rank (--ppn caps nothing), so the runs of free nodes
// decide, read from the map's free-node bits.
bool UnitOffers(const sim::SlotMap& map, const SessionRequest& r) {
  return map.CoresPerNode() == 1 && map.GpusPerNode() == 0 && r.threads_per_rank <= 1 &&
         r.nodes == 0 && r.gpus_per_node == 0;
}

// PlaceBestFit for UnitOffers: the same choice, from the free runs alone.
std::optional<sim::SlotRuns> PlaceUnits(const sim::SlotMap& map, const SessionRequest& r,
                                        BestFitScratch& s) {
  const long need = r.ranks;
  if (map.FreeSlots() < need) return std::nullopt;
  s.runs.clear();
  map.ForEachFreeRun([&](int begin, int end) { s.runs.push_back(Run{begin, end, end - begin}); });
  sim::SlotRuns out;
  if (const Run* best = SmallestHolding(s.runs, need)) {
    // Every window of a run offers the same: the first is the tightest.
    out.Append(best->begin, best->begin + static_cast<int>(need), 1);
    return out;
  }
  if (r.contiguous) return std::nullopt;
  // The compact fill takes the chosen nodes in node order.
  long left = need;
  for (const Run* run : BiggestFirst(s.runs, need, s.order)) {
    const long k = std::min(left, run->total);
    out.Append(run->begin, run->begin + static_cast<int>(k), 1);
    left -= k;
  }
  return out;
}

std::pair<int, int> FreeOfNode(const Node& n) {
  return {UsablePus(n, 0), n.FreeGpus()};
}

}  // namespace

bool BestFitFits(std::span<const Node> nodes, int free_slots, const SessionRequest& request,
                 BestFitScratch* scratch) {
  auto free_of = [&](int i) { return FreeOfNode(nodes[i]); };
  return Fits(
      [&](long ranks) {
        return OffersReach(static_cast<int>(nodes.size()), free_of, request, ranks);
      },
      [&] { return PlaceBestFit(nodes, request, scratch).has_value(); }, free_slots, request);
}

bool BestFitFits(const sim::SlotMap& map, int free_slots, const SessionRequest& request,
                 BestFitScratch* scratch) {
  auto free_of = [&](int i) { return std::pair{map.FreeCount(i), map.FreeGpus(i)}; };
  return Fits(
      [&](long ranks) {
        // Every free node offers one rank: the offers add up to the free slots.
        if (UnitOffers(map, request)) return ranks <= map.FreeSlots();
        return OffersReach(map.NumNodes(), free_of, request, ranks);
      },
      [&] { return PlaceBestFit(map, request, scratch).has_value(); }, free_slots, request);
}

std::optional<Placement> PlaceBestFit(std::span<const Node> nodes, const SessionRequest& request,
                                      BestFitScratch* scratch) {
  if (request.ranks <= 0) return std::nullopt;
  BestFitScratch local;
  BestFitScratch& s = scratch != nullptr ? *scratch : local;
  const Need need(request);
  const int n = static_cast<int>(nodes.size());
  if (Offers(
          n, [&](int i) { return FreeOfNode(nodes[i]); }, request, need, s) < need.need)
    return std::nullopt;
  if (!ChooseNodes(request, need.need, s)) return std::nullopt;
  // PlaceRanks gets exactly the chosen nodes as its span (a candidate list would cost
  // candidates x nodes lookups), in node order, so its compact fill keeps them neighbours.
  std::optional<Placement> p;
  if (s.chosen.back() - s.chosen.front() + 1 == static_cast<int>(s.chosen.size())) {
    p = PlaceRanks(nodes.subspan(s.chosen.front(), s.chosen.size()), request);
  } else {
    std::vector<Node>& subset = s.subset;
    subset.resize(s.chosen.size());
    for (size_t k = 0; k < s.chosen.size(); ++k) subset[k] = nodes[s.chosen[k]];
    p = PlaceRanks(subset, request);
  }
  // The offers are per node; PlaceRanks knows cores and packages. Should they disagree,
  // any placement on the free slots beats refusing a job that fits.
  if (!p && !request.contiguous) p = PlaceRanks(nodes, request);
  return p;
}

std::optional<sim::SlotRuns> PlaceBestFit(const sim::SlotMap& map, const SessionRequest& request,
                                          BestFitScratch* scratch) {
  if (request.ranks <= 0) return std::nullopt;
  BestFitScratch local;
  BestFitScratch& s = scratch != nullptr ? *scratch : local;
  if (UnitOffers(map, request)) return PlaceUnits(map, request, s);
  const Need need(request);
  const int n = map.NumNodes();
  auto free_of = [&](int i) { return std::pair{map.FreeCount(i), map.FreeGpus(i)}; };
  if (Offers(n, free_of, request, need, s) < need.need) return std::nullopt;
  if (!ChooseNodes(request, need.need, s)) return std::nullopt;
  std::optional<sim::SlotRuns> p = sim::PlaceRanks(map, s.chosen, request);
  if (!p && !request.contiguous) {
    s.chosen.resize(n);
    for (int i = 0; i < n; ++i) s.chosen[i] = i;
    p = sim::PlaceRanks(map, s.chosen, request);
  }
  return p;
}

}  // namespace psched::sched
