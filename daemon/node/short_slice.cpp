#include "daemon/node/short_slice.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace psched::daemon {
namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h). glibc 2.36 has no
// wrapper for sched_setattr, and <linux/sched/types.h> clashes with <sched.h>'s
// struct sched_param, so the layout is written here; `size` tells the kernel which one.
struct SchedAttr {
  uint32_t size = sizeof(SchedAttr);
  uint32_t sched_policy = 0;
  uint64_t sched_flags = 0;
  int32_t sched_nice = 0;
  uint32_t sched_priority = 0;
  uint64_t sched_runtime = 0;
  uint64_t sched_deadline = 0;
  uint64_t sched_period = 0;
  uint32_t sched_util_min = 0;
  uint32_t sched_util_max = 0;
};
constexpr uint64_t kSchedFlagResetOnFork = 0x01;

}  // namespace

Result<void> AskForShortSlice() {
  SchedAttr attr;
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0)
    return Fail(Error::FromErrno("sched_getattr", "the daemon's CPU slice"));
  if (attr.sched_policy != SCHED_OTHER) return {};
  attr.size = sizeof attr;
  attr.sched_runtime = kShortSliceNs;
  attr.sched_flags |= kSchedFlagResetOnFork;
  if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0)
    return Fail(Error::FromErrno("sched_setattr", "the daemon's CPU slice"));
  return {};
}

}  // namespace psched::daemon
