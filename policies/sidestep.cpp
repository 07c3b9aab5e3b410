#include "policies/sidestep.hpp"

#include <algorithm>

#include "policies/displace.hpp"
#include "policies/queue.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {

using sched::Placement;
using sched::SessionId;
using sched::Snapshot;

namespace {

// Slots for the new session: distinct slots of use count at most `level`, never
// another sidestepper's, laid out as asked. The new session will hold them alone.
std::optional<Placement> ChooseSlots(const Snapshot& snapshot, const SlotMask& exclusive,
                                     const sched::SessionRequest& request, sched::Layout layout,
                                     int level) {
  std::vector<sched::Node> nodes = snapshot.nodes;
  for (sched::Node& n : nodes) {
    auto mask = exclusive.find(n.id);
    for (size_t pu = 0; pu < n.uses.size(); ++pu) {
      bool reserved = mask != exclusive.end() && mask->second[pu];
      n.uses[pu] = (reserved || n.uses[pu] > level) ? 1 : 0;
    }
  }
  return sched::PlaceRanks(nodes, request, sched::PlaceOptions{layout, 0, {}});
}

// Re-pins everyone off `slots` and spawns the new session there; nullopt when some
// node would have no slot left for the ranks it displaces.
std::optional<sched::Plan> SidestepOnto(const Snapshot& snapshot, const SlotMask& exclusive,
                                        const sched::SessionRequest& request,
                                        const Placement& slots) {
  SlotMask taken = exclusive;
  MarkSlots(taken, snapshot, slots);
  SlotMask mine;
  MarkSlots(mine, snapshot, slots);
  PlanBuilder builder(snapshot);
  std::vector<SessionId> affected;
  for (const sched::Session& s : snapshot.sessions)
    if (HoldsSlots(s) && Intersects(s.placement, mine)) affected.push_back(s.request.id);
  for (SessionId id : affected) {
    const sched::Session& s = *builder.work().Find(id);
    std::optional<Placement> moved = Displace(builder.work(), s, taken);
    if (!moved) return std::nullopt;
    builder.Add(sched::RepinAction{id, std::move(*moved), request.id});
  }
  sched::StartRanksAction start{request.id, slots, false};
  start.exclusive = true;
  builder.Add(std::move(start), &request);
  return builder.Take();
}

int MaxUses(const Snapshot& snapshot) {
  int most = 0;
  for (const sched::Node& n : snapshot.nodes)
    for (int u : n.uses) most = std::max(most, u);
  return most;
}

}  // namespace

sched::Plan SidestepPolicy::OnArrival(const Snapshot& snapshot,
                                      const sched::SessionRequest& request,
                                      const sched::Allocator& allocator) const {
  if (auto why = NeverFits(snapshot, request, allocator))
    return sched::Plan{{sched::RejectAction{request.id, *why}}};
  Snapshot view = ReservedView(snapshot);
  if (std::optional<Placement> p = allocator.PlaceOne(view, request))
    return sched::Plan{{sched::StartRanksAction{request.id, std::move(*p), false}}};

  const SlotMask exclusive = ExclusiveSlots(snapshot);
  const sched::Layout asked = LayoutFor(request, allocator);
  const sched::Layout other =
      asked == sched::Layout::kSpread ? sched::Layout::kCompact : sched::Layout::kSpread;
  // Least-used slots first; if a node would be left with no room for the ranks it
  // displaces, the other layout may still leave some.
  for (sched::Layout layout : {asked, other}) {
    for (int level = 0; level <= MaxUses(view); ++level) {
      std::optional<Placement> slots = ChooseSlots(view, exclusive, request, layout, level);
      if (!slots) continue;
      if (auto plan = SidestepOnto(snapshot, exclusive, request, *slots)) return std::move(*plan);
    }
  }
  return sched::Plan{{sched::RejectAction{
      request.id, "sidestep: no " + std::to_string(request.SlotsNeeded()) +
                      " slots can be given exclusively while leaving the ranks moved off them "
                      "a slot on their node"}}};
}

sched::Plan SidestepPolicy::OnEnd(const Snapshot& snapshot, const sched::Session& ended,
                                  const sched::Allocator& allocator) const {
  (void)ended;  // every sidestepped session is re-pinned as close to its original as allowed
  return EndPlan(snapshot, allocator, options_.backfill);
}

}  // namespace psched::policies
