#include "common/child_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/read_file.hpp"

namespace psched {
namespace {

int WaitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadAll(int fd) {
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  return text;
}

TEST(StartChild, DescriptorsZeroToThreeAsAskedAndNothingElse) {
  int out[2], ready[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
  int stray = open("/dev/null", O_RDONLY);  // not close-on-exec: must still not reach the child
  ASSERT_GE(stray, 0);
  ChildSpec spec;
  spec.argv = {"sh", "-c", "echo ready >&3; read x; echo \"in=[$x]\"; ls /proc/self/fd"};
  spec.stdin_fd = ChildSpec::kNull;
  spec.stdout_fd = out[1];
  spec.stderr_fd = ChildSpec::kNull;
  spec.fd3 = ready[1];
  auto pid = StartChild(spec);
  close(out[1]);
  close(ready[1]);
  close(stray);
  ASSERT_TRUE(pid) << pid.error().ToString();
  EXPECT_EQ(ReadAll(ready[0]), "ready\n");
  // sh reads /dev/null (empty); ls lists 0-3 and its own directory descriptor, and sh's
  // fd 10 (dash keeps one) is not ls's.
  EXPECT_EQ(ReadAll(out[0]), "in=[]\n0\n1\n2\n3\n4\n");
  close(out[0]);
  close(ready[0]);
  EXPECT_EQ(WaitFor(*pid), 0);
}

TEST(StartChild, TheGivenEnvironmentOnly) {
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  setenv("PSCHED_CHILD_TEST_MARK", "ours", 1);
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"$ONLY ${PSCHED_CHILD_TEST_MARK:-unset}\""};
  spec.env = {"ONLY=this", "PATH=/usr/bin:/bin"};
  spec.stdout_fd = out[1];
  auto pid = StartChild(spec);
  unsetenv("PSCHED_CHILD_TEST_MARK");
  close(out[1]);
  ASSERT_TRUE(pid) << pid.error().ToString();
  EXPECT_EQ(ReadAll(out[0]), "this unset\n");
  close(out[0]);
  EXPECT_EQ(WaitFor(*pid), 0);
}

TEST(StartChild, OwnSessionAndDefaultSignals) {
  ChildSpec spec;
  spec.argv = {"sleep", "30"};
  spec.own_session = true;
  // An ignored SIGINT here must not stay ignored in the child.
  auto old = signal(SIGINT, SIG_IGN);
  auto pid = StartChild(spec);
  signal(SIGINT, old);
  ASSERT_TRUE(pid) << pid.error().ToString();
  EXPECT_EQ(getsid(*pid), *pid) << "not the leader of its own session";
  kill(*pid, SIGINT);
  EXPECT_EQ(WaitFor(*pid), 128 + SIGINT) << "SIGINT stayed ignored in the child";
}

// In a child, as it is used: which descriptors from 3 up stay open, as a bit mask.
int OpenAfterClosing(int first, int keep) {
  pid_t pid = fork();
  if (pid == 0) {
    for (int fd = 3; fd < 8; ++fd) dup2(0, fd);
    if (!CloseDescriptorsFrom(first, keep)) _exit(255);
    int open_mask = 0;
    for (int fd = 3; fd < 8; ++fd)
      if (fcntl(fd, F_GETFD) >= 0) open_mask |= 1 << fd;
    _exit(open_mask >> 3);
  }
  return WaitFor(pid) << 3;
}

TEST(CloseDescriptorsFrom, KeepsOnlyWhatIsBelowFirstAndTheOneKept) {
  EXPECT_EQ(OpenAfterClosing(3, 5), 1 << 5);
  EXPECT_EQ(OpenAfterClosing(3, 3), 1 << 3);
  EXPECT_EQ(OpenAfterClosing(5, 3), (1 << 3) | (1 << 4));
  EXPECT_EQ(OpenAfterClosing(4, 7), (1 << 3) | (1 << 7));
}

TEST(StartChild, AFailedExecIsTheCallersErrorAndTheChildIsReaped) {
  ChildSpec spec;
  spec.argv = {"/nonexistent/helper", "x"};
  auto pid = StartChild(spec);
  ASSERT_FALSE(pid);
  EXPECT_EQ(pid.error().sys_errno(), ENOENT);
  EXPECT_EQ(pid.error().ToString(),
            "cannot run '/nonexistent/helper': execvp: No such file or directory");
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "a child was left unreaped";
  EXPECT_EQ(errno, ECHILD);
  EXPECT_FALSE(StartChild(ChildSpec{}));
}

}  // namespace
}  // namespace psched
