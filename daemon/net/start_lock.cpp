#include "daemon/net/start_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "daemon/net/contact_file.hpp"  // ContactDir

namespace psched::daemon {
namespace {

using Clock = std::chrono::steady_clock;

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

// "pid PID on HOST" as the holder wrote it; "" before it did.
std::string Holder(int fd) {
  char text[320] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder;
}

// Locks `fd` (the file at `path`) with `op`, LOCK_EX or LOCK_SH, polling (a blocking flock
// could not keep the deadline) until `deadline`.
Result<void> Lock(int fd, int op, const std::string& path, Clock::time_point deadline,
                  const StartLockWaiting& waiting) {
  const auto start = Clock::now();
  auto pause = std::chrono::milliseconds(1);
  auto next_report = start;
  while (flock(fd, op | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return Fail(Error::FromErrno("flock", "the start lock '" + path + "'"));
    const auto now = Clock::now();
    const std::string holder = Holder(fd);
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - start);
    if (now >= deadline) {
      return Fail(ErrorCode::kTimeout,
                  "the start lock '" + path + "' is still held after " +
                      std::to_string(waited.count()) + " s" +
                      (holder.empty() ? "" : " (by psched-exec " + holder + ")"));
    }
    if (waiting && now >= next_report) {
      waiting(holder, waited);
      next_report = now + std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(
        std::min(pause, std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - now + std::chrono::milliseconds(1))));
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  return {};
}

// Whether `fd` is still the file at `path`: RemoveFreeStartLock may have unlinked it
// between our open and our lock, and a lock on an unlinked file excludes nobody.
bool StillThere(int fd, const std::string& path) {
  struct stat held {
  }, named{};
  return fstat(fd, &held) == 0 && stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

std::string StartLockPath(const std::string& job_id) {
  return ContactDir(job_id) + "/" + kStartLockName;
}

StartLock::~StartLock() {
  if (fd_ >= 0) close(fd_);
}

Result<StartLock> StartLock::Take(const std::string& path, std::chrono::seconds wait,
                                  const StartLockWaiting& waiting) {
  const auto deadline = Clock::now() + wait;
  while (true) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return Fail(Error::FromErrno("open", "the start lock '" + path + "'"));
    if (auto locked = Lock(fd, LOCK_EX, path, deadline, waiting); !locked) {
      close(fd);
      return Fail(locked.error());
    }
    if (!StillThere(fd, path)) {  // removed meanwhile: lock the file there now
      close(fd);
      continue;
    }
    const std::string me = "pid " + std::to_string(getpid()) + " on " + HostName() + "\n";
    // Should this fail, waiters' messages only lose the holder's name: the lock holds.
    [[maybe_unused]] const bool said =
        ftruncate(fd, 0) == 0 && pwrite(fd, me.data(), me.size(), 0) > 0;
    return StartLock(fd);
  }
}

Result<void> WaitForStartLock(const std::string& path, std::chrono::seconds wait,
                              const StartLockWaiting& waiting) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return {};  // nobody ever started the daemons: nothing to wait for
  auto locked = Lock(fd, LOCK_SH, path, Clock::now() + wait, waiting);
  close(fd);
  return locked;
}

void RemoveFreeStartLock(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0 && StillThere(fd, path)) unlink(path.c_str());
  close(fd);
}

}  // namespace psched::daemon
