// A plan under construction together with the snapshot as it will look once the
// actions so far are carried out, so that each decision sees the previous ones.
#pragma once

#include <utility>

#include "scheduler/model.hpp"

namespace psched::policies {

class PlanBuilder {
 public:
  explicit PlanBuilder(sched::Snapshot snapshot) : work_(std::move(snapshot)) {}

  // Appends `action` and applies it to the working snapshot. `request` is needed
  // only for a session the snapshot does not know yet (a new arrival).
  void Add(sched::Action action, const sched::SessionRequest* request = nullptr) {
    sched::ApplyPlan(work_, sched::Plan{{action}}, request);
    plan_.actions.push_back(std::move(action));
  }

  const sched::Snapshot& work() const { return work_; }
  const sched::Plan& plan() const { return plan_; }
  sched::Plan Take() { return std::move(plan_); }

 private:
  sched::Snapshot work_;
  sched::Plan plan_;
};

}  // namespace psched::policies
