// The start lock of a Slurm job's daemons: ~/.psched/JOBID/start.lock, beside the contact
// file, so that first calls of psched-exec on any host of the cluster (the login host, the
// allocation's nodes) start one daemon network between them, and later callers wait for it.
//
// It is an flock(2)ed file in the job's directory under the shared home. Linux's NFS client
// maps flock to the protocol's byte-range locks (NFSv4, NFSv3 with lockd), so one host's
// lock is seen by all; a lock dies with its process, and with its host when the NFS
// server's lease or lockd recovery ends (a stale lock of a dead starter never blocks). A
// starter that hangs is waited for only up to a deadline. The holder writes "HOST PID"
// into the file, so that a waiter can say whom it waits for.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "common/error.hpp"

namespace psched::daemon {

// Its name in the job's directory, and its path for Slurm job `job_id` (in ContactDir).
inline constexpr const char* kStartLockName = "start.lock";
std::string StartLockPath(const std::string& job_id);

// Told "HOST PID" of the holder (or "" when it has not said yet) and how long the caller
// has waited so far, about once a second while another one holds the lock.
using StartLockWaiting =
    std::function<void(const std::string& holder, std::chrono::seconds waited)>;

// The held lock; released when destroyed.
class StartLock {
 public:
  StartLock(StartLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StartLock& operator=(StartLock&&) = delete;
  StartLock(const StartLock&) = delete;
  ~StartLock();

  // Takes the lock at `path` exclusively, making the file (0600) when missing (its
  // directory must exist: MakeContactDir); waits up to `wait` for another holder. Past it,
  // the error (kTimeout) names the holder and the file.
  static Result<StartLock> Take(const std::string& path, std::chrono::seconds wait,
                                const StartLockWaiting& waiting = {});

 private:
  explicit StartLock(int fd) : fd_(fd) {}
  int fd_;
};

// Waits until nobody holds the lock at `path` (at once when there is no such file), up to
// `wait`; past it, the error (kTimeout) names the holder and the file.
Result<void> WaitForStartLock(const std::string& path, std::chrono::seconds wait,
                              const StartLockWaiting& waiting = {});

// Removes the file at `path` unless someone holds it (a launcher starting daemons right now).
void RemoveFreeStartLock(const std::string& path);

}  // namespace psched::daemon
