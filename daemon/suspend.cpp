#include "daemon/suspend.hpp"

#include <time.h>

#include <chrono>
#include <fstream>
#include <string>

namespace psched::daemon {

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
