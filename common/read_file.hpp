// A whole file, or what a descriptor gives until EOF, into a string, written once (config
// files, secrets, /proc and cgroup files, logs, a helper's output, a readiness pipe).
#pragma once

#include <string>

#include "common/error.hpp"

namespace psched {

// The file's bytes. `what` is the error's message, e.g. "cannot read config file F";
// the error adds the failing call (open or read) and errno.
Result<std::string> ReadWholeFile(const std::string& path, const std::string& what);

// Everything `fd` gives until EOF (a pipe: until every writer closed it); `fd` stays open.
Result<std::string> ReadToEnd(int fd, const std::string& what);

}  // namespace psched
