// Queue disciplines over a priority-ordered queue: FCFS and EASY backfilling.
//
// One function, parameterised by the reservation depth as flux-sched does it:
//  - kNone (FCFS): start sessions from the head while they fit; stop at the first that doesn't.
//  - kEasy: as FCFS, then reserve for the blocked head: release running sessions in order
//    of their estimated end (start + estimate) on a scratch copy of the nodes until the head
//    fits; that time is the shadow time and that placement the reservation. A later
//    session starts now if it fits and either ends (by its estimate) before the shadow
//    time or stays off the reserved slots and GPUs.
// Pure: reads the snapshot (nodes, running sessions, now), returns the sessions to start and
// where. The daemon could run it as well as the simulator.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"

namespace psched::sched {

enum class Backfill { kNone, kEasy };

// Where a session would go on these nodes now, or nullopt (PlaceBestFit, or a PlaceRanks layout).
using NodeSelector =
    std::function<std::optional<Placement>(std::span<const Node>, const SessionRequest&)>;

struct Reservation {
  SessionId session = kNoSession;
  double start = 0;  // the shadow time
  Placement placement;
};

struct QueueDecision {
  std::vector<Assignment> starts;          // in the order they were decided
  std::optional<Reservation> reservation;  // EASY: the blocked head's
};

// Memory ScheduleQueue may reuse from one call to the next (a simulator calls it millions
// of times). It carries no state between calls: its contents are overwritten each time.
struct QueueScratch {
  std::vector<Node> work;
};

// `queue`: waiting sessions, highest priority first. Running sessions' estimated ends come
// from snapshot.sessions (start_time + request.estimate_s; an estimate of 0 means unknown,
// i.e. never; an end already past counts as now).
QueueDecision ScheduleQueue(const Snapshot& snapshot, std::span<const SessionRequest> queue,
                            Backfill backfill, const NodeSelector& select,
                            QueueScratch* scratch = nullptr);

}  // namespace psched::sched
