// The job's start lock in the shared home: a holder excludes every other taker up to a
// deadline that names it; a dead holder's lock is gone at once; the job's directory goes
// with the leader's contact file unless a launcher holds the lock.
#include "daemon/net/start_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/read_file.hpp"
#include "daemon/net/contact_file.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

using psched::testing::TempDir;
using std::chrono::seconds;

std::string Me() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return "pid " + std::to_string(getpid()) + " on " + host;
}

// A job's directory and lock file as the launcher makes them.
std::string LockIn(const TempDir& dir, const std::string& job) {
  EXPECT_TRUE(MakeContactDir(dir / ("psched/" + job)));
  return dir / ("psched/" + job + "/start.lock");
}

TEST(StartLock, IsAPrivateFileInThePrivateJobDirectoryAndNamesItsHolder) {
  TempDir dir;
  const std::string path = LockIn(dir, "42");
  auto lock = StartLock::Take(path, seconds(1));
  ASSERT_TRUE(lock) << lock.error().ToString();
  struct stat st {};
  ASSERT_EQ(stat((dir / "psched/42").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(ReadWholeFile(path, path).value_or(""), Me() + "\n");
}

// A second taker (another open file: flock excludes it as it would another host's) waits
// until its deadline, told who holds the lock, and then fails naming the holder and file.
TEST(StartLock, AHeldLockMakesOthersWaitUpToTheirDeadline) {
  TempDir dir;
  const std::string path = LockIn(dir, "7");
  auto held = StartLock::Take(path, seconds(1));
  ASSERT_TRUE(held);
  std::vector<std::string> told;
  const auto start = std::chrono::steady_clock::now();
  auto second = StartLock::Take(
      path, seconds(1), [&](const std::string& holder, seconds) { told.push_back(holder); });
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(990));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), ErrorCode::kTimeout);
  EXPECT_NE(second.error().message().find("the start lock '" + path +
                                          "' is still held after 1 s"
                                          " (by psched-exec " +
                                          Me() + ")"),
            std::string::npos)
      << second.error().message();
  ASSERT_FALSE(told.empty());
  EXPECT_EQ(told.front(), Me());
  auto waited = WaitForStartLock(path, seconds(0));
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().code(), ErrorCode::kTimeout);
}

TEST(StartLock, AReleasedLockIsTakenAndWaitedForAtOnce) {
  TempDir dir;
  const std::string path = LockIn(dir, "8");
  EXPECT_TRUE(WaitForStartLock(path, seconds(0))) << "no lock file: nothing to wait for";
  { auto first = StartLock::Take(path, seconds(1)); }
  EXPECT_TRUE(WaitForStartLock(path, seconds(0)));
  EXPECT_TRUE(StartLock::Take(path, seconds(0)));
}

// A starter killed while it holds the lock (SIGKILL: no cleanup) leaves the file, but not
// the lock: the next starter takes it at once.
TEST(StartLock, ADeadStartersLockDoesNotBlock) {
  TempDir dir;
  const std::string path = LockIn(dir, "9");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = StartLock::Take(path, seconds(5));
    if (!lock) _exit(1);
    pause();
    _exit(0);
  }
  ASSERT_TRUE(psched::testing::Eventually(
      [&] { return ReadWholeFile(path, path).value_or("").starts_with("pid "); }, 30));
  ASSERT_FALSE(WaitForStartLock(path, seconds(0))) << "the child does not hold the lock";
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  auto lock = StartLock::Take(path, seconds(0));
  EXPECT_TRUE(lock) << lock.error().ToString();
}

// The leader that ends removes its contact file, the free start lock and the job's
// directory; a lock a launcher holds (it starts daemons anew) stays, and its directory.
TEST(StartLock, GoesWithTheContactFileUnlessHeld) {
  TempDir dir;
  const std::string contact = dir / "psched/10/contact";
  const std::string lock_path = dir / "psched/10/start.lock";
  ASSERT_TRUE(WriteContact(contact, "n1:4000", *Secret::Generate()));
  {
    auto held = StartLock::Take(lock_path, seconds(1));
    ASSERT_TRUE(held);
    RemoveContact(contact, "n1:4000");
    EXPECT_FALSE(std::filesystem::exists(contact));
    EXPECT_TRUE(std::filesystem::exists(lock_path));
  }
  ASSERT_TRUE(WriteContact(contact, "n1:4001", *Secret::Generate()));
  RemoveContact(contact, "n1:4001");
  EXPECT_FALSE(std::filesystem::exists(dir / "psched/10")) << "the job's directory is left";
  EXPECT_TRUE(std::filesystem::exists(dir / "psched"));
}

}  // namespace
}  // namespace psched::daemon
