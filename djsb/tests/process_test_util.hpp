// Helpers for djsb's process-running tests: run a shell command, capture its output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace psched::djsb::testing {

struct CommandOutput {
  int exit_code = -1;
  std::string out;  // stdout and stderr when the command redirects 2>&1
};

// Runs `command` through /bin/sh and returns its exit code and stdout.
inline CommandOutput RunCommand(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// mpirun as root inside a container needs both of these; oversubscribe because the
// test machine has 2 cores and the tests ask for more ranks x threads than that.
inline std::string MpirunPrefix(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
         "mpirun --oversubscribe -n " +
         std::to_string(ranks) + " ";
}

}  // namespace psched::djsb::testing
