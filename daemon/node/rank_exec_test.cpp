#include "daemon/node/rank_exec.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace psched::daemon {
namespace {

int OpenFds() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;  // the iterator's own descriptor
}

RankExecSpec Spec(std::vector<std::string> argv) {
  RankExecSpec spec;
  spec.argv = std::move(argv);
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.bind = false;
  return spec;
}

void Reap(const RankProcess& rank) {
  for (int fd : {rank.out_fd, rank.err_fd, rank.in_fd})
    if (fd >= 0) close(fd);
  int status = 0;
  ASSERT_EQ(waitpid(rank.pid, &status, 0), rank.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(ExecRank, RunsTheCommandAndHandsOverItsPipes) {
  RankExecSpec spec = Spec({"/bin/sh", "-c", "read x; echo \"$x\""});
  spec.with_stdin = true;
  auto rank = ExecRank(spec);
  ASSERT_TRUE(rank) << rank.error().ToString();
  ASSERT_EQ(write(rank->in_fd, "hi\n", 3), 3);
  close(rank->in_fd);
  rank->in_fd = -1;
  char buf[8] = {};
  EXPECT_EQ(read(rank->out_fd, buf, sizeof buf), 3);
  EXPECT_STREQ(buf, "hi\n");
  Reap(*rank);
}

// A descriptor a launch hook hands the rank (PMI_FD) crosses under its own number even
// when the daemon holds it close-on-exec; the daemon's other descriptors do not.
TEST(ExecRank, InheritedDescriptorCrossesUnderItsNumber) {
  int handed[2], other[2];
  ASSERT_EQ(pipe2(handed, O_CLOEXEC), 0);
  ASSERT_EQ(pipe(other), 0);  // not close-on-exec, and still closed in the rank
  const std::string fd = std::to_string(handed[1]);
  RankExecSpec spec =
      Spec({"/bin/sh", "-c", "echo hello >&" + fd + "; ls /proc/self/fd | sort -n | tr '\\n' ' '"});
  spec.inherit_fds = {handed[1]};
  auto rank = ExecRank(spec);
  ASSERT_TRUE(rank) << rank.error().ToString();
  close(handed[1]);
  char buf[16] = {};
  EXPECT_EQ(read(handed[0], buf, sizeof buf), 6);
  EXPECT_STREQ(buf, "hello\n");
  std::string listed(256, '\0');
  listed.resize(static_cast<size_t>(std::max<ssize_t>(0, read(rank->out_fd, listed.data(), 255))));
  EXPECT_EQ(listed.find(" " + std::to_string(other[0]) + " "), std::string::npos) << listed;
  EXPECT_NE(listed.find(" " + fd + " "), std::string::npos) << listed;
  close(handed[0]);
  close(other[0]);
  close(other[1]);
  Reap(*rank);
}

TEST(ExecRank, MissingExecutableIsNamedAndLeaksNothing) {
  const int before = OpenFds();
  auto rank = ExecRank(Spec({"/nonexistent/rank"}));
  ASSERT_FALSE(rank);
  EXPECT_EQ(rank.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(rank.error().ToString().find("'/nonexistent/rank'"), std::string::npos)
      << rank.error().ToString();
  EXPECT_EQ(OpenFds(), before);
}

// The daemon runs for days: when descriptors run out mid-spawn, the pipes already made
// must be closed again, or every later spawn fails too.
TEST(ExecRank, OutOfDescriptorsFailsCleanlyAndLeaksNoPipe) {
  const int before = OpenFds();
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  // Room for the first pipe and half of the second: pipe2 fails with EMFILE on the second.
  // The limit bounds descriptor numbers: stop it just above the third free number.
  int fd = 0;
  for (int free_seen = 0; free_seen < 3; ++fd)
    if (fcntl(fd, F_GETFD) < 0) ++free_seen;
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  auto rank = ExecRank(Spec({"/bin/true"}));
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_FALSE(rank) << "spawned with " << tight.rlim_cur << " descriptors";
  EXPECT_NE(rank.error().ToString().find("pipe2"), std::string::npos) << rank.error().ToString();
  EXPECT_NE(rank.error().ToString().find("spawning '/bin/true'"), std::string::npos)
      << rank.error().ToString();
  EXPECT_EQ(OpenFds(), before);
  // And the next spawn, with descriptors again, works.
  auto again = ExecRank(Spec({"/bin/true"}));
  ASSERT_TRUE(again) << again.error().ToString();
  Reap(*again);
}

}  // namespace
}  // namespace psched::daemon
