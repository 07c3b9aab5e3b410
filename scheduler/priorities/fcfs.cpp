#include "scheduler/priorities/fcfs.hpp"

#include <algorithm>

namespace psched::sched::prio {

double Fcfs::Priority(const SessionRequest& request, std::span<const FinishedJob>, double) const {
  return std::max(1.0, kBase - request.submit_time);
}

}  // namespace psched::sched::prio
