// Suspending a session's processes on this node for the co-scheduling policies
// (surpass): SIGSTOP, then confirmation from /proc that every process is stopped
// before the plan goes on, and SIGCONT to resume.
#pragma once

#include <sys/types.h>

#include <vector>

#include "common/error.hpp"

namespace psched::daemon {

// Polls /proc/PID/stat until every process is stopped (state T or t), has exited
// (Z, or gone) or `timeout_s` passes: an error names the first process still running.
Result<void> ConfirmStopped(const std::vector<pid_t>& pids, double timeout_s = 5);

// The state letter of /proc/PID/stat ('R', 'S', 'T', ...), 0 when the process is gone.
char ProcState(pid_t pid);

}  // namespace psched::daemon
