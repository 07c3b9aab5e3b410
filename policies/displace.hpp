// Sidestep's re-pinning: moving a session's ranks off slots reserved for others,
// and back again when those others end.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "policies/plan_builder.hpp"
#include "scheduler/model.hpp"

namespace psched::policies {

// Per node, per logical PU: true when the slot is reserved for someone else.
using SlotMask = std::map<sched::NodeId, std::vector<bool>>;

// Slots held by live exclusive (sidestepping) sessions, or reserved for those a surpass
// suspended, other than `except`.
SlotMask ExclusiveSlots(const sched::Snapshot& snapshot,
                        sched::SessionId except = sched::kNoSession);
void MarkSlots(SlotMask& mask, const sched::Snapshot& snapshot, const sched::Placement& placement);
bool Intersects(const sched::Placement& placement, const SlotMask& mask);

// The session's original pinning, with every slot in `mask` replaced by the
// least-used unmasked slot of the same node (counting the session's own ranks as
// they move): the displaced ranks share the rest of their node. nullopt when a
// node has no unmasked slot left for them.
std::optional<sched::Placement> Displace(const sched::Snapshot& snapshot,
                                         const sched::Session& session, const SlotMask& mask);

// Re-pins every sidestepped session to its original slots, or as close to them as
// the live exclusive sessions allow.
void RestoreSidestepped(PlanBuilder& builder);

}  // namespace psched::policies
