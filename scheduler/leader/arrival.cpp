#include "scheduler/leader/arrival.hpp"

#include <cstdint>

namespace psched::sched::leader {

sched::Plan DecideArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                          const sched::Allocator& allocator, const policies::Policy* policy) {
  sched::Plan plan;
  auto reject = [&](std::string why) {
    plan.actions.push_back(sched::RejectAction{request.id, std::move(why)});
    return plan;
  };
  if (request.ranks <= 0) return reject("-n must be at least 1");
  if (request.threads_per_rank <= 0) return reject("-c must be at least 1");
  int nodes = static_cast<int>(snapshot.nodes.size());
  if (request.nodes > nodes) {
    return reject("-N " + std::to_string(request.nodes) + " asks for more nodes than the " +
                  std::to_string(nodes) + " of this allocation");
  }
  // In 64 bits: both factors come from the launcher, and their int product can overflow
  // (-n 65536 -c 65536) into a small or negative need.
  const int64_t need = int64_t{request.ranks} * request.threads_per_rank;
  int total = snapshot.TotalPus();
  // A policy says itself why a session wider than the allocation cannot run (overbook
  // runs it on shared slots, as mpirun --oversubscribe, where the admin allows).
  if (need > total && (policy == nullptr || need > int64_t{INT32_MAX})) {
    return reject("session needs " + std::to_string(need) + " slots (" +
                  std::to_string(request.ranks) + " ranks x " +
                  std::to_string(request.threads_per_rank) + " threads) but the allocation has " +
                  std::to_string(total) + " slots in all");
  }
  if (policy != nullptr) return policy->OnArrival(snapshot, request, allocator);
  if (auto placement = allocator.PlaceOne(snapshot, request)) {
    plan.actions.push_back(sched::StartRanksAction{request.id, std::move(*placement)});
    return plan;
  }
  return reject("not enough free slots: session needs " + std::to_string(need) + " slots, " +
                std::to_string(snapshot.FreePus()) + " of " + std::to_string(total) +
                " are free (with -N/--ppn as given); choose a co-scheduling policy with "
                "--policy (wait, surpass, overbook, sidestep) to share or wait");
}

sched::Plan DecideEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                      const sched::Allocator& allocator, const policies::Policy* policy) {
  if (policy == nullptr) return {};
  return policy->OnEnd(snapshot, ended, allocator);
}

}  // namespace psched::sched::leader
