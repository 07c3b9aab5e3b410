// The simulator's machine as its scheduling rounds need it, without rank lists: per node,
// which PUs are taken (a bit each) and how many GPUs, and a job's slots as runs of
// neighbouring nodes holding the same PUs on each.
//
// It models MakeNodes' nodes only (one package of up to 64 single-PU cores, workload.hpp).
// There every PU is as good as another: a rank of T threads takes the T lowest free PUs of
// its node (sched::PlaceRanks' choice when no core holds T PUs and the package does), so a
// placement is decided by free counts, and where it lands is a PU mask per node.
// Pure: no clock, no files.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "scheduler/model.hpp"

namespace psched::sim {

// Nodes [begin, end), each holding the PUs of `pus`.
struct SlotRun {
  int begin = 0, end = 0;
  uint64_t pus = 0;
  bool operator==(const SlotRun&) const = default;
};

// Where a job's slots are: what sched::Placement says, less the rank numbering.
struct SlotRuns {
  std::vector<SlotRun> runs;  // ascending, disjoint
  int gpus_per_node = 0;      // GPUs held on every node of the runs
  int slots = 0;              // PUs held in all

  // Adds `pus` on `node` (above every node so far), joining the last run when it can.
  void Append(int node, uint64_t pus) { Append(node, node + 1, pus); }
  // The same on nodes [begin, end).
  void Append(int begin, int end, uint64_t pus);
  std::vector<sched::NodeId> Nodes() const;  // ascending
  bool operator==(const SlotRuns&) const = default;
};

class SlotMap {
 public:
  static constexpr int kMaxCores = 64;
  // Whether a machine of such nodes can be modelled (cores_per_node <= kMaxCores).
  static bool Models(int cores_per_node) {
    return cores_per_node > 0 && cores_per_node <= kMaxCores;
  }

  SlotMap(int nodes, int cores_per_node, int gpus_per_node);

  int NumNodes() const { return nodes_; }
  int CoresPerNode() const { return cores_; }
  int GpusPerNode() const { return gpus_; }
  int FreeSlots() const { return free_; }
  // The free PUs of `node` (use count 0), as a mask.
  uint64_t FreePus(int node) const {
    const long bit = static_cast<long>(node) * stride_;
    return (~(lo_[bit >> 6] | hi_[bit >> 6]) >> (bit & 63)) & all_;
  }
  int FreeCount(int node) const {
    return stride_ == 1 ? static_cast<int>(FreePus(node)) : free_count_[node];
  }
  int FreeGpus(int node) const { return gpus_ - gpus_used_[node]; }

  // Calls f(begin, end) for every run [begin, end) of neighbouring nodes with a free PU, in
  // node order: a word of the free-node bits at a time, so the cost follows the runs more
  // than the nodes.
  template <class F>
  void ForEachFreeRun(F f) const {
    for (int i = NextFree(0, true); i < NumNodes();) {
      const int end = NextFree(i, false);
      f(i, end);
      i = NextFree(end, true);
    }
  }

  // Adds `delta` (+1 or -1) uses to the slots and GPUs of `runs`. A slot counts up to 2
  // uses: jobs never share slots, and only the head's reservation is laid over them.
  // Returns how many more slots are free than before. A word of the use bits at a time:
  // on one-core nodes without GPUs, 64 nodes per step.
  int Add(const SlotRuns& runs, int delta);
  // How many of the slots of `runs` are free now.
  int FreeUnder(const SlotRuns& runs) const;

 private:
  // Word `w` of the free-node bits (a bit per node: it has a free PU).
  uint64_t FreeNodes(int w) const { return stride_ == 1 ? ~(lo_[w] | hi_[w]) : free_nodes_[w]; }
  // The first node from `from` on that has a free PU (`free`) or has none; NumNodes() if none.
  int NextFree(int from, bool free) const {
    const int words = (nodes_ + 63) / 64;
    int w = from >> 6;
    if (w >= words) return NumNodes();
    uint64_t bits = (free ? FreeNodes(w) : ~FreeNodes(w)) & (~uint64_t{0} << (from & 63));
    while (bits == 0) {
      if (++w == words) return NumNodes();
      bits = free ? FreeNodes(w) : ~FreeNodes(w);
    }
    return std::min(NumNodes(), w * 64 + std::countr_zero(bits));
  }
  // `pus` in every node's place of a word.
  uint64_t EveryNode(uint64_t pus) const;

  int nodes_ = 0;
  int cores_ = 0;
  int gpus_ = 0;      // GPUs a node has
  uint64_t all_ = 0;  // the PUs a node has
  int stride_ = 1;    // bits per node in the use planes: cores, rounded up to a power of two
  // Two bit planes over (node, PU), node i's PU j at bit i * stride_ + j: a 2-bit use count.
  std::vector<uint64_t> lo_, hi_;
  std::vector<int> free_count_;       // more than one core: per node, its free PUs
  std::vector<uint64_t> free_nodes_;  // more than one core: a bit per node, it has a free PU
  std::vector<int> gpus_used_;
  int free_ = 0;
};

// Places `request` on these nodes (indexes into `map`, ascending) as sched::PlaceRanks does
// with its default options (compact, free slots only) on the same nodes: the same nodes and
// the same PUs. nullopt when it does not fit.
std::optional<SlotRuns> PlaceRanks(const SlotMap& map, std::span<const int> nodes,
                                   const sched::SessionRequest& request);

}  // namespace psched::sim
