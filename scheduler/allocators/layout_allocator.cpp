#include "scheduler/allocators/layout_allocator.hpp"

namespace psched::sched {

std::vector<Assignment> LayoutAllocator::Allocate(const Snapshot& snapshot,
                                                  std::span<const SessionRequest> window) const {
  std::vector<Assignment> out;
  Snapshot work = snapshot;  // later sessions of the window see the slots earlier ones took
  for (const SessionRequest& req : window) {
    // A session that asked for spread gets it whatever the allocator's own layout.
    Layout layout = req.spread ? Layout::kSpread : layout_;
    std::optional<Placement> p = PlaceRanks(work.nodes, req, PlaceOptions{layout, 0, {}});
    if (!p) break;
    Plan plan;
    plan.actions.push_back(StartRanksAction{req.id, *p, false});
    ApplyPlan(work, plan, &req);
    out.push_back(Assignment{req.id, std::move(*p)});
  }
  return out;
}

}  // namespace psched::sched
