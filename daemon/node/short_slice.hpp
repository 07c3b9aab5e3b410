// The daemon's loop asks the kernel for a short CPU slice, so that its ranks' wire-up
// requests are answered while the ranks compute on every core.
//
// Why: pschedd answers PMI-1/PMI-2 commands and PMIx fences in bursts of tens of
// microseconds, on cores its pinned ranks keep busy. Under EEVDF (Linux 6.6 and later) a
// woken task with the default slice (0.7-3 ms) may wait for the running rank's slice to
// end before it runs, while the rank that asked waits for the answer: seen with
// `perf sched timehist` in a 2-rank MPICH hello, pschedd runnable for 1.4 ms behind
// rank 1 while rank 0 sat idle on the other core waiting for its PMI reply. A task may
// ask for a shorter slice itself (sched_attr.sched_runtime of a SCHED_OTHER task, Linux
// 6.12 and later, unprivileged, clamped to 0.1-100 ms); its earlier deadline lets its
// wake-ups preempt the rank. It still gets only its fair share of the CPU: the slice
// bounds how long it runs before others may, not how much.
//
// SCHED_FLAG_RESET_ON_FORK: the ranks, forked from this thread, start with the
// kernel's default slice rather than the daemon's (also a nice below 0 and a real-time
// policy would not pass on; the daemon keeps its own policy and nice).
#pragma once

#include <cstdint>

#include "common/error.hpp"

namespace psched::daemon {

// The kernel's smallest slice, which the daemon asks for.
inline constexpr uint64_t kShortSliceNs = 100'000;

// Asks for kShortSliceNs on the calling thread (the one that runs the daemon's loop and
// forks the ranks), keeping its policy and nice. A thread under a policy other than
// SCHED_OTHER (the admin's chrt) is left as it is. Kernels before 6.12 accept the request
// and ignore it. Errors name the syscall.
Result<void> AskForShortSlice();

}  // namespace psched::daemon
