// Forks and execs one rank: its own stdout/stderr pipes (stdout a pseudo-terminal on
// request), its session's process group, its CPU set applied before exec, and a clean
// signal state.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched::daemon {

struct RankExecSpec {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // the complete environment, "NAME=value"
  std::string cwd;
  cpu_set_t cpus{};
  bool bind = true;
  pid_t pgid = 0;  // 0: the rank leads a new process group (the session's on this node)
  bool with_stdin = false;
  // stdout a raw pseudo-terminal instead of a pipe (common/raw_pty.hpp): the rank's stdio
  // line-buffers, as under mpirun; out_fd is then the terminal's master end.
  bool stdout_pty = false;
  int cgroup_procs_fd = -1;  // >= 0: the child joins that cgroup (writes "0") before exec
  // Descriptors the rank keeps under their own numbers (PMI_FD); the daemon may have
  // them close-on-exec.
  std::vector<int> inherit_fds;
};

struct RankProcess {
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  int in_fd = -1;  // -1 unless with_stdin
};

// Returns once the child has exec'd (or failed to: then an error naming the
// executable and errno, and the child is already reaped).
Result<RankProcess> ExecRank(const RankExecSpec& spec);

}  // namespace psched::daemon
