// Which wire-up a session's ranks get (psched-exec --mpi, [launch] mpi): the names
// and what each serves. One list, used by the launcher, the config and the daemon.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::pmi {

enum class WireUp { kAuto, kPmix, kPmi1, kPmi2, kNone };

// The names, default first: "auto" serves PMIx, PMI-1 and PMI-2 together (PMI-1 and
// PMI-2 on one socket, told apart by the client's init), so Open MPI and MPICH
// programs both start with no option.
const std::vector<std::string>& WireUpNames();

// "" is the default (auto). An unknown name is an error listing the valid ones.
Result<WireUp> ParseWireUp(std::string_view name);

inline bool ServesPmix(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmix;
}
// PMI_FD and the PMI server (pmi/simple_server.hpp), for PMI-1, PMI-2 or both.
inline bool ServesPmi(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmi1 || w == WireUp::kPmi2;
}
inline bool ServesPmi1(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmi1;
}
inline bool ServesPmi2(WireUp w) {
  return w == WireUp::kAuto || w == WireUp::kPmi2;
}

}  // namespace psched::pmi
