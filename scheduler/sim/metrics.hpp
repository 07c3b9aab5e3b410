// Per-job records and the papers' summary metrics, computed from them.
//
// Definitions (auction-scheduler-aucsched.txt 6.2, ip-scheduler-ipsched.txt 6, Feitelson):
//  - theoretical runtime: sum(runtime x cores) / machine cores;
//  - runtime (makespan): last end - first submission;  utilisation = theoretical / runtime;
//  - waiting time: start - submit;  slowdown ratio: (wait + runtime) / runtime;
//  - bounded slowdown: max(1, (wait + runtime) / max(runtime, tau)), tau = 10 s;
//  - fragmentation: contiguous node blocks a job got;
//  - spread: (last node - first node + 1) / nodes the job got;
//  - packing factor: nodes the job got / fewest nodes that could hold it
//    (its -N when it asked for nodes, else ceil(cores / cores per node)).
// Averages are over all jobs that ran; "± std" is the standard deviation over jobs.
#pragma once

#include <string>
#include <vector>

#include "scheduler/model.hpp"
#include "scheduler/sim/workload.hpp"

namespace psched::sim {

inline constexpr double kBoundedSlowdownTau = 10.0;

struct JobRecord {
  sched::SessionId id = sched::kNoSession;
  int user = -1;
  int cores = 0;
  int gpus_per_node = 0;
  int requested_nodes = 0;
  bool contiguous = false;
  double submit = 0, start = -1, end = -1;  // start -1: never ran (rejected)
  double runtime = 0, estimate = 0;
  double logged_wait = -1;
  int nodes_used = 0;
  int fragmentation = 0;
  double spread = 0;
  double packing = 0;

  bool Ran() const { return start >= 0; }
  double Wait() const { return start - submit; }
  double Slowdown() const { return (Wait() + runtime) / runtime; }
  double BoundedSlowdown() const;
};

// Blocks and spread of a set of node ids (any order, duplicates allowed).
struct NodeShape {
  int nodes = 0;
  int blocks = 0;
  double spread = 0;
};
NodeShape ShapeOf(std::vector<sched::NodeId> nodes);

struct Stat {
  double mean = 0, stddev = 0, median = 0, max = 0;
};
Stat StatOf(std::vector<double> values);

struct Summary {
  std::string workload, scheduler;
  int jobs = 0, rejected = 0;
  double theoretical_runtime_s = 0;
  double makespan_s = 0;
  double utilisation = 0;
  Stat wait_s, slowdown, bounded_slowdown, fragmentation, spread, packing;
  double logged_wait_mean_s = -1;  // the trace's own average wait, when it has one
  long rounds = 0;
  // Window allocators that solve integer programs (auction, ipwindow): rounds in which
  // CBC ran and those it ended at its time limit; -1 for schedulers without a solver.
  long solver_rounds = -1, solver_timeouts = -1;
};

Summary Summarise(const std::vector<JobRecord>& records, const Machine& machine);

// Busy cores over time, as (time, busy cores) steps, from the records that ran.
std::vector<std::pair<double, int>> BusyCoresOverTime(const std::vector<JobRecord>& records);

}  // namespace psched::sim
