// What a failed session's launcher is told: the first failure, then the ranks that
// failed besides it. The ranks the leader ended get SIGTERM, and SIGKILL after the
// session's kill wait: those SIGTERM ended are not failures of their own; those that
// outlived it are named (the session took the grace longer because of them).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scheduler/leader/state.hpp"

namespace psched::sched::leader {

// At most this many ranks are named after the first; the rest are counted.
inline constexpr size_t kMaxListedFailures = 8;

// `first`: the first failure's text; `later`: the other ranks' non-zero exits, in the
// order they arrived; `kill_wait_s`: the grace they had between SIGTERM and SIGKILL.
// One line per failure, '\n'-separated, no final newline.
std::string DescribeFailures(const std::string& first, const std::vector<RankExit>& later,
                             double kill_wait_s,
                             const std::function<std::string(int node)>& node_name);

// What the launcher of `s` is told at its end: its failure described as above ("" when
// it did not fail), nodes named as `state` knows them.
std::string FailureText(const State& state, const Session& s);

}  // namespace psched::sched::leader
