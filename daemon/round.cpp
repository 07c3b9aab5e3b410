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
  return policies::EndPlan(snapshot, **allocator, backfill);
}

}  // namespace psched::daemon
