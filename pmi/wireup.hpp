// Which wire-up a session's ranks get (psched-exec --mpi, [launch] mpi): the names
// and what each serves. One list, used by the launcher, the config and the daemon.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::pmi {

enum class WireUp { kAuto, kPmix, kPmi1, kNone };

// The names, default first: "auto" serves PMIx and PMI-1 together, so Open MPI and
// MPICH programs both start with no option.
const std::vector<std::string>& WireUpNames();

// "" is the default (auto). An unknown name is an error listing the valid ones;
// "pmi2" says it is not served yet.
Result<WireUp> ParseWireUp(std::string_view name);

inline bool ServesPmix(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmix;
}
inline bool ServesPmi1(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmi1;
}

}  // namespace psched::pmi
