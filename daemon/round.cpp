#include "daemon/round.hpp"

#include "policies/queue.hpp"

namespace psched::daemon {

Result<sched::Plan> RoundPlan(const sched::Snapshot& snapshot, AllocatorCache& allocators,
                              const std::string& default_allocator, bool backfill) {
  std::vector<sched::SessionId> queue = policies::QueueOrder(snapshot);
  if (queue.empty()) return sched::Plan{};
  const sched::Session* head = snapshot.Find(queue.front());
  std::string name =
      head && !head->request.allocator.empty() ? head->request.allocator : default_allocator;
  auto allocator = allocators.Get(name);
  if (!allocator) return Fail(allocator.error());
  if (name != "auction" && name != "ipwindow")
    return policies::EndPlan(snapshot, **allocator, backfill);
  std::vector<sched::SessionRequest> window;
  for (sched::SessionId id : queue)
    if (const sched::Session* s = snapshot.Find(id)) window.push_back(s->request);
  sched::Plan plan;
  for (sched::Assignment& a : (*allocator)->Allocate(snapshot, window)) {
    sched::SpawnAction spawn;
    spawn.session = a.session;
    spawn.placement = std::move(a.placement);
    plan.actions.push_back(std::move(spawn));
  }
  return plan;
}

}  // namespace psched::daemon
