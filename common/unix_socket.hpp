// Unix stream sockets by path, written once: the launcher's and the daemon's sides of
// the allocation's local socket.
#pragma once

#include <sys/un.h>

#include <string>

#include "common/error.hpp"

namespace psched {

// The socket address of `path`; an error when the path does not fit (108 bytes).
Result<sockaddr_un> UnixAddress(const std::string& path);

// A connected, close-on-exec socket; an error names the path.
Result<int> ConnectUnix(const std::string& path);

}  // namespace psched
