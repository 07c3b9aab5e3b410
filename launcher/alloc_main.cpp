// psched-alloc: an emulated N-node allocation on this host, for tests, demos and
// scale benchmarks:  psched-alloc -N 4 --topology "pack:2 core:20 pu:1" -- CMD
// Runs CMD with PSCHED_ALLOCATION set and returns its exit status.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

#include "common/child_process.hpp"
#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "launcher/emulated_allocation.hpp"
#include "scheduler/allocator_registry.hpp"

namespace {

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
  app.add_option("--allocator", o.allocator, "default allocator (default: the config's)");
  app.add_option("--policy", o.policy, "default co-scheduling policy");
  app.add_flag("-v,--verbose", o.verbose, "say what happens");
  // As salloc: the first word that is not an option starts CMD, whose own options
  // (sh -c ..., echo -v) are not ours.
  app.prefix_command();
  app.footer(
      "CMD [ARGS...]: the command to run inside the allocation, after the options (or after --)");
  if (auto code = psched::ParseCommandLine(app, "psched-alloc", argc, argv)) return *code;
  std::string problem;
  auto command = psched::CommandAfterOptions(app, &problem);
  if (!command) return psched::UsageError("psched-alloc", problem);
  if (!o.allocator.empty() && !psched::sched::MakeAllocator(o.allocator)) {
    std::fprintf(stderr, "psched-alloc: %s\n",
                 psched::sched::MakeAllocator(o.allocator).error().message().c_str());
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  auto alloc = EmulatedAllocation::Start(o);
  if (!alloc) {
    std::fprintf(stderr, "psched-alloc: %s\n", alloc.error().ToString().c_str());
    return 1;
  }
  if (o.verbose) {
    std::fprintf(stderr, "psched-alloc: %d nodes up, PSCHED_ALLOCATION=%s\n", o.nodes,
                 alloc->dir().c_str());
  }
  // CMD shares our terminal; we only wait for it.
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
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  alloc->Stop();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-alloc", [&] { return RunCommand(argc, argv); });
}
