#include "scheduler/leader/failure_report.hpp"

#include <signal.h>

#include <cstdio>

namespace psched::sched::leader {

std::string DescribeFailures(const std::string& first, const std::vector<RankExit>& later,
                             double kill_wait_s,
                             const std::function<std::string(int node)>& node_name) {
  std::string text = first;
  size_t listed = 0, unlisted = 0;
  for (const RankExit& e : later) {
    // The leader's own SIGTERM ended it: the first line says the others were killed.
    if (e.signal == SIGTERM) continue;
    // SIGKILL is the leader's too, at the end of the grace (at once without one).
    if (e.signal == SIGKILL && kill_wait_s <= 0) continue;
    if (listed == kMaxListedFailures) {
      ++unlisted;
      continue;
    }
    ++listed;
    text += "\n  also rank " + std::to_string(e.rank) + " on " + node_name(e.node) + " ";
    if (e.signal == SIGKILL) {
      char grace[32];
      std::snprintf(grace, sizeof grace, "%g", kill_wait_s);
      text += std::string("outlived SIGTERM and was killed after ") + grace + " s";
    } else {
      text += e.cause;
    }
  }
  if (unlisted > 0)
    text += "\n  and " + std::to_string(unlisted) + " more rank" + (unlisted > 1 ? "s" : "");
  return text;
}

std::string FailureText(const State& state, const Session& s) {
  if (!s.failure) return "";
  return DescribeFailures(s.failure->first, s.failure->later, s.kill_wait_s,
                          [&state](int node) { return state.NodeName(node); });
}

}  // namespace psched::sched::leader
