// Suspending a session's processes on this node for the co-scheduling policies
// (surpass): SIGSTOP or the session's cgroup freezer (daemon/node/freezer.hpp), then
// confirmation that every process is held before the plan goes on; SIGCONT / thaw
// to resume.
//
// Confirmation is polled in small looks so the daemon's event loop is never held
// for long: LookFor spins for a short budget (stopping takes microseconds, freezing
// a few milliseconds), and the caller re-arms a timer for the next look.
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"

namespace psched::daemon {

// How long a node waits for its processes to stop (or its cgroup to freeze) before it
// fails the suspend, when the leader's order does not say ([policy]
// suspend_confirm_timeout_s, sent with each suspend order: plan_executor.hpp).
inline constexpr double kConfirmTimeoutS = config::kDefaultSuspendConfirmTimeoutS;

// One look, no waiting: is every process stopped (state T or t), exited (Z) or gone?
// A process in state D whose children are all stopped counts as stopped: a vfork
// parent whose child stopped before exec cannot run either.
// When not, `*running` is the first one still running.
bool AllStopped(const std::vector<pid_t>& pids, pid_t* running = nullptr);

// Calls `look` until it says true or fails, for at most `budget_s`: false when the
// budget ran out first.
Result<bool> LookFor(const std::function<Result<bool>()>& look, double budget_s);

// Polls until every process is stopped, has exited or `timeout_s` passes: an error
// names the first process still running. Blocks: for tools and tests, not the daemon.
Result<void> ConfirmStopped(const std::vector<pid_t>& pids, double timeout_s = kConfirmTimeoutS);

// The state letter of /proc/PID/stat ('R', 'S', 'T', ...), 0 when the process is gone.
char ProcState(pid_t pid);

}  // namespace psched::daemon
