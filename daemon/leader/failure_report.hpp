// What a failed session's launcher is told: the first failure, then the ranks that
// failed besides it. The ranks the leader ended get SIGTERM, and SIGKILL after the
// session's kill wait: those SIGTERM ended are not failures of their own; those that
// outlived it are named (the session took the grace longer because of them).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "proto/messages.hpp"

namespace psched::daemon {

// At most this many ranks are named after the first; the rest are counted.
inline constexpr size_t kMaxListedFailures = 8;

// `first`: the first failure's text; `later`: the other ranks' non-zero exits, in the
// order they arrived; `kill_wait_s`: the grace they had between SIGTERM and SIGKILL.
// One line per failure, '\n'-separated, no final newline.
std::string DescribeFailures(const std::string& first, const std::vector<proto::RankExit>& later,
                             double kill_wait_s,
                             const std::function<std::string(int node)>& node_name);

}  // namespace psched::daemon
