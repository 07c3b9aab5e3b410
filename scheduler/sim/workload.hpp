// Simulated jobs and the machine they run on: the input of one simulation.
//
// A job is a SessionRequest (what the daemon would get from psched-exec) plus
// what only a trace knows: the real runtime and, for replayed traces, the wait
// the production scheduler gave it.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "scheduler/model.hpp"

namespace psched::sim {

struct SimJob {
  sched::SessionRequest request;  // id, ranks, nodes/ppn, GPUs, contiguity, estimate, submit
  double runtime_s = 0;           // what the job really runs (its trace runtime)
  double logged_wait_s = -1;      // wait in the original trace; -1 unknown
  int user = -1;                  // trace user id; -1 unknown
};

// The largest machine psched-sim models, in PUs: the allocation spec's bound
// (65,536 nodes x 4,096 PUs), which also keeps every count of PUs inside an int.
inline constexpr long kMaxMachinePus = 65536L * 4096L;

// A homogeneous machine: `nodes` nodes of `cores_per_node` PUs and `gpus_per_node` GPUs.
// A reader that sizes one from its input checks it with CheckMachineSize.
struct Machine {
  int nodes = 0;
  int cores_per_node = 1;
  int gpus_per_node = 0;
  int TotalCores() const { return nodes * cores_per_node; }
};

// Trace records the reader left out, by reason (each record counted once, under the
// first reason that applies, in this order).
struct SkippedRecords {
  int no_runtime = 0;       // runtime <= 0: cancelled before it started
  int no_processors = 0;    // neither an allocated nor a requested processor count
  int too_wide = 0;         // more cores than the machine has
  int below_min_cores = 0;  // fewer cores than asked for (SwfOptions::min_cores)
  int Total() const { return no_runtime + no_processors + too_wide + below_min_cores; }
};

struct Workload {
  std::string name;
  Machine machine;
  std::vector<SimJob> jobs;  // ascending submit time, ids unique
  SkippedRecords skipped;    // trace records left out (see the reader for why)
};

// Nodes with ids 0..nodes-1 in node-array order (contiguity is measured on these ids).
std::vector<sched::Node> MakeNodes(const Machine& machine);

// "<what>: N nodes x C PUs is more than psched-sim models (...)" when the machine is larger
// than kMaxMachinePus, so that TotalCores cannot overflow and MakeNodes is not asked for
// billions of slots.
Result<void> CheckMachineSize(const Machine& machine, const std::string& what);

// "u<id>": the owner name of a simulated user (priority modules keep history per owner).
std::string OwnerName(long id);

// Work of the workload in core-seconds: sum of runtime x cores.
double TotalWork(const Workload& workload);

}  // namespace psched::sim
