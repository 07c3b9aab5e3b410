// LeaderService::ScheduleRound, apart from leader_service.cpp: the periodic round is a
// RoundTick step of the leader's state (scheduler/leader/step.hpp) on the daemon's timer.
#include <cstdio>

#include "daemon/leader/leader_service.hpp"

namespace psched::daemon {

void LeaderService::ScheduleRound() {
  // A plan in flight changes the snapshot when it lands; the next round sees it.
  if (executor_.busy()) return;
  metrics_.ApplyTo(state_.snapshot, /*links=*/true);
  sched::leader::Outcome round = Step(sched::leader::RoundTick{});
  if (round.refused) {
    std::fprintf(stderr, "pschedd[0]: %s\n", round.refused->c_str());
    return;
  }
  if (!round.plan.actions.empty()) Execute(round.plan, 0);
}

}  // namespace psched::daemon
