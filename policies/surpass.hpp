// surpass: the most recent running sessions are suspended (every process of them,
// on every node) until the new session fits on the slots they free; they resume
// when it ends, in the reverse order. Nested surpass works: A suspended by B
// suspended by C; C ends, B resumes; B ends, A resumes.
#pragma once

#include "policies/policy.hpp"

namespace psched::policies {

class SurpassPolicy : public Policy {
 public:
  explicit SurpassPolicy(PolicyOptions options) : options_(options) {}
  std::string_view name() const override { return "surpass"; }
  sched::Plan OnArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                        const sched::Allocator& allocator) const override;
  sched::Plan OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                    const sched::Allocator& allocator) const override;

 private:
  PolicyOptions options_;
};

}  // namespace psched::policies
