#include "djsb/repeat_rule.hpp"

#include <cstdio>

namespace psched::djsb {
namespace {

std::string Describe(const RepeatCandidate& c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s's [%.2f, %.2f]", c.name.c_str(), c.d.lo, c.d.hi);
  return buf;
}

}  // namespace

std::vector<RepeatCandidate> RepeatCandidates(const std::vector<ScenarioResult>& scenarios) {
  std::vector<RepeatCandidate> out;
  out.reserve(scenarios.size());
  for (const ScenarioResult& s : scenarios) {
    RepeatCandidate c;
    c.name = s.scenario.name;
    c.policy = s.scenario.baseline.empty();
    c.skipped = !s.skipped.empty();
    if (!s.metrics.empty()) {
      c.d = s.summary.d_interval;
      c.d.median = s.summary.d;
    }
    out.push_back(std::move(c));
  }
  return out;
}

VerdictPair PickVerdictPair(const std::vector<RepeatCandidate>& candidates) {
  VerdictPair pair;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const RepeatCandidate& c = candidates[i];
    if (c.skipped || c.d.n < 1) continue;
    if (c.policy) {
      if (!pair.best || c.d.median > candidates[*pair.best].d.median) pair.best = i;
    } else if (!pair.baseline) {
      pair.baseline = i;
    }
  }
  return pair;
}

RepeatPlan PlanRepeats(const std::vector<RepeatCandidate>& candidates, int min_repeats,
                       int max_repeats, double relative) {
  RepeatPlan plan;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (!candidates[i].skipped && candidates[i].d.n < min_repeats) plan.repeat.push_back(i);
  if (!plan.repeat.empty()) return plan;
  auto wants_more = [&](const RepeatCandidate& c) {
    return !c.skipped && c.d.n < max_repeats && !TightEnough(c.d, relative);
  };
  const VerdictPair pair = PickVerdictPair(candidates);
  if (!pair.best || !pair.baseline) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (wants_more(candidates[i])) plan.repeat.push_back(i);
    return plan;
  }
  const RepeatCandidate& best = candidates[*pair.best];
  const RepeatCandidate& base = candidates[*pair.baseline];
  const std::string intervals = Describe(best) + " and " + Describe(base);
  if (Apart(best.d, base.d)) {
    plan.racing = "the verdict is decided: " + intervals + " 95% intervals are apart";
    return plan;
  }
  for (size_t i : {*pair.best, *pair.baseline})
    if (wants_more(candidates[i])) plan.repeat.push_back(i);
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.0f", 100 * relative);
  if (plan.repeat.empty()) {
    plan.racing = "the verdict's intervals overlap (" + intervals + ") but each is within +-" +
                  percent + "% of its median or has " + std::to_string(max_repeats) +
                  " repeats: the difference is within the noise";
    return plan;
  }
  plan.racing = "repeating only " + candidates[plan.repeat[0]].name;
  if (plan.repeat.size() == 2) plan.racing += " and " + candidates[plan.repeat[1]].name;
  plan.racing += " for the verdict: " + intervals + " 95% intervals overlap";
  if (plan.repeat.size() == 1) {
    const RepeatCandidate& done =
        candidates[plan.repeat[0] == *pair.best ? *pair.baseline : *pair.best];
    plan.racing += "; " + done.name + "'s is within +-" + percent + "% of its median or has " +
                   std::to_string(max_repeats) + " repeats";
  }
  return plan;
}

}  // namespace psched::djsb
