// A launcher's TCP connection to the leader (psched-exec or psched-ctl on a host without
// the leader's Unix socket: the salloc shell on a login host).
//
// The leader's launcher listener (LauncherService::ListenTcp) runs the peer links' HMAC
// challenge (auth.hpp) with the node id kLauncherNode: a launcher proves the allocation
// secret as a launcher, never as a daemon (PeerLink refuses node -1, the launcher listener
// every other id), and the leader proves it back. After that the connection carries the
// same frames as the Unix socket.
#pragma once

#include <chrono>
#include <string>

#include "common/error.hpp"
#include "daemon/net/auth.hpp"

namespace psched::daemon {

inline constexpr int kLauncherNode = -1;

// Connects to the leader's launcher listener at "host:port" and authenticates; returns a
// blocking, close-on-exec, connected fd. Errors: ECONNREFUSED (connect) when nothing
// listens there; kPermissionDenied when the leader refuses the secret or fails to prove
// it; kTimeout when connecting or the handshake takes longer than `timeout`.
Result<int> ConnectAsLauncher(const std::string& address, const Secret& secret,
                              std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace psched::daemon
