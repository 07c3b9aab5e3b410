// An emulated N-node allocation on this host (psched-alloc): N pschedd, each with
// its own TCP port on 127.0.0.1, its own run directory and the given topology,
// joined in the k-ary tree under one fresh secret (a 0600 file).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched::launcher {

struct EmulatedOptions {
  int nodes = 1;
  int fanout = 8;
  std::string topology;
  std::string allocator;  // empty: the config's default allocator
  std::string policy;
  bool verbose = false;
};

// A one-line warning when the allocation's emulated PUs (nodes x PUs of the topology)
// outnumber the real PUs this process may use: the daemons then fold several emulated
// PUs onto one real CPU (daemon/topology.hpp), so pinning, sidestep and overbook decide
// nothing the hardware sees; the daemons then give ranks yield-when-idle (their busy
// polling would take the shared CPUs from each other). Empty when every emulated PU has
// a real one of its own, or when the topology does not load (the daemon reports that).
std::string FoldingWarning(const EmulatedOptions& options);

class EmulatedAllocation {
 public:
  // Starts every daemon and returns when the leader reports that all have joined.
  static Result<EmulatedAllocation> Start(const EmulatedOptions& options);
  // The moved-from object owns nothing and stops nothing when destroyed.
  EmulatedAllocation(EmulatedAllocation&& other) noexcept;
  ~EmulatedAllocation();

  const std::string& dir() const { return dir_; }  // PSCHED_ALLOCATION
  // A daemon that ended while the allocation ran, reaped: which node and how.
  struct Ended {
    int node = 0;
    std::string how;  // "killed by signal 9 (Killed)", "exit 1", with its last log line
  };
  // The daemons that ended since the last call (none are left as zombies). The leader's
  // (node 0) end is the allocation's: nobody can launch any more.
  std::vector<Ended> ReapEnded();
  // Asks the leader to shut down, waits for every daemon, removes the directory.
  void Stop();

 private:
  EmulatedAllocation() = default;
  Result<int> StartDaemon(const EmulatedOptions& options, int node, const std::string& parent);
  Result<void> AwaitJoin();
  std::string LogPath(int node) const;
  std::string LastLogLine(int node) const;

  std::string dir_;
  std::vector<pid_t> pids_;  // by node; -1 once reaped
  int leader_ready_fd_ = -1;
  bool stopped_ = false;
};

}  // namespace psched::launcher
