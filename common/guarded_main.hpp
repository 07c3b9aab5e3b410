// The one way psched's commands enter and leave main. Entering, descriptors 0-2 are made
// valid (common/closed_stdio.hpp): a command started with one closed would hand it out as
// its next socket or pipe, and a child it starts would inherit that as its stdio. Leaving,
// an exception that escapes a command's body is a bug, and is reported with the command's
// name and exit code 70 (EX_SOFTWARE, as sysexits.h has it) instead of std::terminate's
// abort and core dump.
#pragma once

#include <cstdio>
#include <exception>

#include "common/closed_stdio.hpp"

namespace psched {

inline constexpr int kExitInternalError = 70;

template <typename Body>
int GuardedMain(const char* command, Body&& body) noexcept {
  if (auto stdio = OpenNullOntoClosedStdio(); !stdio) {
    std::fprintf(stderr, "%s: %s\n", command, stdio.error().ToString().c_str());
    return 1;
  }
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", command, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: unknown exception\n", command);
  }
  return kExitInternalError;
}

}  // namespace psched
