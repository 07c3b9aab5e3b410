// PMIx directories left behind by daemons that died without cleaning up (SIGKILL,
// a crash): each daemon's directory names its owner, and a starting daemon removes
// those of the same user whose owner is provably dead. A directory whose owner is
// alive, or cannot be told, is never touched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::pmix {

// pschedd's per-daemon PMIx directories are <parent>/<kDaemonDirPrefix><node>.XXXXXX.
inline constexpr std::string_view kDaemonDirPrefix = "psched-pmix.";

// Unix socket paths hold 108 bytes and PMIx appends its own file names below the
// directory: PmixServer refuses a longer one.
inline constexpr size_t kMaxDaemonDirLength = 80;

// The mkdtemp template of node `node`'s directory: under `tmpdir` (the caller's
// TMPDIR, as Slurm and PMIx honour it) when that is an absolute path short enough for
// kMaxDaemonDirLength, else under /tmp. Daemons sweep only their own parent, so jobs
// with different TMPDIRs never touch each other's directories.
std::string DaemonDirTemplate(const char* tmpdir, int node);

// Records this process (pid, start time, host) as the owner of `dir` (file "owner").
Result<void> WriteOwner(const std::string& dir);

struct SweepReport {
  std::vector<std::string> removed;  // owners dead
  std::vector<std::string> kept;     // owners alive, or not known
};

// Looks at `parent`/`prefix`* directories of this uid other than `keep`. The owner is
// the "owner" file's process (dead when its pid is gone or has another start time; not
// known when the file names another host),
// else the pid PMIx wrote into its rendezvous file names (pmix/pmix.HOST.tool.PID).
SweepReport RemoveStaleDirs(const std::string& parent, std::string_view prefix,
                            const std::string& keep);

}  // namespace psched::pmix
