// What psched-djsb may use of this machine: its real cores (hwloc) and PUs, within its
// own CPU set (taskset, a cgroup), for sizing the demo and refusing a folded allocation.
#pragma once

#include "common/error.hpp"

namespace psched::djsb {

// Cores with at least one PU in this process's CPU set.
Result<int> AllowedRealCores();

// PUs in this process's CPU set.
int AllowedRealPus();

}  // namespace psched::djsb
