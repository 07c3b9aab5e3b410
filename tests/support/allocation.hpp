// psched allocations kept open for a test: emulated nodes (psched-alloc) or the
// embedded daemon in a private runtime directory.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {

// psched-alloc running a shell that prints PSCHED_ALLOCATION and waits for its stdin to
// close: the allocation lives until Stop() or the end of the object.
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
  EmbeddedDaemon(const EmbeddedDaemon&) = delete;
  EmbeddedDaemon& operator=(const EmbeddedDaemon&) = delete;
  std::vector<std::string> Env() const { return {"XDG_RUNTIME_DIR=" + xdg_.path()}; }
  std::string RunDir() const { return xdg_ / "psched"; }
  pid_t Pid() const;

 private:
  TempDir xdg_{"psched-it"};  // removed after the destructor has stopped the daemon
};

}  // namespace psched::testing
