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

Result<void> ConfirmStopped(const std::vector<pid_t>& pids, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  size_t next = 0;  // processes before `next` are confirmed; stopping is not undone by itself
  while (true) {
    while (next < pids.size()) {
      char st = ProcState(pids[next]);
      if (st != 0 && st != 'T' && st != 't' && st != 'Z' && st != 'X') break;
      ++next;
    }
    if (next == pids.size()) return {};
    if (std::chrono::steady_clock::now() > deadline)
      return Fail(ErrorCode::kTimeout, "process " + std::to_string(pids[next]) +
                                           " did not stop (state " +
                                           std::string(1, ProcState(pids[next])) + ")");
    // The kernel stops a process on its way back to user space: usually microseconds.
    timespec pause{0, 50000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace psched::daemon
