#include "tests/support/allocation.hpp"

#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {

EmulatedAlloc::EmulatedAlloc(int nodes, const std::string& topology, int fanout)
    : proc_({Bin("psched-alloc"), "-N", std::to_string(nodes), "--topology", topology, "--fanout",
             std::to_string(fanout), "--", "sh", "-c",
             "echo \"alloc=$PSCHED_ALLOCATION\"; exec cat > /dev/null"},
            {}, /*keep_stdin_open=*/true) {
  if (proc_.WaitStdout([](const std::string& s) { return s.find('\n') != std::string::npos; })) {
    auto line = Lines(proc_.out()).front();
    if (line.starts_with("alloc=")) dir_ = line.substr(6);
  }
}

EmulatedAlloc::~EmulatedAlloc() {
  Stop();
}

int EmulatedAlloc::Stop() {
  proc_.CloseStdin();
  return proc_.Wait(60);
}

pid_t EmulatedAlloc::DaemonPid(int node) const {
  std::string rundir = node == 0 ? dir_ + " " : dir_ + "/node-" + std::to_string(node) + " ";
  auto pids = FindProcesses({"pschedd", "--rundir " + rundir});
  return pids.empty() ? -1 : pids.front();
}

EmbeddedDaemon::EmbeddedDaemon() = default;

EmbeddedDaemon::~EmbeddedDaemon() {
  RunCmd({Bin("psched-ctl"), "shutdown"}, Env());
  pid_t pid = Pid();
  if (pid > 0) Eventually([pid] { return ProcessGone(pid); }, 10);
}

pid_t EmbeddedDaemon::Pid() const {
  auto pids = FindProcesses({"pschedd", "--rundir " + RunDir()});
  return pids.empty() ? -1 : pids.front();
}

}  // namespace psched::testing
