#include "launcher/emulated_allocation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "common/child_process.hpp"
#include "daemon/net/auth.hpp"
#include "daemon/net/tree.hpp"
#include "daemon/node/topology.hpp"
#include "launcher/allocation_locator.hpp"
#include "launcher/ctl_client.hpp"

namespace psched::launcher {
namespace {

// Reads one line from a blocking fd; "" at EOF.
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (true) {
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') return line;
    line += c;
  }
}

// "killed by signal 9 (Killed)" or "exit 3", from a wait status.
std::string HowItEnded(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exit " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

std::string FoldingWarning(const EmulatedOptions& options) {
  auto topology = daemon::LoadNodeTopology(options.topology);
  auto real = daemon::RealPuOsIndices();
  if (!topology || !real) return "";
  if (!daemon::EmulationFolds(options.nodes, topology->NumPus(), real->size())) return "";
  const long emulated = static_cast<long>(options.nodes) * topology->NumPus();
  return std::to_string(emulated) + " emulated PUs (" + std::to_string(options.nodes) +
         " nodes x " + std::to_string(topology->NumPus()) + ") fold onto the " +
         std::to_string(real->size()) +
         " real PUs this process may use: pinning and placement decide nothing the hardware "
         "sees, so timings measure no placement effect; ranks get " +
         daemon::kYieldWhenIdle + " unless set";
}

Result<EmulatedAllocation> EmulatedAllocation::Start(const EmulatedOptions& options) {
  EmulatedAllocation alloc;
  char tmpl[] = "/tmp/psched-alloc-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return Fail(Error::FromErrno("mkdtemp", "allocation directory"));
  alloc.dir_ = tmpl;
  auto secret = daemon::Secret::Generate();
  if (!secret) return Fail(secret.error());
  if (auto ok = secret->WriteFile(alloc.dir_ + "/secret"); !ok) return Fail(ok.error());
  daemon::Tree tree{options.nodes, options.fanout};
  std::vector<int> ports(static_cast<size_t>(options.nodes), 0);
  // Breadth-first: a parent listens before its children connect.
  for (int node = 0; node < options.nodes; ++node) {
    std::string parent =
        node == 0 ? ""
                  : "127.0.0.1:" + std::to_string(ports[static_cast<size_t>(tree.Parent(node))]);
    auto port = alloc.StartDaemon(options, node, parent);
    if (!port) return Fail(port.error().WithNode(node));
    ports[static_cast<size_t>(node)] = *port;
  }
  if (auto joined = alloc.AwaitJoin(); !joined) return Fail(joined.error());
  return alloc;
}

// The leader says "ready" once every node has joined its tree. A daemon that dies
// before that would leave the leader, and us, waiting for it forever: watch them all.
Result<void> EmulatedAllocation::AwaitJoin() {
  constexpr int kJoinTimeoutS = 120;
  const int fd = std::exchange(leader_ready_fd_, -1);
  auto wait = [&]() -> Result<void> {
    for (int tick = 0; tick < kJoinTimeoutS * 10; ++tick) {
      pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
      if (poll(&p, 1, 100) > 0) {
        std::string line = ReadLine(fd);
        if (line == "ready") return {};
        return Fail(ErrorCode::kSystem,
                    "the leader daemon failed while the nodes joined: " + LastLogLine(0));
      }
      for (size_t node = 0; node < pids_.size(); ++node) {
        int status = 0;
        if (pids_[node] < 0 || waitpid(pids_[node], &status, WNOHANG) != pids_[node]) continue;
        pids_[node] = -1;  // reaped: Stop() must not wait for it
        return Fail(ErrorCode::kSystem, "daemon for node " + std::to_string(node) +
                                            " exited before every node joined (" +
                                            HowItEnded(status) +
                                            "): " + LastLogLine(static_cast<int>(node)));
      }
    }
    return Fail(ErrorCode::kSystem, "the daemons did not all join within " +
                                        std::to_string(kJoinTimeoutS) +
                                        " s; the leader's log ends: " + LastLogLine(0));
  };
  auto joined = wait();
  close(fd);
  return joined;
}

std::string EmulatedAllocation::LogPath(int node) const {
  return dir_ + "/pschedd-" + std::to_string(node) + ".log";
}

// The log is gone once the failed allocation is stopped: its last line goes into the error.
std::string EmulatedAllocation::LastLogLine(int node) const {
  std::ifstream in(LogPath(node));
  std::string last, line;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "(its log is empty)" : last;
}

Result<int> EmulatedAllocation::StartDaemon(const EmulatedOptions& options, int node,
                                            const std::string& parent) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return Fail(Error::FromErrno("pipe2", "starting a daemon"));
  std::string rundir = node == 0 ? dir_ : dir_ + "/node-" + std::to_string(node);
  std::vector<std::string> args = {SelfDir() + "/pschedd",
                                   "--node",
                                   std::to_string(node),
                                   "--nodes",
                                   std::to_string(options.nodes),
                                   "--fanout",
                                   std::to_string(options.fanout),
                                   "--rundir",
                                   rundir,
                                   "--hostname",
                                   "node" + std::to_string(node),
                                   "--secret-file",
                                   dir_ + "/secret",
                                   "--ready-fd",
                                   "3"};
  if (!parent.empty()) args.insert(args.end(), {"--parent", parent});
  if (!options.topology.empty()) args.insert(args.end(), {"--topology", options.topology});
  if (!options.policy.empty()) args.insert(args.end(), {"--policy", options.policy});
  if (!options.allocator.empty()) args.insert(args.end(), {"--allocator", options.allocator});
  std::string log = LogPath(node);
  int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    Error e = Error::FromErrno("open", "the log of node " + std::to_string(node) + "'s daemon");
    close(ready[0]);
    close(ready[1]);
    return Fail(e);
  }
  ChildSpec spec;
  spec.argv = std::move(args);
  spec.stdin_fd = ChildSpec::kNull;
  spec.stdout_fd = log_fd;
  spec.stderr_fd = log_fd;
  spec.fd3 = ready[1];
  spec.own_process_group = true;       // the terminal's Ctrl-C is for CMD, not the daemons
  spec.parent_death_signal = SIGTERM;  // the allocation ends with psched-alloc
  auto started = StartChild(spec);
  close(log_fd);
  if (!started) {
    close(ready[0]);
    close(ready[1]);
    return Fail(started.error().Wrap("starting the daemon of node " + std::to_string(node)));
  }
  const pid_t pid = *started;
  close(ready[1]);
  pids_.push_back(pid);
  std::string line = ReadLine(ready[0]);
  if (!line.starts_with("port ")) {
    close(ready[0]);
    waitpid(pid, nullptr, 0);
    pids_.back() = -1;
    return Fail(ErrorCode::kSystem, "daemon for node " + std::to_string(node) +
                                        " failed to start: " + LastLogLine(node));
  }
  if (node == 0) {
    leader_ready_fd_ = ready[0];
  } else {
    close(ready[0]);  // a child's own "ready" is implied by the leader's
  }
  return std::atoi(line.c_str() + 5);
}

