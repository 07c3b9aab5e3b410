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
std::vector<pid_t> ChildrenOf(pid_t parent);
// pids of processes whose command line contains every one of `needles`.
std::vector<pid_t> FindProcesses(const std::vector<std::string>& needles);

}  // namespace psched::testing
