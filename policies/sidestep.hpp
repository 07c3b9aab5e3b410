// sidestep: the running sessions' ranks on the slots chosen for the new session are
// re-pinned onto the rest of their node (they share it), the new session gets its
// slots exclusively, and the old pinning comes back when it ends.
#pragma once

#include "policies/policy.hpp"

namespace psched::policies {

class SidestepPolicy : public Policy {
 public:
  explicit SidestepPolicy(PolicyOptions options) : options_(options) {}
  std::string_view name() const override { return "sidestep"; }
  sched::Plan OnArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                        const sched::Allocator& allocator) const override;
  sched::Plan OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                    const sched::Allocator& allocator) const override;

 private:
  PolicyOptions options_;
};

}  // namespace psched::policies
