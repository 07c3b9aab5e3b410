// What every policy shares: the wait queue, the view new placements see, the
// reasons shown to users, and starting queued sessions once slots free up.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policies/plan_builder.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {

// Sessions that occupy slots now (running, overbooked, sidestepped).
bool HoldsSlots(const sched::Session& session);

// How to lay out ranks on slots that are not free (overbook, sidestep): spread when
// the session asked for it (--spread) or the admin's allocator is "spread".
sched::Layout LayoutFor(const sched::SessionRequest& request, const sched::Allocator& allocator);

// Queued sessions in the order they start: higher priority first, then arrival order.
std::vector<sched::SessionId> QueueOrder(const sched::Snapshot& snapshot);

// Queued sessions that go before `request` (a new arrival: ties go to those already queued).
int SessionsAhead(const sched::Snapshot& snapshot, const sched::SessionRequest& request);

// The snapshot as a new placement should see it: the slots and GPUs of suspended
// sessions count as taken, so that nobody settles where they must resume. Sessions
// suspended by `except_displacer` (when given) are not reserved (they make room for it).
sched::Snapshot ReservedView(const sched::Snapshot& snapshot,
                             sched::SessionId except_displacer = sched::kNoSession);

// Why `request` can never run in this allocation, even if it were empty; nullopt if it can.
// With `suggest_overbook`, a session wider than the allocation is told of --policy overbook.
std::optional<std::string> NeverFits(const sched::Snapshot& snapshot,
                                     const sched::SessionRequest& request,
                                     const sched::Allocator& allocator,
                                     bool suggest_overbook = true);

// "waits for 32 slots: 8 free, 2 sessions ahead, policy wait"
std::string WaitReason(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                       int ahead, std::string_view policy);

// Backfill for an arrival that has sessions ahead of it: its placement if it may start
// now without delaying `head` (the first of the queue), by sched::ScheduleQueue's EASY
// rule, or nullopt.
std::optional<sched::Placement> BackfillArrival(const sched::Snapshot& view,
                                                const sched::SessionRequest& head,
                                                const sched::SessionRequest& arrival,
                                                const sched::Allocator& allocator);

// Starts queued sessions that fit now, in queue order, stopping at the first that
// does not fit; with backfill, later ones that fit and do not delay it start too
// (sched::ScheduleQueue, the simulator's code, on the reserved view).
void StartQueued(PlanBuilder& builder, const sched::Allocator& allocator, bool backfill);

// The end of a session, for every policy: restore the pinning of sidestepped
// sessions, resume suspended sessions whose displacer is gone (when their slots
// are free), then start queued sessions.
sched::Plan EndPlan(const sched::Snapshot& snapshot, const sched::Allocator& allocator,
                    bool backfill);

}  // namespace psched::policies
