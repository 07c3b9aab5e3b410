// What /proc says about processes and threads, read fresh on every call.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace psched::testing {

// The whole file ("" when it cannot be read); binary-safe (environ, cmdline).
std::string ReadFile(const std::string& path);

char ProcessState(pid_t pid);        // 'R', 'S', 'T', 'Z', ... or 0 when gone
bool ProcessGone(pid_t pid);         // no /proc entry, or a zombie that is not ours to reap
std::string CpusAllowed(pid_t pid);  // Cpus_allowed_list of the process ("" when gone)
std::string ThreadCpusAllowed(pid_t pid, pid_t tid);  // of one of its threads
std::vector<pid_t> Threads(pid_t pid);                // /proc/PID/task
long ResidentKiB(pid_t pid);                          // VmRSS, -1 when gone
// The thread's EEVDF slice in ns (se.slice of /proc/PID/task/TID/sched, Linux 6.6+),
// -1 when gone or not shown.
long CpuSliceNs(pid_t pid, pid_t tid);
// Whether the process has a handler for `sig` (SigCgt): it is ready for the signal.
bool CatchesSignal(pid_t pid, int sig);
std::vector<pid_t> ChildrenOf(pid_t parent);
// cosched_stuck ready: state D with a child that leads its own process group, so a
// SIGSTOP to the rank's group can no longer reach the child and stop the pair. (State D
// alone is also a process only paging in its binary, which SIGSTOP then stops.)
bool StuckInVfork(pid_t pid);
// Stopped as a suspend leaves it: state T, or a shell caught in vfork by SIGSTOP (state D,
// every child stopped), which can neither run nor stop until its child continues.
bool HeldStopped(pid_t pid);
// pids of processes whose command line contains every one of `needles`.
std::vector<pid_t> FindProcesses(const std::vector<std::string>& needles);

// A rank of a psched session as the daemons started it, read back from /proc.
struct RankProc {
  pid_t pid = 0;
  int session = -1, rank = -1, node = -1;  // PSCHED_SESSION, PSCHED_RANK, PSCHED_NODE
  std::string env;                         // the whole environment, NUL-separated
};
// The ranks of every session of the allocation in `alloc_dir`: processes named `comm`
// whose environment names that directory and a session. A rank's own children (same
// name, same environment) are left out: the rank is the topmost one.
std::vector<RankProc> AllocationRanks(const std::string& alloc_dir, const std::string& comm);
// The integer value of `name` in a NUL-separated environment, -1 when absent.
int EnvInt(const std::string& env, const std::string& name);

}  // namespace psched::testing
