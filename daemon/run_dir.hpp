// The daemon's private run directory and where its launcher socket lives in it.
// Shared by pschedd and the launchers (which must not pull in the daemon itself).
#pragma once

#include <string>

#include "common/error.hpp"

namespace psched::daemon {

// Creates `dir` with mode 0700 if missing; refuses one owned by someone else.
Result<void> EnsurePrivateDir(const std::string& dir);

inline std::string LauncherSocketPath(const std::string& rundir) {
  return rundir + "/pschedd.sock";
}

}  // namespace psched::daemon
