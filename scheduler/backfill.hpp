// Starting queued sessions: FCFS, or EASY backfilling. The one implementation both the
// daemon's queueing policies (policies/queue.cpp) and the simulator (psched-sim) use.
//
// One rule (backfill_rule.hpp), parameterised by the reservation depth as flux-sched does
// it, and by where a session goes (NodeSelector: the admin's allocator in the daemon;
// the simulator runs the same rule on its slot counts, scheduler/sim/slot_map.hpp):
//  - kNone (FCFS): start sessions from the head while they fit; stop at the first that doesn't.
//  - kEasy: as FCFS, then reserve for the blocked head: release the sessions holding slots in
//    order of their estimated end (start + estimate; those ending together at once) on a
//    scratch copy of the nodes until the head fits; that time is the shadow time and that
//    placement the reservation. A later session starts now if it fits and either ends (by
//    its estimate) before the shadow time or stays off the reserved slots and GPUs.
//    Sessions without an estimate never end in time (they may still use unreserved slots);
//    a holder without one ends "never": a head that needs its slots has no known shadow
//    time, so later sessions must all stay off its reserved slots.
//    No backfill at all when no reservation can be made: a suspended session holds slots
//    it will return to at an unknown time, or the head does not fit even when every
//    holder has ended.
// Pure: reads the snapshot (nodes, sessions, now), returns the sessions to start and where.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "scheduler/allocator.hpp"
#include "scheduler/backfill_rule.hpp"
#include "scheduler/model.hpp"

namespace psched::sched {

// Where a session would go on the free slots (uses == 0) and GPUs of these nodes now,
// or nullopt. Must never place on a used slot, and must answer from the nodes and the
// request's ranks, threads_per_rank, nodes, ppn, gpus_per_node, spread, contiguous and
// priority only: ScheduleQueue does not ask twice for requests alike on unchanged nodes.
using NodeSelector =
    std::function<std::optional<Placement>(std::span<const Node>, const SessionRequest&)>;

// Whether the NodeSelector would place the request on these nodes now, answered without
// building the placement (rank lists are built only for sessions that start).
// `free_slots`: the slots with uses == 0 on `nodes`. Must agree exactly with the selector
// it goes with: ScheduleQueue then calls the selector only for what starts or is reserved.
using NodeFits = std::function<bool(std::span<const Node>, int free_slots, const SessionRequest&)>;

// A NodeSelector asking `allocator` (PlaceOne), with the links of `snapshot` (netload
// weighs them). Holds references: `allocator` and `snapshot` must outlive it.
NodeSelector AllocatorSelector(const Allocator& allocator, const Snapshot& snapshot);

struct Reservation {
  SessionId session = kNoSession;
  double start = 0;  // the shadow time; infinity when it depends on a session without estimate
  // Where the head goes then. With a NodeFits given, only when a candidate had to be
  // checked beside it (else empty: the decision did not need it).
  Placement placement;
};

struct QueueDecision {
  std::vector<Assignment> starts;          // in the order they were decided
  std::optional<Reservation> reservation;  // EASY: the blocked head's, when a candidate needed it
};

// Memory ScheduleQueue may reuse from one call to the next (a simulator calls it millions
// of times). It carries no state between calls: its contents are overwritten each time.
struct QueueScratch {
  std::vector<Node> work;
  HoldersByEnd<Placement> running;  // EASY: holders by estimated end
};

// `queue`: waiting sessions, highest priority first. Sessions holding slots and their
// estimated ends come from snapshot.sessions (start_time + request.estimate_s; an estimate
// of 0 means unknown; an end already past counts as now). Slots counted in the snapshot's
// nodes but held by no such session (a suspended session's, see policies' ReservedView)
// stay taken throughout.
// `fits` (optional): the selector's NodeFits, so that requests that only need a yes or
// no (candidates that may not start, the head's shadow time) cost no placement.
QueueDecision ScheduleQueue(const Snapshot& snapshot, std::span<const SessionRequest> queue,
                            Backfill backfill, const NodeSelector& select,
                            QueueScratch* scratch = nullptr, const NodeFits& fits = {});

}  // namespace psched::sched
