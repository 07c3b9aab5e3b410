#include "policies/surpass.hpp"

#include <algorithm>

#include "policies/queue.hpp"

namespace psched::policies {

using sched::SessionId;
using sched::Snapshot;

namespace {

// Running sessions, most recent first: the order in which surpass suspends them.
std::vector<SessionId> MostRecentFirst(const Snapshot& snapshot) {
  std::vector<const sched::Session*> running;
  for (const sched::Session& s : snapshot.sessions)
    if (HoldsSlots(s)) running.push_back(&s);
  // Sessions are in arrival order; start time first, arrival order among equals.
  std::stable_sort(running.begin(), running.end(),
                   [](const sched::Session* a, const sched::Session* b) {
                     return a->start_time < b->start_time;
                   });
  std::vector<SessionId> ids;
  for (auto it = running.rbegin(); it != running.rend(); ++it) ids.push_back((*it)->request.id);
  return ids;
}

// The plan that suspends `victims` and starts `request`, if it then fits. With
// `respect_suspended`, slots of sessions suspended earlier stay reserved for them.
std::optional<sched::Plan> TrySuspending(const Snapshot& snapshot,
                                         const sched::SessionRequest& request,
                                         const std::vector<SessionId>& victims,
                                         const sched::Allocator& allocator,
                                         bool respect_suspended) {
  PlanBuilder builder(snapshot);
  for (SessionId v : victims) builder.Add(sched::SuspendAction{v, request.id});
  Snapshot view = respect_suspended ? ReservedView(builder.work(), request.id) : builder.work();
  std::optional<sched::Placement> p = allocator.PlaceOne(view, request);
  if (!p) return std::nullopt;
  builder.Add(sched::StartRanksAction{request.id, std::move(*p), false}, &request);
  return builder.Take();
}

}  // namespace

sched::Plan SurpassPolicy::OnArrival(const Snapshot& snapshot, const sched::SessionRequest& request,
                                     const sched::Allocator& allocator) const {
  if (auto why = NeverFits(snapshot, request, allocator))
    return sched::Plan{{sched::RejectAction{request.id, *why}}};
  const std::vector<SessionId> order = MostRecentFirst(snapshot);
  // First try to leave earlier-suspended sessions' slots alone; if even suspending
  // every running session is not enough that way, use those slots too.
  for (bool respect_suspended : {true, false}) {
    std::vector<SessionId> victims;
    std::optional<sched::Plan> plan =
        TrySuspending(snapshot, request, victims, allocator, respect_suspended);
    for (size_t i = 0; !plan && i < order.size(); ++i) {
      victims.push_back(order[i]);
      plan = TrySuspending(snapshot, request, victims, allocator, respect_suspended);
    }
    if (!plan) continue;
    // Spare the sessions that turned out unnecessary (a later, bigger one made room).
    for (size_t i = 0; i + 1 < victims.size();) {
      std::vector<SessionId> fewer = victims;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto smaller = TrySuspending(snapshot, request, fewer, allocator, respect_suspended)) {
        victims = std::move(fewer);
        plan = std::move(smaller);
      } else {
        ++i;
      }
    }
    return std::move(*plan);
  }
  return sched::Plan{{sched::RejectAction{
      request.id, "surpass: needs " + std::to_string(request.SlotsNeeded()) +
                      " slots and does not fit even with every running session suspended"}}};
}

sched::Plan SurpassPolicy::OnEnd(const Snapshot& snapshot, const sched::Session& ended,
                                 const sched::Allocator& allocator) const {
  (void)ended;  // those it suspended name it in displaced_by; it is gone from the snapshot
  return EndPlan(snapshot, allocator, options_.backfill);
}

}  // namespace psched::policies
