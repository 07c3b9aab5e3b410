// Best-fit node selection, SLURM's (select/linear, cons_res) as the papers' SLURM/BF baseline:
// nodes form consecutive sets (runs of neighbouring node ids with room for the job);
// the job goes to the smallest set that holds it, on its least-wasteful window,
// or, when no single set is big enough and the job need not be contiguous, to the
// biggest sets first. The ranks are then placed by the shared PlaceRanks on exactly
// those candidate nodes, so slots are chosen as everywhere else in psched.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "scheduler/model.hpp"
#include "scheduler/sim/slot_map.hpp"

namespace psched::sched {

// A run of neighbouring nodes with room for the job: node indexes [begin, end).
struct NodeRun {
  int begin = 0, end = 0;
  long total = 0;  // what the run offers, in the job's units (ranks, or nodes for -N jobs)
};

// Memory PlaceBestFit may reuse between calls; no state is carried from one call to the next.
struct BestFitScratch {
  std::vector<long> offer;
  std::vector<NodeRun> runs;
  std::vector<Node> subset;
  std::vector<int> chosen;            // node indexes
  std::vector<const NodeRun*> order;  // runs, biggest first
};

// nullopt when `request` does not fit on the free slots (uses == 0) and GPUs of `nodes` now.
// `nodes` in node-array order (contiguity is neighbourhood in this order).
std::optional<Placement> PlaceBestFit(std::span<const Node> nodes, const SessionRequest& request,
                                      BestFitScratch* scratch = nullptr);

// Exactly whether PlaceBestFit would place `request` (a NodeFits for ScheduleQueue), from
// free-slot counts: O(1) for a request of one-slot ranks that may go anywhere (the free
// slots are all that matter), one pass over the nodes' counts for threads, --ppn or GPUs,
// and PlaceBestFit itself for -N and contiguous requests. `free_slots`: the slots with
// uses == 0 on `nodes`.
bool BestFitFits(std::span<const Node> nodes, int free_slots, const SessionRequest& request,
                 BestFitScratch* scratch = nullptr);

// The same on the simulator's slot counts (its nodes: MakeNodes'): the same nodes and PUs,
// without rank lists.
std::optional<sim::SlotRuns> PlaceBestFit(const sim::SlotMap& map, const SessionRequest& request,
                                          BestFitScratch* scratch = nullptr);
bool BestFitFits(const sim::SlotMap& map, int free_slots, const SessionRequest& request,
                 BestFitScratch* scratch = nullptr);

}  // namespace psched::sched
