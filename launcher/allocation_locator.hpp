// Where psched-exec and psched-ctl find their allocation's leader daemon:
//   1. PSCHED_ALLOCATION=<run dir> (set by psched-alloc): <run dir>/pschedd.sock;
//   2. inside a Slurm allocation: the daemons launcher/slurm starts with srun (FindSlurmLeader),
//      through the leader's Unix socket on its node, else over TCP through the job's
//      contact file (ConnectSlurmLeader);
//   3. the embedded default: a daemon for this machine alone in
//      $XDG_RUNTIME_DIR/psched or /tmp/psched-<uid>, started on first use and reused.
#pragma once

#include <functional>
#include <string>

#include "common/error.hpp"
#include "common/unix_socket.hpp"

namespace psched::launcher {

using psched::ConnectUnix;  // callers and tests say launcher::ConnectUnix

struct AllocationSocket {
  std::string path;
  std::string kind;      // "psched-alloc", "slurm", "embedded"
  std::string contact;   // slurm: the leader's contact file (for launchers on other hosts)
  std::string via;       // slurm: how it was reached (the socket, or TCP from the contact file)
  bool started = false;  // the embedded daemon was started for this call
};

// The run directory of the embedded daemon for this user.
std::string EmbeddedRunDir();

// Connects to the allocation's leader socket; with `start_embedded`, starts the
// embedded daemon when there is no allocation and no daemon yet. Returns a connected fd.
// `progress`, when set, hears what the call waits for (psched-exec -v).
Result<int> ConnectToAllocation(bool start_embedded, AllocationSocket* where,
                                const std::function<void(const std::string&)>& progress = {});

// What psched-ctl and psched-exec say when ConnectToAllocation failed: that no daemon
// runs for this allocation (or this user, on this machine), or that the one that made the
// socket is gone (connection refused), what to do, and the socket it looked at; `error`
// when it is not simply absent.
std::string NoDaemonMessage(const AllocationSocket& where, const Error& error);

// Directory of the running executable (pschedd is looked up beside psched-exec).
std::string SelfDir();

}  // namespace psched::launcher
