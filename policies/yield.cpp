#include "policies/yield.hpp"

#include "policies/displace.hpp"
#include "policies/plan_builder.hpp"
#include "policies/queue.hpp"

namespace psched::policies {

Yield YieldToConnect(const sched::Snapshot& snapshot, sched::SessionId connector,
                     sched::SessionId victim) {
  const sched::Session* v = snapshot.Find(victim);
  const sched::Session* c = snapshot.Find(connector);
  if (v == nullptr || c == nullptr || connector == victim) return {};
  if (v->state != sched::SessionState::kSuspended || v->displaced_by != connector) return {};
  if (!HoldsSlots(*c)) return {};
  const std::string who = "session " + std::to_string(victim);
  const std::string why = ": " + std::to_string(connector) + " connected to it";

  // Off the connector's slots and those other sidesteppers hold (or resume onto); slots
  // other surpassed sessions wait to resume on may be used meanwhile: the end plan
  // restores this one before it resumes them.
  SlotMask mask = ExclusiveSlots(snapshot, victim);
  MarkSlots(mask, snapshot, c->placement);
  PlanBuilder builder(snapshot);
  if (std::optional<sched::Placement> moved = Displace(snapshot, *v, mask)) {
    // Re-pinned while stopped, then resumed: its ranks never run on the connector's slots.
    builder.Add(sched::RepinAction{victim, std::move(*moved), connector});
    builder.Add(sched::ResumeAction{victim});
    return Yield{
        builder.Take(), false,
        who + " resumed, sidestepped by " + std::to_string(connector) + ", was surpassed" + why};
  }
  if (Intersects(v->placement, ExclusiveSlots(snapshot, victim))) {
    // Its own slots are another sidestepper's now: resuming there would break that one's
    // exclusivity. It waits for the connector's end, as before.
    return Yield{{},
                 false,
                 who + " stays suspended although " + std::to_string(connector) +
                     " connected to it: no slot outside the exclusive sessions' is left for it"};
  }
  builder.Add(sched::ResumeAction{victim});
  return Yield{builder.Take(), true,
               who + " resumed sharing " + std::to_string(connector) +
                   "'s slots (a node has no other slot for its ranks), was surpassed" + why};
}

}  // namespace psched::policies
