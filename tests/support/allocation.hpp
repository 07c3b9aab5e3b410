// psched allocations kept open for a test: emulated nodes (psched-alloc) or the
// embedded daemon in a private runtime directory.
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {

// psched-alloc running a shell that prints PSCHED_ALLOCATION and waits for its stdin to
// close: the allocation lives until Stop() or the end of the object. A non-empty
// `admin_toml` is the admins' config of its daemons: written to a private file named
// by PSCHED_CONF in psched-alloc's environment only (the test's own stays untouched).
// `env` ("NAME=value") is added to psched-alloc's environment, and so its daemons'.
class EmulatedAlloc {
 public:
  EmulatedAlloc(int nodes, const std::string& topology, int fanout = 8,
                const std::string& admin_toml = "", std::vector<std::string> env = {});
  ~EmulatedAlloc();
  bool ok() const { return !dir_.empty(); }
  // For a failed start: what psched-alloc printed, or that it printed nothing in time.
  std::string Diagnosis() const;
  const std::string& dir() const { return dir_; }
  // Names a path that is no allocation when the start failed: an empty value would let
  // psched-exec fall back to the embedded daemon and leave it running after the test.
  std::vector<std::string> Env() const {
    return {"PSCHED_ALLOCATION=" + (ok() ? dir_ : "/nonexistent/psched-alloc-did-not-start")};
  }
  pid_t DaemonPid(int node) const;
  int Stop();  // closes the shell's stdin; returns psched-alloc's exit code
  // psched-exec `args` in this allocation, left running.
  std::unique_ptr<Proc> Exec(std::vector<std::string> args) const;
  // psched-ctl status --json, retried: on a loaded machine one psched-ctl may fail
  // without the daemons being wrong. {} when it never answers.
  nlohmann::json Status() const;

 private:
  TempDir conf_dir_{"psched-conf"};  // declared first: outlives the daemons reading it
  Proc proc_;
  std::string dir_;
};

// Runs `script` with sh inside `psched-alloc <alloc_args>`, with the build's bin
// directory first on PATH (psched-exec and the test programs live there).
RunResult InAllocation(const std::vector<std::string>& alloc_args, const std::string& script,
                       int timeout_s = 240);

// Session `id` in a Status() ({} when there is none).
nlohmann::json SessionOf(const nlohmann::json& status, int id);

// An embedded daemon in a private XDG_RUNTIME_DIR, shut down at the end.
class EmbeddedDaemon {
 public:
  EmbeddedDaemon();
  ~EmbeddedDaemon();
  EmbeddedDaemon(const EmbeddedDaemon&) = delete;
  EmbeddedDaemon& operator=(const EmbeddedDaemon&) = delete;
  std::vector<std::string> Env() const { return {"XDG_RUNTIME_DIR=" + xdg_.path()}; }
  std::string RunDir() const { return xdg_ / "psched"; }
  pid_t Pid() const;

 private:
  TempDir xdg_{"psched-it"};  // removed after the destructor has stopped the daemon
};

}  // namespace psched::testing
