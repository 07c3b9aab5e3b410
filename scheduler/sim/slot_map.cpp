#include "scheduler/sim/slot_map.hpp"

#include <algorithm>
#include <utility>

#include "scheduler/node_shares.hpp"

namespace psched::sim {

void SlotRuns::Append(int begin, int end, uint64_t pus) {
  if (!runs.empty() && runs.back().end == begin && runs.back().pus == pus) {
    runs.back().end = end;
  } else {
    runs.push_back(SlotRun{begin, end, pus});
  }
  slots += (end - begin) * (pus == 1 ? 1 : std::popcount(pus));
}

std::vector<sched::NodeId> SlotRuns::Nodes() const {
  std::vector<sched::NodeId> ids;
  for (const SlotRun& r : runs)
    for (int i = r.begin; i < r.end; ++i) ids.push_back(i);
  return ids;
}

namespace {

int PowerOfTwoAtLeast(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The bits [from, to) of word `w` of a bit array.
uint64_t RangeInWord(long from, long to, long w) {
  const long a = std::max(from, w * 64) - w * 64;
  const long b = std::min(to, w * 64 + 64) - w * 64;
  const uint64_t below_b = b == 64 ? ~uint64_t{0} : (uint64_t{1} << b) - 1;
  return below_b & (~uint64_t{0} << a);
}

}  // namespace

SlotMap::SlotMap(int nodes, int cores_per_node, int gpus_per_node)
    : nodes_(nodes),
      cores_(cores_per_node),
      gpus_(gpus_per_node),
      all_(cores_per_node >= kMaxCores ? ~uint64_t{0} : (uint64_t{1} << cores_per_node) - 1),
      stride_(PowerOfTwoAtLeast(cores_per_node)),
      lo_((static_cast<size_t>(nodes) * stride_ + 63) / 64, 0),
      hi_(lo_.size(), 0),
      free_count_(stride_ > 1 ? nodes : 0, cores_per_node),
      free_nodes_(stride_ > 1 ? (nodes + 63) / 64 : 0, 0),
      gpus_used_(nodes, 0),
      free_(nodes * cores_per_node) {
  for (int i = 0; i < nodes && stride_ > 1; ++i) free_nodes_[i >> 6] |= uint64_t{1} << (i & 63);
}

uint64_t SlotMap::EveryNode(uint64_t pus) const {
  if (stride_ == 64) return pus;
  uint64_t word = 0;
  for (int at = 0; at < 64; at += stride_) word |= pus << at;
  return word;
}

int SlotMap::Add(const SlotRuns& runs, int delta) {
  int freed = 0;
  for (const SlotRun& r : runs.runs) {
    const uint64_t pattern = EveryNode(r.pus);
    const long from = static_cast<long>(r.begin) * stride_, to = static_cast<long>(r.end) * stride_;
    for (long w = from >> 6; w * 64 < to; ++w) {
      const uint64_t m = pattern & RangeInWord(from, to, w);
      uint64_t& lo = lo_[w];
      uint64_t& hi = hi_[w];
      const uint64_t before = (lo | hi) & m;
      if (delta > 0) {
        hi |= lo & m;  // 1 -> 2
      } else {
        hi &= ~(~lo & m);  // 2 -> 1
      }
      lo ^= m;
      freed += std::popcount(before) - std::popcount((lo | hi) & m);
    }
    if (stride_ > 1) {
      for (int i = r.begin; i < r.end; ++i) {
        free_count_[i] = std::popcount(FreePus(i));
        const uint64_t bit = uint64_t{1} << (i & 63);
        free_nodes_[i >> 6] =
            free_count_[i] > 0 ? free_nodes_[i >> 6] | bit : free_nodes_[i >> 6] & ~bit;
      }
    }
    if (runs.gpus_per_node != 0)
      for (int i = r.begin; i < r.end; ++i) gpus_used_[i] += delta * runs.gpus_per_node;
  }
  free_ += freed;
  return freed;
}

int SlotMap::FreeUnder(const SlotRuns& runs) const {
  int free = 0;
  for (const SlotRun& r : runs.runs) {
    const uint64_t pattern = EveryNode(r.pus);
    const long from = static_cast<long>(r.begin) * stride_, to = static_cast<long>(r.end) * stride_;
    for (long w = from >> 6; w * 64 < to; ++w)
      free += std::popcount(~(lo_[w] | hi_[w]) & pattern & RangeInWord(from, to, w));
  }
  return free;
}

namespace {

// The `count` lowest PUs of `free`.
uint64_t Lowest(uint64_t free, int count) {
  uint64_t taken = 0;
  for (int k = 0; k < count; ++k) {
    const uint64_t bit = free & (~free + 1);
    taken |= bit;
    free ^= bit;
  }
  return taken;
}

struct Fill {
  const SlotMap& map;
  const sched::SessionRequest& req;
  int threads;

