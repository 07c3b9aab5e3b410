// The apps of one MPI_Comm_spawn(_multiple) in a ChildSpawnRequest, whichever wire-up
// asked (PMIx's spawn upcall, PMI-1's mcmd=spawn blocks): one app is the session's
// command line; several are one session (one MPI_COMM_WORLD, ranks numbered app after
// app) whose ranks each exec their own app's command through a /bin/sh wrapper.
#pragma once

#include <string>
#include <vector>

#include "proto/messages.hpp"

namespace psched::proto {

struct ChildApp {
  std::vector<std::string> argv;  // the command first
  std::vector<std::string> env;   // "NAME=value" additions for this app's ranks
  std::string cwd;                // "": the parent's
  int ranks = 1;
};

// Fills ask.argv, env, cwd, ranks and (several apps) app_sizes from `apps` (at least
// one, each with a command). Variables every app adds go into the session's
// environment, the others into the wrapper, per app.
void SetChildApps(ChildSpawnRequest& ask, const std::vector<ChildApp>& apps);

}  // namespace psched::proto
