#include "scheduler/allocators/auction/job.hpp"

#include <algorithm>
#include <cmath>

namespace psched::sched::auction {

std::vector<Job> JobsOf(std::span<const SessionRequest> window) {
  // Unset (<= 0) or saturated (+inf, psp+aging after a long wait) priorities cannot be
  // objective weights: inf * 0 makes the objective NaN. The window is in priority order.
  bool all_usable = std::all_of(window.begin(), window.end(), [](const SessionRequest& r) {
    return r.priority > 0 && std::isfinite(r.priority);
  });
  std::vector<Job> jobs;
  for (size_t i = 0; i < window.size(); ++i) {
    const SessionRequest& r = window[i];
    Job j;
    j.id = r.id;
    j.priority = all_usable ? r.priority : static_cast<double>(window.size() - i);
    j.cpu = std::max(1, r.ranks);
    j.threads = std::max(1, r.threads_per_rank);
    j.gpus = std::max(0, r.gpus_per_node);
    j.contiguous = r.contiguous;
    if (r.ppn > 0) {
      j.nodes = r.nodes > 0 ? r.nodes : (j.cpu + r.ppn - 1) / r.ppn;
      j.cpn = r.ppn;
      j.type = j.nodes * r.ppn == j.cpu ? JobType::kNodesPerNode : JobType::kNodesCores;
    } else if (r.nodes > 0) {
      j.nodes = r.nodes;
      j.type = JobType::kNodesCores;
    } else {
      j.type = JobType::kCores;
    }
    jobs.push_back(j);
  }
  return jobs;
}

}  // namespace psched::sched::auction
