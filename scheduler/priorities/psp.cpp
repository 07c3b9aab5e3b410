#include "scheduler/priorities/psp.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace psched::sched::prio {
namespace {

// Table 1 of the paper: lower bounds of g2..g10 and the priorities of g1..g10.
constexpr std::array<double, 9> kLowerBounds = {0.05, 0.10, 0.15, 0.20, 0.30,
                                                0.40, 0.52, 0.64, 0.78};
constexpr std::array<int, 10> kPriorities = {1, 10, 20, 25, 30, 35, 40, 43, 46, 49};

}  // namespace

AccuracyGroup GroupOfAccuracy(double accuracy) {
  int group = 1;
  for (double bound : kLowerBounds)
    if (accuracy >= bound) ++group;  // intervals are closed below: [0.05, 0.10) is g2
  return AccuracyGroup{group, kPriorities[group - 1]};
}

std::optional<double> OwnerAccuracy(std::span<const FinishedJob> owner_history,
                                    int history_length) {
  if (owner_history.empty() || history_length <= 0) return std::nullopt;
  const size_t n = std::min(owner_history.size(), static_cast<size_t>(history_length));
  double sum = 0;
  for (const FinishedJob& job : owner_history.last(n)) {
    double a = job.requested_s > 0 ? job.runtime_s / job.requested_s : 1.0;
    sum += std::clamp(a, 0.0, 1.0);
  }
  return sum / static_cast<double>(n);
}

double AgedPriority(double g, int64_t steps, double step_s, double estimate_s) {
  double priority = g;  // priority_{j,1} = g_j
  if (estimate_s <= 0) return priority;
  // The recursion grows faster than exponentially once i * step_s exceeds the estimate;
  // it saturates at +inf, where it stays: stop there instead of looping over a long wait.
  for (int64_t i = 1; i <= steps && std::isfinite(priority); ++i)
    priority = g + priority * (static_cast<double>(i) * step_s) / estimate_s;
  return priority;
}

double Psp::Priority(const SessionRequest& request, std::span<const FinishedJob> owner_history,
                     double now) const {
  std::optional<double> accuracy = OwnerAccuracy(owner_history, config_.history_length);
  const double g = accuracy ? GroupOfAccuracy(*accuracy).priority : kNoHistoryPriority;
  if (!aging_ || config_.aging_step_s <= 0) return g;
  const double waited = std::max(0.0, now - request.submit_time);
  // In double first: a short step over a long wait exceeds int (the cast was undefined).
  // At most kMaxAgingSteps: the recursion is a loop, run for every waiting session at
  // every round, and a tiny step or a huge estimate would keep it from saturating.
  const double steps =
      std::min(std::floor(waited / config_.aging_step_s), static_cast<double>(kMaxAgingSteps));
  return AgedPriority(g, static_cast<int64_t>(steps), config_.aging_step_s, request.estimate_s);
}

}  // namespace psched::sched::prio
