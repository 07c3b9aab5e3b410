#include "daemon/node/suspend.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/eventually.hpp"

namespace psched::daemon {
namespace {

// A process (leading its own group) that vforks a child which only waits: the parent
// sleeps in state D until the child ends. With `child_leaves_group` the child moves to
// a group of its own, out of reach of a SIGSTOP to the parent's group.
class VforkParent {
 public:
  explicit VforkParent(bool child_leaves_group) : child_leaves_group_(child_leaves_group) {
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      if (vfork() == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (child_leaves_group) setpgid(0, 0);
        for (;;) pause();
      }
      _exit(0);
    }
  }
  ~VforkParent() {
    kill(-pid_, SIGKILL);
    if (child_ > 0) kill(child_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  // Waits until the parent is in its vfork wait and the child is known (and, if it is to
  // leave the group, has left it: a SIGSTOP to the group would otherwise still reach it).
  bool Ready() {
    return psched::testing::Eventually([&] {
      std::ifstream in("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) +
                       "/children");
      in >> child_;
      return ProcState(pid_) == 'D' && child_ > 0 &&
             (!child_leaves_group_ || getpgid(child_) == child_);
    });
  }
  pid_t child() const { return child_; }

 private:
  bool child_leaves_group_;
  pid_t pid_ = -1;
  pid_t child_ = 0;
};

TEST(AllStopped, StoppedRunningAndGoneProcesses) {
  pid_t sleeper = fork();
  if (sleeper == 0) {
    for (;;) pause();
  }
  pid_t running = 0;
  EXPECT_FALSE(AllStopped({sleeper}, &running));
  EXPECT_EQ(running, sleeper);
  kill(sleeper, SIGSTOP);
  EXPECT_TRUE(psched::testing::Eventually([&] { return AllStopped({sleeper}); }));
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
  EXPECT_TRUE(AllStopped({sleeper}));  // gone
}

// A shell that vforks a command just as its group gets SIGSTOP: the child stops before
// exec, the shell stays in D, and the suspend must still be confirmed.
TEST(AllStopped, VforkParentOfAStoppedChildCountsAsStopped) {
  VforkParent p(/*child_leaves_group=*/false);
  ASSERT_TRUE(p.Ready());
  EXPECT_FALSE(AllStopped({p.pid()})) << "the child still runs";
  kill(-p.pid(), SIGSTOP);
  ASSERT_TRUE(psched::testing::Eventually([&] { return ProcState(p.child()) == 'T'; }));
  EXPECT_EQ(ProcState(p.pid()), 'D');
  EXPECT_TRUE(AllStopped({p.pid()}));
  EXPECT_TRUE(ConfirmStopped({p.pid()}, 1).has_value());
}

// Its child was not stopped: the parent in D cannot be held, and the error says so.
TEST(AllStopped, VforkParentOfARunningChildIsNotStopped) {
  VforkParent p(/*child_leaves_group=*/true);
  ASSERT_TRUE(p.Ready());
  kill(-p.pid(), SIGSTOP);
  pid_t running = 0;
  EXPECT_FALSE(AllStopped({p.pid()}, &running));
  EXPECT_EQ(running, p.pid());
  auto confirmed = ConfirmStopped({p.pid()}, 0.2);
  ASSERT_FALSE(confirmed.has_value());
  EXPECT_NE(confirmed.error().ToString().find("process " + std::to_string(p.pid()) +
                                              " did not stop (state D)"),
            std::string::npos)
      << confirmed.error().ToString();
}

}  // namespace
}  // namespace psched::daemon