  int Room(int node) const {  // ranks the node can take (sched's RankCapacity, capped by --ppn)
    const int room = map.FreeCount(node) / threads;
    return req.ppn > 0 ? std::min(room, req.ppn) : room;
  }
  void Take(int node, int ranks, SlotRuns& out) const {
    out.Append(node, Lowest(map.FreePus(node), ranks * threads));
  }
};

// sched's PlaceCompact at use level 0 on `work`.
std::optional<SlotRuns> Compact(const Fill& f, std::span<const int> work) {
  SlotRuns out;
  out.gpus_per_node = f.req.gpus_per_node;
  if (f.req.nodes > 0) {
    const std::vector<std::pair<size_t, int>> shares = sched::NodesAndShares(
        work.size(), [&](size_t i) { return f.Room(work[i]); }, f.req);
    if (shares.empty()) return std::nullopt;
    for (auto [i, share] : shares) f.Take(work[i], share, out);
    return out;
  }
  int left = f.req.ranks;
  for (int node : work) {
    const int k = std::min(f.Room(node), left);
    if (k > 0) f.Take(node, k, out);
    left -= k;
    if (left == 0) return out;
  }
  return std::nullopt;
}

bool NeighbouringNodes(const SlotRuns& p) {
  if (p.runs.empty()) return true;
  int nodes = 0;
  for (const SlotRun& r : p.runs) nodes += r.end - r.begin;
  return p.runs.back().end - p.runs.front().begin == nodes;
}

// sched's PlaceContiguous with the compact layout, on `work` (ascending node indexes).
std::optional<SlotRuns> Contiguous(const Fill& f, std::span<const int> work) {
  struct Run {
    size_t begin, end;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < work.size(); ++i) {
    if (f.map.FreeCount(work[i]) / f.threads == 0) continue;
    if (runs.empty() || runs.back().end != i || work[i - 1] + 1 != work[i])
      runs.push_back(Run{i, i});
    runs.back().end = i + 1;
  }
  const size_t exact = f.req.nodes > 0 ? static_cast<size_t>(f.req.nodes) : 0;
  for (const Run& run : runs) {
    for (size_t start = run.begin; start < run.end; ++start) {
      const size_t end = exact > 0 ? start + exact : run.end;
      if (end > run.end) break;
      std::optional<SlotRuns> p = Compact(f, work.subspan(start, end - start));
      if (p && NeighbouringNodes(*p)) return p;
      if (!p && exact == 0) break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<SlotRuns> PlaceRanks(const SlotMap& map, std::span<const int> nodes,
                                   const sched::SessionRequest& request) {
  if (request.ranks <= 0) return std::nullopt;
  std::vector<int> work;
  work.reserve(nodes.size());
  for (int i : nodes)
    if (map.FreeGpus(i) >= request.gpus_per_node) work.push_back(i);
  const Fill f{map, request, std::max(1, request.threads_per_rank)};
  return request.contiguous ? Contiguous(f, work) : Compact(f, work);
}

}  // namespace psched::sim
