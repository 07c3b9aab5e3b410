// The discrete-event simulator: a virtual clock over arrivals, job ends and scheduling
// rounds, driving the shared scheduler code (model, placement, allocators, priorities).
//
// Pure: no real clock, no files. The state is one Snapshot of the machine, to which the
// rounds' plans are applied with ApplyPlan; ended jobs leave with RemoveSession.
// Each Simulate() call owns all of its state, so simulations run in parallel threads.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/backfill.hpp"
#include "scheduler/priorities/priority.hpp"
#include "scheduler/sim/metrics.hpp"
#include "scheduler/sim/workload.hpp"

namespace psched::sim {

// One finished job of an owner, as priority modules see it (oldest first).
using OwnerJob = sched::prio::FinishedJob;

// A priority module's answer for a waiting session; higher goes first.
using PriorityFn = std::function<double(const sched::SessionRequest&,
                                        std::span<const OwnerJob> owner_history, double now)>;

enum class Discipline {
  kFcfs,       // ScheduleQueue without backfilling
  kEasy,       // ScheduleQueue with EASY backfilling
  kAllocator,  // a registry allocator decides over a window of the queue (auction, ipwindow, ...)
};

struct SimSetup {
  std::string name;  // the scheduler's name in tables, e.g. "easy/psp+aging"
  Discipline discipline = Discipline::kEasy;
  sched::NodeSelector select;  // kFcfs, kEasy: node selection (best fit)
  sched::NodeFits fits;        // kFcfs, kEasy: select's yes/no (optional)
  // kFcfs, kEasy: `select` is best fit (PlaceBestFit). The simulator then decides on its
  // slot counts (slot_map.hpp: the same nodes, no rank lists) when the machine's nodes
  // have at most SlotMap::kMaxCores cores, and calls `select` and `fits` only beyond that.
  bool best_fit = false;
  const sched::Allocator* allocator = nullptr;  // kAllocator
  int window = 100;                             // kAllocator: queued sessions per round
  // kFcfs, kEasy: queued sessions considered per round, from the head (SLURM's
  // bf_max_job_test, 50-100 in the SLURM of the auction paper); 0: the whole queue.
  int queue_depth = 0;
  PriorityFn priority;      // empty: first come, first served order
  int history_length = 10;  // finished jobs per owner kept for `priority`
  double interval_s = 0;    // rounds on this grid after events; 0: at every event
  // The priority changes while jobs wait (PriorityModule::Ages): with interval_s > 0,
  // rounds go on every interval while the queue is not empty, as in the daemon.
  bool priority_ages = false;
  // Called now and then with (jobs finished, jobs in all) for progress lines; may be empty.
  std::function<void(int, int)> progress;
};

struct SimResult {
  std::vector<JobRecord> records;  // in workload order
  Summary summary;
};

Result<SimResult> Simulate(const Workload& workload, const SimSetup& setup);

}  // namespace psched::sim
