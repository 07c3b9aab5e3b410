// A session as an AUCSCHED job: its request in the paper's terms and its type.
#pragma once

#include <vector>

#include "scheduler/allocators/auction/nodesets.hpp"
#include "scheduler/model.hpp"

namespace psched::sched::auction {

// The paper's three job types (section 4).
enum class JobType {
  kCores = 1,         // only R^cpu (and, as an extension, GPUs per node)
  kNodesCores = 2,    // R^node, R^cpu, R^gpu
  kNodesPerNode = 3,  // R^node, R^cpn, R^gpu
};

// Counts are in ranks: a rank takes `threads` slots on one node, so a node with A
// free slots holds A / threads ranks of this job. With threads = 1 (the paper's
// jobs) ranks are cores.
struct Job {
  SessionId id = kNoSession;
  double priority = 1;  // P_j > 0
  JobType type = JobType::kCores;
  int cpu = 1;  // R^cpu
  int threads = 1;
  int nodes = 0;  // R^node (0 for type 1)
  int cpn = 0;    // R^cpn for type 3; for type 2 an optional per-node ceiling (--ppn)
  int gpus = 0;   // R^gpu per node
  bool contiguous = false;

  // Ranks node n can hold for this job (0 when it lacks GPUs).
  int Capacity(const NodeFree& n) const {
    if (n.gpus < gpus) return 0;
    int c = n.cores / threads;
    return cpn > 0 ? std::min(c, cpn) : c;
  }
  // Whether node n can be one of this job's nodes.
  bool Eligible(const NodeFree& n) const {
    int c = Capacity(n);
    return type == JobType::kNodesPerNode ? c >= cpn : c >= 1;
  }
};

// Sessions -> jobs: cores = ranks (x threads in slots), -N -> R^node, --ppn -> R^cpn,
// --gpus-per-node -> R^gpu, contiguous as asked. If any priority is <= 0 (unset) or
// not finite (saturated aging), all are replaced by window order (|J| - i): alpha =
// P_min / (|B| + 1) stays positive and the objective finite.
std::vector<Job> JobsOf(std::span<const SessionRequest> window);

}  // namespace psched::sched::auction
