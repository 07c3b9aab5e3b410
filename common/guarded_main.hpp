// The one way psched's commands leave main: an exception that escapes a command's body is
// a bug, and is reported with the command's name and exit code 70 (EX_SOFTWARE, as
// sysexits.h has it) instead of std::terminate's abort and core dump.
#pragma once

#include <cstdio>
#include <exception>

namespace psched {

inline constexpr int kExitInternalError = 70;

template <typename Body>
int GuardedMain(const char* command, Body&& body) noexcept {
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
