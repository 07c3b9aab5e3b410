#include "djsb/machine.hpp"

#include <hwloc.h>
#include <sched.h>

#include <memory>

namespace psched::djsb {

Result<int> AllowedRealCores() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_init", "counting this machine's cores"));
  std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)> topo(raw,
                                                                          hwloc_topology_destroy);
  if (hwloc_topology_load(raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_load", "counting this machine's cores"));
  std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)> mine(hwloc_bitmap_alloc(),
                                                                     hwloc_bitmap_free);
  if (hwloc_get_cpubind(raw, mine.get(), HWLOC_CPUBIND_PROCESS) != 0)
    return Fail(Error::FromErrno("hwloc_get_cpubind", "reading this process's CPU set"));
  int cores = 0;
  const int n = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(raw, HWLOC_OBJ_CORE, i);
    if (hwloc_bitmap_intersects(core->cpuset, mine.get())) ++cores;
  }
  if (cores == 0) return Fail(ErrorCode::kSystem, "no core of this machine is in our CPU set");
  return cores;
}

int AllowedRealPus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

}  // namespace psched::djsb
