// wait: a session that does not fit on free slots queues until enough slots are
// free; nothing is ever shared. Option backfill lets a later, smaller session start
// when it fits now and does not delay the head of the queue (EASY, from estimates).
#pragma once

#include "policies/policy.hpp"

namespace psched::policies {

class WaitPolicy : public Policy {
 public:
  explicit WaitPolicy(PolicyOptions options) : options_(options) {}
  std::string_view name() const override { return "wait"; }
  sched::Plan OnArrival(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                        const sched::Allocator& allocator) const override;
  sched::Plan OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                    const sched::Allocator& allocator) const override;

 private:
  PolicyOptions options_;
};

}  // namespace psched::policies
