// "host:port" to an IPv4 socket address, for every TCP connect of psched (a daemon to its
// parent, a launcher to the leader from another host).
#pragma once

#include <netinet/in.h>

#include <string>

#include "common/error.hpp"

namespace psched::daemon {

// Resolves `address` ("n1:4000", "10.0.0.1:4000"); errors (kInvalidArgument) start with
// `what` ("connecting to parent daemon at n1:4000") and say why.
Result<sockaddr_in> ResolveHostPort(const std::string& address, const std::string& what);

}  // namespace psched::daemon
