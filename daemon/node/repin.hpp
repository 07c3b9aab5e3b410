// Re-pinning a running process and its descendants for the co-scheduling policies
// (sidestep and its restoration): hwloc binding of every thread in /proc/PID/task of
// each, verified from each thread's Cpus_allowed_list, repeated for threads and
// processes created meanwhile.
#pragma once

#include <hwloc.h>
#include <sched.h>
#include <sys/types.h>

#include "common/error.hpp"

namespace psched::daemon {

// Binds every thread of `pid` and of every process descended from it to `cpus` (OS
// indices) and checks it took. A rank is often a wrapper (sh -c, time, numactl, a
// Python launcher) whose workload is a child: moving the rank alone would leave that
// on the old CPUs. A process or thread that exits meanwhile is not an error (it no
// longer runs anywhere).
Result<void> RepinProcessTree(hwloc_topology_t topology, pid_t pid, const cpu_set_t& cpus);

// Parses a Cpus_allowed_list ("0-3,8") into a set.
cpu_set_t ParseCpuList(const std::string& list);

}  // namespace psched::daemon
