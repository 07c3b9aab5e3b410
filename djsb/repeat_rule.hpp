// Which scenarios the next round of repeats runs: the minimum for every scenario first,
// then a race between the two scenarios the verdict compares. Pure: intervals in, indices
// out; the orchestrator runs what it says and the report names the same pair.
//
// Why a race: after `repeats` runs of every scenario the verdict's question is one
// comparison, the best psched policy's D against the baseline's. Rounds that also repeat
// the other policies cost as much again (on 2 cores, 61 s instead of 39 s a round) and
// tell the verdict nothing, so the remaining time budget goes only to the two scenarios
// compared, until their 95% intervals are apart or each is within +-relative of its
// median (then more repeats would not separate them: the difference is within the noise),
// or max_repeats. Which policy is best is decided again after every round, so a policy
// that overtakes the leader on its median joins the race. Without a pair (no baseline,
// or no policy) every scenario repeats until its own interval is tight.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "djsb/results.hpp"

namespace psched::djsb {

// One scenario as the rule sees it.
struct RepeatCandidate {
  std::string name;
  bool policy = false;   // a psched policy; else a baseline
  bool skipped = false;  // failed or cannot run: never repeated, never compared
  Interval d;            // its D over the repeats so far (n 0 before its first)
};

// The scenarios of the results, in their order.
std::vector<RepeatCandidate> RepeatCandidates(const std::vector<ScenarioResult>& scenarios);

// The verdict's pair: of the scenarios with at least one repeat, the policy with the
// highest median D (the first on a tie) and the first baseline; nullopt where there is none.
struct VerdictPair {
  std::optional<size_t> best;
  std::optional<size_t> baseline;
};
VerdictPair PickVerdictPair(const std::vector<RepeatCandidate>& candidates);

struct RepeatPlan {
  std::vector<size_t> repeat;  // indices of the scenarios the next round runs
  // Once the race has begun: "repeating only X and Y for the verdict: ..." (why), or why
  // it ended; empty while every scenario still gets its minimum.
  std::string racing;
};

RepeatPlan PlanRepeats(const std::vector<RepeatCandidate>& candidates, int min_repeats,
                       int max_repeats, double relative);

}  // namespace psched::djsb
