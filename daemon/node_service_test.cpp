// NodeService with real ranks on a real event loop.
#include "daemon/node_service.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "daemon/node_service_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

// A child that leads a process group of its own and waits, with pid `want` when the
// kernel can be asked for it (ns_last_pid, root in the initial pid namespace): what a
// process that reused a dead group leader's pid looks like. -1 when it cannot be had.
pid_t GroupLeaderWithPid(pid_t want) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    {
      std::ofstream last("/proc/sys/kernel/ns_last_pid");
      if (!last) return -1;
      last << want - 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    if (pid == want) return pid;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    if (kill(want, 0) == 0) return -1;  // another process took it meanwhile
  }
  return -1;
}

using NodeServiceTest = NodeServiceFixture;

// The session outlives its only rank (a process it started outside its group holds its
// output open), the group empties, and the leader's pid comes back as another group's
// leader: a signal for the session must not reach that group.
TEST_F(NodeServiceTest, SignalSkipsAGroupThatReusedTheLeadersPid) {
  psched::testing::GoFile go;
  Spawn(1, 1, {"sh", "-c", "setsid sleep 29.25 & " + go.WaitCmd()});
  const pid_t leader = Pids(1).front();
  go.Go();
  ASSERT_TRUE(Loop([&] { return ranks_->LocalProcesses(1).empty(); })) << "rank never reaped";
  ASSERT_EQ(ranks_->num_sessions(), 1u) << "the session ended: nothing held its output";
  const pid_t stranger = GroupLeaderWithPid(leader);
  for (pid_t p : psched::testing::FindProcesses({"sleep", "29.25"})) kill(p, SIGKILL);
  if (stranger < 0) GTEST_SKIP() << "pid " << leader << " could not be had again here";
  ranks_->Signal(1, SIGTERM);
  usleep(100000);
  EXPECT_EQ(waitpid(stranger, nullptr, WNOHANG), 0) << "the stranger's group got the signal";
  kill(stranger, SIGKILL);
  waitpid(stranger, nullptr, 0);
}

// While the leader rank lives, the group is the session's: every member gets it.
TEST_F(NodeServiceTest, SignalReachesTheGroupWhileItsLeaderLives) {
  Spawn(2, 1, {"sh", "-c", "sleep 30 & wait"});
  const pid_t leader = Pids(2).front();
  ASSERT_TRUE(
      psched::testing::Eventually([&] { return psched::testing::ChildrenOf(leader).size() == 1; }));
  const pid_t member = psched::testing::ChildrenOf(leader).front();
  ranks_->Signal(2, SIGTERM);
  EXPECT_TRUE(psched::testing::Eventually([&] { return psched::testing::ProcessGone(member); }))
      << "the group's other member did not get the signal";
  EXPECT_TRUE(Loop([&] { return ranks_->num_sessions() == 0; }));
}

}  // namespace
}  // namespace psched::daemon
