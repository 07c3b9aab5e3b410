// LeaderService::ScheduleRound, apart from leader_service.cpp: the periodic round
// only adds a timer-driven queue pass (daemon/leader/round.hpp) to the leader.
#include <cstdio>

#include "daemon/leader/leader_service.hpp"
#include "daemon/leader/round.hpp"

namespace psched::daemon {

void LeaderService::ScheduleRound() {
  // A plan in flight changes the snapshot when it lands; the next round sees it.
  if (executor_.busy()) return;
  snapshot_.now = Now();
  RefreshPriorities();
  metrics_.ApplyTo(snapshot_, /*links=*/true);
  auto plan =
      RoundPlan(snapshot_, allocators_, config_.default_allocator, config_.policy_options.backfill);
  if (!plan) {
    std::fprintf(stderr, "pschedd[0]: scheduling round: %s\n", plan.error().ToString().c_str());
    return;
  }
  if (!plan->actions.empty()) Execute(*plan, nullptr, 0);
}

}  // namespace psched::daemon
