// The daemon's private run directory and where its launcher socket lives in it.
// Shared by pschedd and the launchers (which must not pull in the daemon itself).
#pragma once

#include <string>

#include "common/error.hpp"

namespace psched::daemon {

// Creates `dir` with mode 0700 if missing; refuses one owned by someone else.
Result<void> EnsurePrivateDir(const std::string& dir);

// Removes what psched puts in a run directory (the launcher socket, the start lock, the
// embedded daemon's log, the srun logs) and then the directory itself when nothing else is left in
// it. Leaves it alone while a launcher holds the start lock: it is starting daemons there right
// now. Files psched did not make are never touched (--rundir may name any directory).
Result<void> RemoveRunDir(const std::string& dir);

inline std::string LauncherSocketPath(const std::string& rundir) {
  return rundir + "/pschedd.sock";
}

}  // namespace psched::daemon
