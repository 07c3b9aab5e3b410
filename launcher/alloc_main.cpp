// psched-alloc: an emulated N-node allocation on this host, for tests, demos and
// scale benchmarks:  psched-alloc -N 4 --topology "pack:2 core:20 pu:1" -- CMD
// Runs CMD with PSCHED_ALLOCATION set and returns its exit status; SIGTERM and SIGHUP
// go to CMD, and the allocation ends (daemons stopped, directory removed) after it. When
// the leader daemon dies, CMD is ended too (nothing can launch any more), and psched-alloc
// says how the leader died and exits with 1.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <optional>

#include "common/child_process.hpp"
#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "launcher/emulated_allocation.hpp"
#include "launcher/help_text.hpp"
#include "scheduler/allocator_registry.hpp"

namespace {

// The signals that end an allocation from outside: SIGTERM (a batch system's end, an
// admin), SIGHUP (the terminal closed) and, while the daemons start, the terminal's
// SIGINT and SIGQUIT. Blocked from the start and taken with sigwait: their default action
// killed psched-alloc alone, leaving CMD running and the directory (with the secret)
// behind. Children start with an empty mask (StartChild).
sigset_t EndingSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGHUP, SIGINT, SIGQUIT}) sigaddset(&set, sig);
  return set;
}

// One of `ending` that arrived while the daemons started, or 0.
int PendingSignal(const sigset_t& ending) {
  sigset_t pending;
  sigpending(&pending);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&ending, sig) == 1 && sigismember(&pending, sig) == 1) return sig;
  return 0;
}

// Ends CMD: SIGTERM, and SIGKILL when it has not ended within a grace period.
void EndCommand(pid_t cmd) {
  kill(cmd, SIGTERM);
  for (int tick = 0; tick < 30; ++tick) {
    if (waitpid(cmd, nullptr, WNOHANG) == cmd) return;
    usleep(100000);
  }
  kill(cmd, SIGKILL);
  waitpid(cmd, nullptr, 0);
}

// Waits for CMD, passing SIGTERM and SIGHUP on to it as salloc does: CMD decides how to
// end, and we end after it. Returns its wait status, or nullopt when the leader daemon
// died first: with it went every launch, so CMD is ended (and the caller stops the
// other daemons). A daemon that ends is reaped and named at once, whichever it is: the
// leader fails the sessions of another node's daemon itself.
std::optional<int> WaitForwardingEnds(pid_t cmd, psched::launcher::EmulatedAllocation& alloc) {
  sigset_t waited;
  sigemptyset(&waited);
  for (int sig : {SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&waited, sig);
  int status = 0;
  for (;;) {
    if (waitpid(cmd, &status, WNOHANG) == cmd) return status;
    bool leader_died = false;
    for (const auto& ended : alloc.ReapEnded()) {
      leader_died = leader_died || ended.node == 0;
      std::fprintf(stderr, "psched-alloc: the daemon of node %d%s ended: %s\n", ended.node,
                   ended.node == 0 ? " (the leader)" : "", ended.how.c_str());
    }
    if (leader_died) {
      std::fprintf(stderr, "psched-alloc: ending the command and the allocation\n");
      EndCommand(cmd);
      return std::nullopt;
    }
    int sig = 0;
    if (sigwait(&waited, &sig) != 0) continue;
    if (sig != SIGCHLD) kill(cmd, sig);  // a daemon's SIGCHLD wakes us too: look again
  }
}

int RunCommand(int argc, char** argv) {
  using namespace psched::launcher;
  CLI::App app{"psched-alloc: run CMD inside an emulated N-node allocation on this host",
               "psched-alloc"};
  EmulatedOptions o;
  app.add_option("-N,--nodes", o.nodes, "number of emulated nodes")->check(CLI::Range(1, 4096));
  app.add_option("--topology", o.topology,
                 "hwloc synthetic topology of each node (\"pack:2 core:20 pu:1\") or XML file; "
                 "default: this machine");
  app.add_option("--fanout", o.fanout, "children per daemon in the tree")
      ->check(CLI::Range(1, 1024));
  app.add_option("--allocator", o.allocator,
                 "the allocator of sessions that name none (below; default: the config's)")
      ->type_name("NAME");
  app.add_option("--policy", o.policy,
                 "the policy of sessions that name none (below; default: the config's)")
      ->type_name("NAME");
  app.add_flag("-v,--verbose", o.verbose, "say what happens");
  // As salloc: the first word that is not an option starts CMD, whose own options
  // (sh -c ..., echo -v) are not ours.
  app.prefix_command();
  psched::SetUsageOperands(app, "CMD [ARGS...]");
  app.footer([] {
    return "CMD [ARGS...]: the command to run inside the allocation, after the options (or after\n"
           "--). It gets PSCHED_ALLOCATION, where psched-exec and psched-ctl find the daemons.\n"
           "SIGTERM and SIGHUP are passed on to CMD; the allocation ends once CMD has.\n\n" +
           psched::WithoutFinalNewline(PolicyAndAllocatorHelpFromConfig());
  });
  if (auto code = psched::ParseCommandLine(app, "psched-alloc", argc, argv)) return *code;
  std::string problem;
  auto command = psched::CommandAfterOptions(app, &problem);
  if (!command) return psched::UsageError("psched-alloc", problem);
  if (!o.allocator.empty() && !psched::sched::MakeAllocator(o.allocator)) {
    std::fprintf(stderr, "psched-alloc: %s\n",
                 psched::sched::MakeAllocator(o.allocator).error().message().c_str());
    return 2;
  }
  if (std::string folded = FoldingWarning(o); !folded.empty())
    std::fprintf(stderr, "psched-alloc: warning: %s\n", folded.c_str());
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);  // inherited as ignored, CMD would be reaped before we wait
  const sigset_t ending = EndingSignals();
  sigset_t blocked = ending;
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, nullptr);
  auto alloc = EmulatedAllocation::Start(o);
  if (!alloc) {
    std::fprintf(stderr, "psched-alloc: %s\n", alloc.error().ToString().c_str());
    return 1;
  }
  if (int sig = PendingSignal(ending); sig != 0) {
    alloc->Stop();
    return 128 + sig;
  }
  if (o.verbose) {
    std::fprintf(stderr, "psched-alloc: %d nodes up, PSCHED_ALLOCATION=%s\n", o.nodes,
                 alloc->dir().c_str());
  }
  // CMD shares our terminal, which sends it Ctrl-C and Ctrl-\ itself; we only wait for it.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  // CMD sees the allocation (and we, who do not care, too).
  setenv("PSCHED_ALLOCATION", alloc->dir().c_str(), 1);
  psched::ChildSpec spec;
  spec.argv = std::move(*command);
  spec.close_other_fds = false;
  auto pid = psched::StartChild(spec);
  if (!pid) {
    std::fprintf(stderr, "psched-alloc: %s\n", pid.error().ToString().c_str());
    alloc->Stop();
    return pid.error().sys_errno() == ENOENT ? 127 : 126;  // the shell's convention
  }
  const std::optional<int> status = WaitForwardingEnds(*pid, *alloc);
  alloc->Stop();
  if (!status) return 1;
  return WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-alloc", [&] { return RunCommand(argc, argv); });
}
