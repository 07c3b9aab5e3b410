// Starting a launcher command (psched-exec, mpirun, srun) as the modelled user does,
// and reading psched-stream's JSON line from its output afterwards.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "djsb/interaction.hpp"
#include "djsb/metrics.hpp"

namespace psched::djsb {

// A launcher process running `/bin/sh -c command` in its own process group, its
// stdout and stderr going to output_path.
struct LaunchedSession {
  pid_t pid = -1;
  double submit = 0;  // wall clock taken just before the launcher was started
  std::string output_path;
  bool exited = false;
  int exit_code = -1;
};

double WallClockNow();

// Starts the command with `extra_env` ("NAME=value") added to this process's environment.
Result<LaunchedSession> LaunchSession(const std::string& command,
                                      const std::vector<std::string>& extra_env,
                                      const std::string& output_path);

// Non-blocking: true when it has exited (exit_code filled in).
bool PollExited(LaunchedSession& session);

// SIGKILL to the session's process group (cleanup after an error or a timeout).
void KillSession(LaunchedSession& session);

// The completion times of the iterations psched-stream reported so far in the launcher's
// output (kStreamIterationMarker with this tag): element k-1 is iteration k's.
std::vector<double> ReportedIterations(const LaunchedSession& session, const std::string& tag);

// Reads the launcher's output and returns begin/end from psched-stream's JSON line,
// with submit from the session. An error quotes the end of the output. With `interaction`,
// also what an analysis of the interactive djsb reported of its pulls (nullopt: none).
Result<RunTimes> ReadStreamTimes(const LaunchedSession& session,
                                 std::optional<InteractionRecord>* interaction = nullptr);

}  // namespace psched::djsb
