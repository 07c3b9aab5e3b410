// Child processes for tests: start a program with captured stdout/stderr, feed its
// stdin, wait for output or exit with a generous deadline (never a sleep).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace psched::testing {

// Path of a built binary: the build's bin directory (set by CMake) + name.
std::string Bin(const std::string& name);
// "PATH=<bin dir>:$PATH", an env entry for scripts that call the built binaries by name.
std::string PathWithBin();

// What the child's stdout is: a pipe, or a raw pseudo-terminal (common/raw_pty.hpp) as
// when a user runs it on a terminal, read back byte for byte.
enum class StdoutIs { kPipe, kTerminal };

class Proc {
 public:
  // Starts argv (searched on PATH) with extra "NAME=value" env entries overriding ours.
  // Stdin is a pipe, closed at once unless keep_stdin_open.
  Proc(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
       bool keep_stdin_open = false, StdoutIs out_is = StdoutIs::kPipe);
  ~Proc();  // SIGKILL and reap when still running
  Proc(const Proc&) = delete;
  Proc& operator=(const Proc&) = delete;

  pid_t pid() const { return pid_; }
  void WriteStdin(const std::string& data);
  void CloseStdin();
  // Reads output until `done(stdout)` holds or the deadline passes; returns whether it held.
  bool WaitStdout(const std::function<bool(const std::string&)>& done, double seconds = 30);
  bool WaitStderr(const std::function<bool(const std::string&)>& done, double seconds = 30);
  // Reads everything until exit; returns the exit code (128+sig when signalled), -1 on
  // timeout. Output still arriving after the exit is read until the same deadline.
  int Wait(double seconds = 60);
  void Signal(int sig);
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  bool WaitOutput(const std::string& sink, const std::function<bool(const std::string&)>& done,
                  double seconds);
  void Pump(int timeout_ms);
  pid_t pid_ = -1;
  int in_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
  int status_ = -1;
  bool reaped_ = false;
};

struct RunResult {
  int code = -1;  // exit code, 128+signal, -1 when it did not end within the deadline
  std::string out, err;
};
// Runs argv to its end (killed after `seconds`) and returns its code and output.
RunResult RunCmd(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                 const std::string& stdin_data = "", double seconds = 120);
// The same through /bin/sh -c (redirections, pipes, variables).
RunResult RunShell(const std::string& command, const std::vector<std::string>& env = {},
                   double seconds = 120);

}  // namespace psched::testing
