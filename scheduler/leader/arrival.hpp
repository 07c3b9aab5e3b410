// The leader's one decision point for a new session, pure: snapshot + request +
// allocator in, plan out. Until the co-scheduling policies are wired in, a session
// that does not fit is rejected with how many slots are free; later this is where
// policies::Policy::OnArrival (and OnEnd in SessionEndPlan) plug in.
#pragma once

#include <string>

#include "policies/policy.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"

namespace psched::sched::leader {

// With a `policy`, a valid request that does not fit is the policy's call
// (Policy::OnArrival); without one it is rejected.
sched::Plan DecideArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                          const sched::Allocator& allocator,
                          const policies::Policy* policy = nullptr);

// What to do after `ended` was removed from the snapshot: the ended session's
// policy decides (Policy::OnEnd); without one, nothing.
sched::Plan DecideEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                      const sched::Allocator& allocator, const policies::Policy* policy = nullptr);

}  // namespace psched::sched::leader
