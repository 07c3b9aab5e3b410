// Priority modules: how waiting sessions are ordered (higher priority goes first).
// One small interface, one file per module, built by name in priority_registry.hpp.
//
// Pure: a module sees the session, the owner's finished jobs and `now`, nothing else.
// The simulator and the daemon keep the history and call Priority() at every
// scheduling round; the allocators read SessionRequest::priority.
#pragma once

#include <span>
#include <string_view>

#include "scheduler/model.hpp"

namespace psched::sched::prio {

// One finished job of an owner, oldest first in a history.
struct FinishedJob {
  double requested_s = 0;  // the estimate given at submission (--time)
  double runtime_s = 0;    // what it really ran
};

class PriorityModule {
 public:
  virtual ~PriorityModule() = default;
  virtual std::string_view name() const = 0;
  // The priority of waiting session `request` at time `now` (same clock as
  // request.submit_time), given its owner's finished jobs, oldest first.
  // Always > 0, so the auction's alpha = P_min / (|B| + 1) stays meaningful.
  virtual double Priority(const SessionRequest& request, std::span<const FinishedJob> owner_history,
                          double now) const = 0;
  // Whether the order of waiting sessions can change with time alone (aging): then a
  // scheduler must run rounds while sessions wait, not only on arrivals and ends.
  virtual bool Ages() const { return false; }
};

}  // namespace psched::sched::prio
