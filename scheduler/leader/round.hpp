// The leader's periodic scheduling round, pure: besides arrivals and ends, every
// config round_interval_s the waiting sessions are offered to the allocator again
// (for auction and ipwindow the whole window at once), so sessions that queued
// behind a measurement or a solver time-out start without waiting for an event.
// The round also retries what a failed plan left undone: sessions still suspended
// or sidestepped by a session that has ended are resumed or restored then.
#pragma once

#include <string>

#include "common/error.hpp"
#include "scheduler/leader/allocators.hpp"
#include "scheduler/model.hpp"

namespace psched::sched::leader {

// The plan of one round. The allocator is the one the queue's head asked for (a
// window goes to one allocator), `default_allocator` when it named none. Window
// allocators (auction, ipwindow) get the whole queue in priority order and decide
// over it at once (Allocator::Allocate: a later session may start while the head
// still waits); the others run the queue pass every policy shares (in order, with
// backfill if configured). Displacements whose displacer is gone are undone first
// (policies::EndPlan). Empty when nothing waits and nothing is left to undo.
Result<sched::Plan> RoundPlan(const sched::Snapshot& snapshot, AllocatorCache& allocators,
                              const std::string& default_allocator, bool backfill);

// After a plan with node operations failed (rolled back): the queued sessions that
// can start without it, so that a node that keeps failing a resume or a restore
// does not hold back sessions that do not need it. Sessions left suspended or
// sidestepped keep the slots they return to reserved (they are resumed or
// restored there by a later round). Spawns only: nothing that can fail on a node.
Result<sched::Plan> QueuePlanWithoutUndo(const sched::Snapshot& snapshot,
                                         AllocatorCache& allocators,
                                         const std::string& default_allocator, bool backfill);

}  // namespace psched::sched::leader
