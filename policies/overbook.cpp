#include "policies/overbook.hpp"

#include "policies/queue.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {

sched::Plan OverbookPolicy::OnArrival(const sched::Snapshot& snapshot,
                                      const sched::SessionRequest& request,
                                      const sched::Allocator& allocator) const {
  if (auto why = NeverFits(snapshot, request, allocator))
    return sched::Plan{{sched::RejectAction{request.id, *why}}};
  sched::Snapshot view = ReservedView(snapshot);
  if (std::optional<sched::Placement> p = allocator.PlaceOne(view, request))
    return sched::Plan{{sched::SpawnAction{request.id, std::move(*p), false}}};
  const sched::Layout layout = LayoutFor(request, allocator);
  std::optional<sched::LeastUsedPlacement> least =
      sched::PlaceOnLeastUsed(view.nodes, request, layout);
  if (!least) {
    return sched::Plan{{sched::RejectAction{
        request.id, "overbook: no placement even on the least-used slots (over 64 uses each)"}}};
  }
  sched::SpawnAction spawn{request.id, std::move(least->placement),
                           options_.overbook_mode == OverbookMode::kFloat};
  spawn.overbooked = least->overbooked;
  return sched::Plan{{std::move(spawn)}};
}

sched::Plan OverbookPolicy::OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                                  const sched::Allocator& allocator) const {
  (void)ended;
  return EndPlan(snapshot, allocator, options_.backfill);
}

}  // namespace psched::policies
