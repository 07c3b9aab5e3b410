// Starting a helper process (a daemon, srun, scontrol, the user's command) one way:
// everything is built before fork, the child only arranges its descriptors and signals
// and execs, and a failed exec comes back as this call's error (a close-on-exec status
// pipe carries it) instead of a child that exits 127 while the caller waits for it.
// Ranks have their own, vfork-based exec (daemon/node/rank_exec.hpp): that path is hot.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched {

struct ChildSpec {
  static constexpr int kInherit = -1;  // keep ours (for fd 3: give none)
  static constexpr int kNull = -2;     // /dev/null

  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::vector<std::string> env;   // the complete environment, "NAME=value"; empty: ours
  // What the child gets as descriptors 0-3.
  int stdin_fd = kInherit, stdout_fd = kInherit, stderr_fd = kInherit;
  int fd3 = kInherit;  // e.g. the write end of a readiness pipe
  // Every other descriptor is closed, unless the child is the user's command: it gets
  // what our caller gave us (`cmd 3<file`), as under salloc.
  bool close_other_fds = true;
  bool own_session = false;        // setsid: no controlling terminal, no terminal signals
  bool own_process_group = false;  // setpgid: the terminal's Ctrl-C is not for it
  int parent_death_signal = 0;     // prctl(PR_SET_PDEATHSIG) when non-zero
};

// Forks and execs; returns once the child has exec'd. Signal dispositions are reset to
// their defaults and the signal mask emptied in the child. On failure the child is
// already reaped and the error says which step failed: "cannot run 'X': execvp: ...".
Result<pid_t> StartChild(const ChildSpec& spec);

// Default dispositions for every signal and an empty mask: what a child must have before
// it execs (ignored signals and the mask survive exec). Async-signal-safe: for use after
// fork or vfork.
void ResetSignalsInChild();

// Closes every descriptor from `first` up except `keep` (a child's status pipe, which is
// close-on-exec and so still reports a failed exec). Async-signal-safe; false on failure.
bool CloseDescriptorsFrom(int first, int keep);
// The same keeping several: `keep` ascending (a rank's status pipe and its PMI_FD).
bool CloseDescriptorsExcept(int first, const int* keep, size_t count);

}  // namespace psched
