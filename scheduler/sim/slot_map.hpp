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
  void Append(int node, uint64_t pus);
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

  int NumNodes() const { return static_cast<int>(lo_.size()); }
  int FreeSlots() const { return free_; }
  // The free PUs of `node` (use count 0), as a mask.
  uint64_t FreePus(int node) const { return all_ & ~(lo_[node] | hi_[node]); }
  int FreeCount(int node) const { return std::popcount(FreePus(node)); }
  int FreeGpus(int node) const { return gpus_ - gpus_used_[node]; }

  // Adds `delta` (+1 or -1) uses to the slots and GPUs of `runs`. A slot counts up to 3
  // uses (jobs never share slots; a reservation laid over them is the second). Returns how
  // many more slots are free than before.
  int Add(const SlotRuns& runs, int delta);
  // How many of the slots of `runs` are free now.
  int FreeUnder(const SlotRuns& runs) const;

 private:
  uint64_t all_ = 0;               // the PUs a node has
  int gpus_ = 0;                   // GPUs a node has
  std::vector<uint64_t> lo_, hi_;  // per node and PU: a 2-bit use count
  std::vector<int> gpus_used_;
  int free_ = 0;
};

// Places `request` on these nodes (indexes into `map`, ascending) as sched::PlaceRanks does
// with its default options (compact, free slots only) on the same nodes: the same nodes and
// the same PUs. nullopt when it does not fit.
std::optional<SlotRuns> PlaceRanks(const SlotMap& map, std::span<const int> nodes,
                                   const sched::SessionRequest& request);

}  // namespace psched::sim
