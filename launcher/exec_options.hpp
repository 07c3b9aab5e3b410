// psched-exec's command line (mpiexec conventions), parsed with CLI11 into plain
// values and validated before anything is started.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched::launcher {

struct ExecOptions {
  int ranks = 1;          // -n/--np
  int nodes = 0;          // -N/--nodes
  int ppn = 0;            // --ppn
  int cpus_per_rank = 1;  // -c/--cpus-per-rank
  bool spread = false;
  std::vector<std::string> exports;  // -x VAR[=value]
  std::string chdir;
  bool label = false;
  bool no_pty = false;  // --no-pty: ranks' stdout a pipe even when ours is a terminal
  double time_s = 0;    // --time
  std::string policy;
  std::string allocator;
  std::string mpi;          // --mpi: the wire-up ("": the admin's default)
  double kill_wait_s = -1;  // --kill-wait (negative: the admin's [launch] kill_wait_s)
  bool quiet = false;
  int verbose = 0;
  std::vector<std::string> command;
};

// Either the options, or an exit code after help/errors were printed (0 for --help).
struct ParsedExec {
  ExecOptions options;
  bool exit = false;
  int exit_code = 0;
};
ParsedExec ParseExecOptions(int argc, const char* const* argv);

// -n, -N, --ppn and -c: a positive integer, else "-n needs a positive integer, got 'abc'".
Result<int> ParseCount(const std::string& flag, const std::string& text);

// "90", "1:30", "1:00:00" -> seconds.
Result<double> ParseDuration(const std::string& text);

// --kill-wait: seconds in [0, config::kMaxKillWaitS].
Result<double> ParseKillWait(const std::string& text);

// The ranks' working directory in full: --chdir DIR (from here when relative), else
// this one. An error when the current directory is needed and cannot be named
// (removed, or no longer reachable).
Result<std::string> RanksDirectory(const std::string& chdir);

// The environment for the ranks: this process's, with -x VAR=value applied.
// "-x VAR" exports VAR from here and is an error when VAR is not set.
Result<std::vector<std::string>> RankEnvironment(const std::vector<std::string>& exports,
                                                 char** environ);

// Finds the command as the daemon will: on the ranks' PATH (`env`), relative entries and
// paths from `chdir`. Checked here so a typo fails at once, before any daemon is asked.
Result<std::string> ResolveExecutable(const std::string& command, const std::string& chdir,
                                      const std::vector<std::string>& env);

}  // namespace psched::launcher
