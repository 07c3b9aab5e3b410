#include "daemon/node/repin.hpp"

#include <errno.h>

#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "daemon/node/proc_tree.hpp"

namespace psched::daemon {

namespace {

// The thread's Cpus_allowed_list, or nullopt when it is gone.
std::optional<std::string> AllowedList(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("Cpus_allowed_list:")) {
      auto v = line.find_first_not_of(" \t", 18);
      return v == std::string::npos ? "" : line.substr(v);
    }
  }
  return std::nullopt;
}

// Binds one thread of `pid` and checks it took. A thread that exited meanwhile runs
// nowhere: not an error.
Result<void> BindThread(hwloc_topology_t topology, hwloc_const_bitmap_t set, const cpu_set_t& cpus,
                        pid_t pid, pid_t tid) {
  int rc = -1;
  int bind_errno = 0;  // saved: reading /proc below may change errno
  for (int attempt = 0; attempt < 100; ++attempt) {
    rc = hwloc_set_proc_cpubind(topology, tid, set, HWLOC_CPUBIND_THREAD);
    bind_errno = rc == 0 ? 0 : errno;
    if (rc == 0 || (bind_errno != EAGAIN && bind_errno != EINTR)) break;
  }
  auto allowed = AllowedList(pid, tid);
  if (!allowed) return {};
  if (rc != 0 && bind_errno != ESRCH) {
    return Fail(Error::FromErrno(
        "sched_setaffinity",
        "binding thread " + std::to_string(tid) + " of process " + std::to_string(pid),
        bind_errno));
  }
  cpu_set_t now = ParseCpuList(*allowed);
  if (!CPU_EQUAL(&now, &cpus)) {
    return Fail(ErrorCode::kSystem, "thread " + std::to_string(tid) + " of process " +
                                        std::to_string(pid) + " is bound to " + *allowed +
                                        " after re-pinning");
  }
  return {};
}

// Binds the threads of `pid`'s tree that are not in `verified` yet (and adds them):
// true when there were any.
Result<bool> BindUnverified(hwloc_topology_t topology, hwloc_const_bitmap_t set,
                            const cpu_set_t& cpus, pid_t pid, std::set<pid_t>& verified) {
  bool fresh = false;
  for (pid_t process : ProcessTree(pid)) {
    for (pid_t tid : ThreadsOf(process)) {
      if (!verified.insert(tid).second) continue;
      fresh = true;
      if (auto ok = BindThread(topology, set, cpus, process, tid); !ok) return Fail(ok.error());
    }
  }
  return fresh;
}

}  // namespace

cpu_set_t ParseCpuList(const std::string& list) {
  cpu_set_t set;
  CPU_ZERO(&set);
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string part =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? list.size() : comma + 1;
    if (part.empty()) continue;
    auto dash = part.find('-');
    int lo = std::stoi(part.substr(0, dash));
    int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  }
  return set;
}

Result<void> RepinProcessTree(hwloc_topology_t topology, pid_t pid, const cpu_set_t& cpus) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &cpus)) hwloc_bitmap_set(set, static_cast<unsigned>(c));
  std::set<pid_t> verified;
  Result<void> result;
  // A thread or process created while we bind inherits the affinity of its creator,
  // which may still be the old one: walk the tree again until a pass finds nothing new.
  for (int pass = 0; pass < 100; ++pass) {
    auto fresh = BindUnverified(topology, set, cpus, pid, verified);
    if (!fresh) result = Fail(fresh.error());
    if (!fresh || !*fresh) break;
  }
  hwloc_bitmap_free(set);
  return result;
}

}  // namespace psched::daemon
