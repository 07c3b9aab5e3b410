// overbook: a session that does not fit on free slots goes onto the least-used
// slots anyway. Mode pinned binds each rank to its slots; mode float binds it to
// all of its node's allocation slots. Overbooked ranks get yield-when-idle.
#pragma once

#include "policies/policy.hpp"

namespace psched::policies {

class OverbookPolicy : public Policy {
 public:
  explicit OverbookPolicy(PolicyOptions options) : options_(options) {}
  std::string_view name() const override { return "overbook"; }
  sched::Plan OnArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                        const sched::Allocator& allocator) const override;
  sched::Plan OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                    const sched::Allocator& allocator) const override;

 private:
  PolicyOptions options_;
};

}  // namespace psched::policies
