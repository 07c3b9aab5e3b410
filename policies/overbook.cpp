#include "policies/overbook.hpp"

#include <string>

#include "policies/displace.hpp"
#include "policies/queue.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {
namespace {

constexpr int kMaxLevel = 64;                       // uses per slot overbooking goes up to
constexpr int kNeverOverbooked = kMaxLevel + 1000;  // a slot no level reaches

}  // namespace

sched::Plan OverbookPolicy::OnArrival(const sched::Snapshot& snapshot,
                                      const sched::SessionRequest& request,
                                      const sched::Allocator& allocator) const {
  if (auto why = NeverFits(snapshot, request, allocator))
    return sched::Plan{{sched::RejectAction{request.id, *why}}};
  sched::Snapshot view = ReservedView(snapshot);
  if (std::optional<sched::Placement> p = allocator.PlaceOne(view, request))
    return sched::Plan{{sched::SpawnAction{request.id, std::move(*p), false}}};
  // A sidestepper's slots are its own until it ends (model.hpp, `exclusive`): pinned ranks
  // stack on every other slot and never on those.
  if (options_.overbook_mode == OverbookMode::kPinned) {
    for (const auto& [node, pus] : ExclusiveSlots(snapshot)) {
      for (sched::Node& n : view.nodes) {
        if (n.id != node) continue;
        for (size_t pu = 0; pu < pus.size() && pu < n.uses.size(); ++pu)
          if (pus[pu]) n.uses[pu] = kNeverOverbooked;
      }
    }
  }
  const sched::Layout layout = LayoutFor(request, allocator);
  std::optional<sched::LeastUsedPlacement> least =
      sched::PlaceOnLeastUsed(view.nodes, request, layout, kMaxLevel);
  if (!least) {
    return sched::Plan{{sched::RejectAction{
        request.id, "overbook: no placement even on the least-used slots (over " +
                        std::to_string(kMaxLevel) +
                        " uses each, or held exclusively by a sidestepping session)"}}};
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
