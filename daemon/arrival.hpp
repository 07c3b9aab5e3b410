// The leader's one decision point for a new session, pure: snapshot + request +
// allocator in, plan out. Until the co-scheduling policies are wired in, a session
// that does not fit is rejected with how many slots are free; later this is where
// policies::Policy::OnArrival (and OnEnd in SessionEndPlan) plug in.
#pragma once

#include <string>

#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon {

sched::Plan DecideArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                          const sched::Allocator& allocator);

// What to do after `ended` was removed from the snapshot (nothing yet: no queue).
sched::Plan DecideEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                      const sched::Allocator& allocator);

}  // namespace psched::daemon
