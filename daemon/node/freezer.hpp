// Suspending sessions with the cgroup freezer ([policy] suspend = "freezer"): one
// cgroup per session per daemon, which every rank joins before it execs, frozen and
// thawed as a whole. Unlike SIGSTOP it also holds the processes a rank forks, and a
// program cannot catch or undo it.
//
// cgroup v2 is preferred (cgroup.freeze; frozen once cgroup.events says `frozen 1`),
// then v1 (freezer.state FROZEN / THAWED). Hierarchies are found from
// /proc/self/mountinfo and the session cgroups are made under the daemon's own cgroup
// there (from /proc/self/cgroup), so a daemon inside a Slurm job stays inside it.
// Freezing is asynchronous: Freeze() only asks, Frozen() tells when it is done.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::daemon {

enum class CgroupVersion { kV1, kV2 };

// A mounted cgroup hierarchy that can freeze.
struct FreezerHierarchy {
  CgroupVersion version = CgroupVersion::kV2;
  std::string mount;  // where it is mounted ("/sys/fs/cgroup/unified")
  std::string root;   // the hierarchy path mounted there (mountinfo's 4th field, "/" mostly)
};

// The freezer-capable hierarchies of a /proc/PID/mountinfo text: every cgroup2 mount,
// then every v1 mount with the freezer controller, in that order.
std::vector<FreezerHierarchy> FreezerHierarchies(std::string_view mountinfo);

// The directory of a process's cgroup in `h`, from its /proc/PID/cgroup text; the
// mount point itself when the process's cgroup is not visible under that mount.
std::string CgroupDirIn(const FreezerHierarchy& h, std::string_view proc_cgroup);

// Where a daemon makes its session cgroups.
struct FreezerPlace {
  CgroupVersion version = CgroupVersion::kV2;
  std::string parent;  // directory the session cgroups are made in
};

// Finds where this daemon can make cgroups that freeze, by creating (and removing at
// once) a probe cgroup: under its own cgroup, then at the hierarchy's top; cgroup v2
// first, then v1 (`only` restricts it to one version). The error names every place
// tried and why it failed, so an admin knows what to fix.
Result<FreezerPlace> FindFreezerPlace(int node);
Result<FreezerPlace> FindFreezerPlace(int node, CgroupVersion only);

class SessionFreezer {
 public:
  // FindFreezerPlace, then a freezer there.
  static Result<std::unique_ptr<SessionFreezer>> Create(int node);
  static std::unique_ptr<SessionFreezer> CreateIn(int node, FreezerPlace where);
  // Thaws every session cgroup left, kills what is still in it and removes it.
  ~SessionFreezer();
  SessionFreezer(const SessionFreezer&) = delete;
  SessionFreezer& operator=(const SessionFreezer&) = delete;

  CgroupVersion version() const { return where_.version; }
  std::string VersionName() const;
  // The session's cgroup directory: "<parent>/psched.n<node>.s<session>.p<daemon pid>",
  // unique even with several emulated daemons on one host.
  std::string PathOf(int64_t session) const;

  // An fd (O_WRONLY, close-on-exec) on the session's cgroup.procs, the cgroup being made
  // at the first call. A child writes "0" to it to join before it execs. The fd belongs
  // to this object and stays valid until Remove(session).
  Result<int> JoinFd(int64_t session);
  // Asks the kernel to freeze / thaw the session's cgroup. No-op for a session that
  // never had a cgroup here.
  Result<void> Freeze(int64_t session);
  Result<void> Thaw(int64_t session);
  // One look, no waiting: has every process of the cgroup been frozen?
  Result<bool> Frozen(int64_t session);
  // The pids in the session's cgroup (empty when it has none).
  std::vector<pid_t> Processes(int64_t session) const;
  // Kills every process in the session's cgroup (thawed first: a frozen v1 process
  // cannot even die). No-op for a session that never had a cgroup here.
  void KillProcesses(int64_t session);
  // At the session's end: thaws, kills what is left in it (processes the ranks forked
  // and left behind) and removes the directory. A directory still busy is retried at
  // the next Remove and when this object goes away.
  void Remove(int64_t session);

 private:
  SessionFreezer(int node, FreezerPlace where) : node_(node), where_(std::move(where)) {}
  bool TryRemoveDir(const std::string& dir);
  // cgroup.kill (Linux >= 5.14), else SIGKILL to each process listed.
  void KillEverythingIn(int64_t session);
  // Writes the version's freeze or thaw value to the session's control file.
  Result<void> SetFrozen(int64_t session, bool frozen);

  int node_;
  FreezerPlace where_;
  pid_t pid_ = 0;
  std::map<int64_t, int> join_fds_;     // session -> cgroup.procs fd
  std::vector<std::string> busy_dirs_;  // removed sessions whose directory was busy
};

}  // namespace psched::daemon