std::vector<EmulatedAllocation::Ended> EmulatedAllocation::ReapEnded() {
  std::vector<Ended> ended;
  for (size_t node = 0; node < pids_.size(); ++node) {
    int status = 0;
    if (pids_[node] < 0 || waitpid(pids_[node], &status, WNOHANG) != pids_[node]) continue;
    pids_[node] = -1;
    ended.push_back({static_cast<int>(node), HowItEnded(status) + "; its log ends: " +
                                                 LastLogLine(static_cast<int>(node))});
  }
  return ended;
}

void EmulatedAllocation::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (auto fd = ConnectUnix(dir_ + "/pschedd.sock")) {
    (void)CtlRequest(*fd, proto::MsgType::kCtlShutdown);
    close(*fd);
  }
  // Children stop when their parent's link closes; anything left after 5 s is killed.
  std::erase(pids_, -1);  // reaped already
  for (int waited = 0; waited < 50; ++waited) {
    std::erase_if(pids_, [](pid_t p) { return waitpid(p, nullptr, WNOHANG) != 0; });
    if (pids_.empty()) break;
    usleep(100000);
  }
  for (pid_t p : pids_) {
    kill(p, SIGKILL);
    waitpid(p, nullptr, 0);
  }
  pids_.clear();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

EmulatedAllocation::EmulatedAllocation(EmulatedAllocation&& other) noexcept
    : dir_(std::exchange(other.dir_, {})),
      pids_(std::exchange(other.pids_, {})),
      leader_ready_fd_(std::exchange(other.leader_ready_fd_, -1)),
      stopped_(std::exchange(other.stopped_, true)) {}

EmulatedAllocation::~EmulatedAllocation() {
  if (!dir_.empty()) Stop();
}

}  // namespace psched::launcher
