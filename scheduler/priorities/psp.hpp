// psp and psp+aging: the Penalty Scheduling Policy of Rocchetti et al.
//
// psp: a job's priority comes from its owner's estimate accuracy, the average of
// runtime/requested over the owner's last `history_length` (10) finished jobs,
// mapped to the groups g1..g10 of the paper's Table 1 (priorities 1..49).
// psp+aging: the same initial priority g, then equation (1) every `aging_step_s`
// (150 s): priority_{i+1} = g + priority_i * t_waiting_i / t_estimated.
// One class: the two differ only by whether aging is on.
#pragma once

#include "scheduler/config.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::sched::prio {

// Table 1: accuracy interval -> (group 1..10, priority).
struct AccuracyGroup {
  int group = 1;     // g1..g10
  int priority = 1;  // 1..49
};
AccuracyGroup GroupOfAccuracy(double accuracy);

// Average of runtime/requested over the last `history_length` jobs (each clamped to
// [0, 1]; a job without a request counts as accurate); nullopt without history.
std::optional<double> OwnerAccuracy(std::span<const FinishedJob> owner_history, int history_length);

// Equation (1) applied `steps` times from priority g. Step i (1-based) uses the
// waiting time the job has at that update, i * step_s: the priority a job has
// after waiting steps * step_s. No estimate (<= 0): no aging. Long waits saturate
// at +inf (ties among them fall back to arrival order).
double AgedPriority(double g, int64_t steps, double step_s, double estimate_s);

class Psp : public PriorityModule {
 public:
  Psp(const PriorityConfig& config, bool aging) : config_(config), aging_(aging) {}
  std::string_view name() const override { return aging_ ? "psp+aging" : "psp"; }
  bool Ages() const override { return aging_ && config_.aging_step_s > 0; }
  double Priority(const SessionRequest& request, std::span<const FinishedJob> owner_history,
                  double now) const override;

  // An owner without finished jobs has not been inaccurate yet: group g10.
  static constexpr int kNoHistoryPriority = 49;
  // Aging counts at most this many steps (almost 5 years at the paper's 150 s), which
  // bounds the work per priority to a few milliseconds.
  static constexpr int64_t kMaxAgingSteps = 1'000'000;

 private:
  PriorityConfig config_;
  bool aging_;
};

}  // namespace psched::sched::prio
