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

// Records this process (pid and start time) as the owner of `dir` (file "owner").
Result<void> WriteOwner(const std::string& dir);

struct SweepReport {
  std::vector<std::string> removed;  // owners dead
  std::vector<std::string> kept;     // owners alive, or not known
};

// Looks at `parent`/`prefix`* directories of this uid other than `keep`. The owner is
// the "owner" file's process (dead when its pid is gone or has another start time),
// else the pid PMIx wrote into its rendezvous file names (pmix/pmix.HOST.tool.PID).
SweepReport RemoveStaleDirs(const std::string& parent, std::string_view prefix,
                            const std::string& keep);

}  // namespace psched::pmix
