// fcfs: first come, first served, as SLURM's "basic" priority: the earlier the
// submission, the higher the priority (a large constant minus the submit time).
#pragma once

#include "scheduler/priorities/priority.hpp"

namespace psched::sched::prio {

class Fcfs : public PriorityModule {
 public:
  static constexpr double kBase = 1e9;  // seconds; submit times stay below it
  std::string_view name() const override { return "fcfs"; }
  double Priority(const SessionRequest& request, std::span<const FinishedJob> owner_history,
                  double now) const override;
};

}  // namespace psched::sched::prio
