#include "daemon/node/suspend.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "daemon/node/proc_tree.hpp"

namespace psched::daemon {
namespace {

// A vfork parent sleeps in state D until its child execs or exits. When SIGSTOP
// reaches a shell's process group just as it vforks a command, the child stops before
// exec and the shell can neither run nor stop: it is held as surely as a stopped
// process (with the SIGSTOP pending for when it can run), and counts as one. So does
// any process in D whose children are all stopped; one in D with a running child, or
// with none (a hung file system), does not. (The kernel's wchan would tell a vfork
// wait apart, but reads "0" whenever it cannot unwind the sleeping task.)
bool HeldByStoppedChildren(pid_t pid) {
  std::vector<pid_t> kids = ChildrenOf(pid);
  return !kids.empty() && std::all_of(kids.begin(), kids.end(), [](pid_t kid) {
    char st = ProcState(kid);
    return st == 'T' || st == 't';
  });
}

}  // namespace

char ProcState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  // The command name is in parentheses and may hold spaces: the state follows the last ')'.
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return 0;
  return line[close + 2];
}

bool AllStopped(const std::vector<pid_t>& pids, pid_t* running) {
  for (pid_t pid : pids) {
    char st = ProcState(pid);
    if (st == 'D' && HeldByStoppedChildren(pid)) continue;
    if (st != 0 && st != 'T' && st != 't' && st != 'Z' && st != 'X') {
      if (running) *running = pid;
      return false;
    }
  }
  return true;
}

Result<bool> LookFor(const std::function<Result<bool>()>& look, double budget_s) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(budget_s);
  while (true) {
    Result<bool> done = look();
    if (!done || *done) return done;
    if (std::chrono::steady_clock::now() >= until) return false;
    // The kernel stops a process on its way back to user space: usually microseconds.
    timespec pause{0, 50000};
    nanosleep(&pause, nullptr);
  }
}

Result<void> ConfirmStopped(const std::vector<pid_t>& pids, double timeout_s) {
  pid_t running = 0;
  auto stopped = LookFor([&]() -> Result<bool> { return AllStopped(pids, &running); }, timeout_s);
  if (*stopped) return {};
  return Fail(ErrorCode::kTimeout, "process " + std::to_string(running) + " did not stop (state " +
                                       std::string(1, ProcState(running)) + ")");
}

}  // namespace psched::daemon
