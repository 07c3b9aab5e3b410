// psched-exec's side of one session, on a libevent loop: sends the launch request,
// prints the ranks' output (labelled on request), forwards stdin to rank 0 and the
// user's signals to every rank; Ctrl-Z suspends the session everywhere and stops
// the launcher, fg (SIGCONT) resumes both. Returns mpiexec's exit status.
#pragma once

#include <string>

#include "launcher/exec_options.hpp"

namespace psched::launcher {

// Runs the session over the connected daemon socket `fd` (taken over), connected to
// `daemon_socket` (named when the leader goes away), sending `launch` (the encoded
// session.launch) first.
int RunSession(int fd, const ExecOptions& options, const std::string& launch,
               const std::string& daemon_socket);

}  // namespace psched::launcher
