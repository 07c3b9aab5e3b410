// The one list of allocator names, apart from MakeAllocator: the launchers list them
// in their --help without linking the allocators (and their solver) themselves.
#include "scheduler/allocator_registry.hpp"

namespace psched::sched {

const std::vector<std::string>& AllocatorNames() {
  static const std::vector<std::string> names = {"compact", "spread", "netload", "auction",
                                                 "ipwindow"};
  return names;
}

}  // namespace psched::sched
