#include "common/closed_stdio.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace psched {
namespace {

// In a child, since it closes the test's own stdio: each of 0-2 closed becomes /dev/null,
// and one left open keeps what it was. The exit status names the first check that failed.
TEST(OpenNullOntoClosedStdio, ClosedOnesBecomeDevNullOpenOnesStay) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int kept = open("/dev/zero", O_RDONLY);
    if (kept < 0 || dup2(kept, 1) != 1) _exit(10);
    close(kept);
    close(0);
    close(2);
    if (!OpenNullOntoClosedStdio()) _exit(11);
    auto target = [](int fd) {
      std::error_code ec;
      return std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec).string();
    };
    if (target(0) != "/dev/null") _exit(12);
    if (target(1) != "/dev/zero") _exit(13);
    if (target(2) != "/dev/null") _exit(14);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace psched
