// psched-exec: start one session (N ranks x T threads) in the current allocation.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "common/guarded_main.hpp"
#include "config/load.hpp"
#include "launcher/allocation_locator.hpp"
#include "launcher/exec_options.hpp"
#include "launcher/exec_session.hpp"
#include "proto/messages.hpp"

extern char** environ;

namespace {

int RunCommand(int argc, char** argv) {
  using namespace psched::launcher;
  ParsedExec parsed = ParseExecOptions(argc, argv);
  if (parsed.exit) return parsed.exit_code;
  const ExecOptions& o = parsed.options;
  signal(SIGPIPE, SIG_IGN);

  auto env = RankEnvironment(o.exports, environ);
  if (!env) {
    std::fprintf(stderr, "psched-exec: %s\n", env.error().message().c_str());
    return 2;
  }
  auto cwd = RanksDirectory(o.chdir);
  if (!cwd) {
    std::fprintf(stderr, "psched-exec: %s\n", cwd.error().message().c_str());
    return 1;
  }
  if (auto exe = ResolveExecutable(o.command.front(), *cwd, *env); !exe) {
    std::fprintf(stderr, "psched-exec: %s\n", exe.error().message().c_str());
    return exe.error().code() == psched::ErrorCode::kNotFound ? 127 : 126;  // the shell's
  }
  psched::proto::LaunchRequest req;
  req.argv = o.command;
  req.env = std::move(*env);
  req.cwd = std::move(*cwd);
  req.ranks = o.ranks;
  req.threads_per_rank = o.cpus_per_rank;
  req.nodes = o.nodes;
  req.ppn = o.ppn;
  req.spread = o.spread;
  req.estimate_s = o.time_s;
  req.policy = o.policy;
  req.allocator = o.allocator;
  req.mpi = o.mpi;
  req.kill_wait_s = o.kill_wait_s;
  // A terminal here: the ranks write to one too, so that their stdio line-buffers (mpirun
  // gives them one always; on a pipe or file, psched keeps their pipes).
  req.stdout_pty = !o.no_pty && isatty(STDOUT_FILENO) == 1;
  // Encoded before connecting: the daemon gets it right after the connection.
  const std::string launch = psched::proto::Encode(psched::proto::MsgType::kSessionLaunch, req);

  AllocationSocket where;
  auto say = [&o](const std::string& what) {
    if (o.verbose) std::fprintf(stderr, "psched-exec: %s\n", what.c_str());
  };
  auto fd = ConnectToAllocation(/*start_embedded=*/true, &where, say);
  if (!fd) {
    std::fprintf(stderr, "psched-exec: %s\n", NoDaemonMessage(where, fd.error()).c_str());
    return 1;
  }
  if (o.verbose && where.started) {
    // Nobody else says that a daemon now runs for this user, nor that it ends itself.
    auto config = psched::config::LoadConfig(psched::config::ConfigPathsFromEnvironment());
    const double idle_s = config ? config->embedded_idle_exit_s : 0;
    std::fprintf(stderr,
                 "psched-exec: started a psched daemon for this user on this machine at %s; "
                 "%s (psched-ctl shutdown stops it)\n",
                 where.path.c_str(),
                 idle_s > 0 ? ("it exits after " + std::to_string(static_cast<long>(idle_s)) +
                               " s without sessions (daemon.embedded_idle_exit_s)")
                                  .c_str()
                            : "it runs until stopped");
  }
  if (o.verbose) {
    std::fprintf(stderr, "psched-exec: using the %s daemon at %s\n", where.kind.c_str(),
                 (where.via.empty() ? where.path : where.via).c_str());
  }
  return RunSession(*fd, o, launch, where.via.empty() ? where.path : where.via);
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("psched-exec", [&] { return RunCommand(argc, argv); });
}
