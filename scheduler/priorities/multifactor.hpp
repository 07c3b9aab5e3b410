// multifactor: SLURM's priority/multifactor reduced to its age and job-size factors.
//
//   P = 1 + age_weight * min(age, max_age) / 60 + size_weight * cores / machine_cores
//
// age in seconds (now - submit_time), so age_weight is per waiting minute; cores are the
// session's slots (ranks x threads). GPUs do not count: the size factor is SLURM's
// "JobSize" over CPUs only. The defaults (1 per minute, 10080 for the whole machine: a
// full-machine job outranks one a week older) are those of docs/sim/auction_diag.cpp's
// PRIO_SIZE=10080 runs, whose figures this module reproduces. The 1 keeps P > 0.
#pragma once

#include "scheduler/config.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::sched::prio {

class Multifactor : public PriorityModule {
 public:
  // `config.machine_cores` must be > 0 (MakePriority checks it).
  explicit Multifactor(const PriorityConfig& config) : config_(config) {}
  std::string_view name() const override { return "multifactor"; }
  // Age counts alike for every session until max_age caps it: the order changes then.
  bool Ages() const override {
    return config_.multifactor_age_weight > 0 && config_.multifactor_max_age_s > 0;
  }
  double Priority(const SessionRequest& request, std::span<const FinishedJob> owner_history,
                  double now) const override;

 private:
  PriorityConfig config_;
};

}  // namespace psched::sched::prio
