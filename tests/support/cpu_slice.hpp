// For the tests of pschedd's short CPU slice (daemon/node/short_slice.hpp). Header-only:
// the tests that include it link psched_daemon.
#pragma once

#include <unistd.h>

#include <thread>

#include "daemon/node/short_slice.hpp"
#include "tests/support/proc_fs.hpp"

namespace psched::testing {

// Whether this kernel honours a SCHED_OTHER thread's own slice request (Linux 6.12+): a
// thread of the test's asks for the daemon's slice and reads whether /proc shows it.
inline bool KernelHonoursSliceRequests() {
  bool honoured = false;
  std::thread probe([&] {
    honoured = daemon::AskForShortSlice().has_value() &&
               CpuSliceNs(getpid(), gettid()) == static_cast<long>(daemon::kShortSliceNs);
  });
  probe.join();
  return honoured;
}

}  // namespace psched::testing
