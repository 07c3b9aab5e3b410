#include "scheduler/priorities/multifactor.hpp"

#include <algorithm>

namespace psched::sched::prio {

double Multifactor::Priority(const SessionRequest& request, std::span<const FinishedJob>,
                             double now) const {
  double age_s = std::max(0.0, now - request.submit_time);
  if (config_.multifactor_max_age_s > 0) age_s = std::min(age_s, config_.multifactor_max_age_s);
  // Same operations in the same order as the harness, so its figures reproduce bit for bit.
  return 1.0 + config_.multifactor_age_weight * age_s / 60.0 +
         config_.multifactor_size_weight * request.SlotsNeeded() / config_.machine_cores;
}

}  // namespace psched::sched::prio
