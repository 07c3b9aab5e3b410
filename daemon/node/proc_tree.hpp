// A process's threads and descendants, read from /proc: what re-pinning binds and what
// suspend confirmation looks at beyond a rank's own pid.
#pragma once

#include <sys/types.h>

#include <vector>

namespace psched::daemon {

// The threads of `pid` (/proc/PID/task); empty when the process is gone.
std::vector<pid_t> ThreadsOf(pid_t pid);

// The process's children, from every thread's /proc children list.
std::vector<pid_t> ChildrenOf(pid_t pid);

// `pid` and every process descended from it, parents before their children. A process
// whose parent exited (reparented to init) is no longer in its tree.
std::vector<pid_t> ProcessTree(pid_t pid);

}  // namespace psched::daemon
