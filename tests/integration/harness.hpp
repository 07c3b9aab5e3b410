// Drives the real binaries for integration tests: child processes with captured
// stdout/stderr, polling helpers over /proc, and emulated/embedded allocations.
// Waiting is always "poll a condition with a generous deadline", never a sleep.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace psched::testing {

// Directory of the built binaries (set by CMake).
std::string Bin(const std::string& name);

class Proc {
 public:
  // Starts argv with extra "NAME=value" env entries; stdin is a pipe unless stdin_data
  // is given (then it is written and closed).
  Proc(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
       bool keep_stdin_open = false);
  ~Proc();
  Proc(const Proc&) = delete;

  pid_t pid() const { return pid_; }
  void WriteStdin(const std::string& data);
  void CloseStdin();
  // Reads output until `done(stdout)` holds or the deadline passes; returns whether it held.
  bool WaitStdout(const std::function<bool(const std::string&)>& done, double seconds = 30);
  bool WaitStderr(const std::function<bool(const std::string&)>& done, double seconds = 30);
  // Reads everything until exit; returns the exit code (128+sig when signalled), -1 on timeout.
  int Wait(double seconds = 60);
  void Signal(int sig);
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  void Pump(int timeout_ms);
  pid_t pid_ = -1;
  int in_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
  int status_ = -1;
  bool reaped_ = false;
};

struct RunResult {
  int code = -1;
  std::string out, err;
};
RunResult RunCmd(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                 const std::string& stdin_data = "");

// Polls `cond` until it holds or `seconds` pass.
bool Eventually(const std::function<bool()>& cond, double seconds = 20);

bool ProcessGone(pid_t pid);         // no /proc entry, or a zombie that is not ours to reap
char ProcessState(pid_t pid);        // 'R', 'S', 'T', 'Z', ... or 0 when gone
std::string CpusAllowed(pid_t pid);  // Cpus_allowed_list
std::vector<pid_t> ChildrenOf(pid_t parent);
// pids of processes whose command line contains every one of `needles`.
std::vector<pid_t> FindProcesses(const std::vector<std::string>& needles);

// An emulated allocation kept open for the whole test: psched-alloc running a shell
// that prints PSCHED_ALLOCATION and waits for its stdin to close.
class EmulatedAlloc {
 public:
  EmulatedAlloc(int nodes, const std::string& topology, int fanout = 8);
  ~EmulatedAlloc();
  bool ok() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::vector<std::string> Env() const { return {"PSCHED_ALLOCATION=" + dir_}; }
  pid_t DaemonPid(int node) const;
  int Stop();  // closes the shell's stdin; returns psched-alloc's exit code

 private:
  Proc proc_;
  std::string dir_;
};

// An embedded daemon in a private XDG_RUNTIME_DIR, shut down at the end.
class EmbeddedDaemon {
 public:
  EmbeddedDaemon();
  ~EmbeddedDaemon();
  std::vector<std::string> Env() const { return {"XDG_RUNTIME_DIR=" + xdg_}; }
  std::string RunDir() const { return xdg_ + "/psched"; }
  pid_t Pid() const;

 private:
  std::string xdg_;
};

// A file the test creates to let ranks go on: "until [ -e F ]; do sleep 0.05; done".
class GoFile {
 public:
  GoFile();
  ~GoFile();
  std::string WaitCmd() const { return "until [ -e " + path_ + " ]; do sleep 0.05; done"; }
  void Go();

 private:
  std::string path_;
};

// Splits into lines (without '\n').
std::vector<std::string> Lines(const std::string& text);
int CountLines(const std::string& text, const std::string& needle);

}  // namespace psched::testing
