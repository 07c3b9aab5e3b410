// A rank that SIGSTOP cannot stop, for the rollback tests: it vforks a child that
// never execs nor exits, so it waits in uninterruptible sleep (state D) as a rank
// stuck in I/O on a hung file system would. The child leaves the rank's process group,
// so the session's SIGSTOP does not stop it either: a process in D whose children are
// all stopped counts as stopped (daemon/node/suspend.hpp), one whose child runs does not. A
// pending SIGSTOP never takes effect; SIGKILL still ends the rank (the vfork wait is
// killable), and the child dies with it.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int main() {
  pid_t child = vfork();
  if (child == 0) {
    // Only system calls here: the child borrows the parent's memory until it ends.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    for (;;) pause();
  }
  return child < 0 ? 1 : 0;
}
