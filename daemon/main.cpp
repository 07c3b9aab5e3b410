// pschedd: the per-node daemon. Started by psched-alloc, by the Slurm launcher
// (srun, one per node) or on demand by psched-exec (the embedded default).
// The allocation secret comes from --secret-file (mode 0600) or PSCHED_SECRET,
// never from the command line; a single-node daemon without one makes its own.
#include <event2/event.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "config/load.hpp"
#include "daemon/daemon.hpp"
#include "daemon/net/run_dir.hpp"
#include "daemon/node/short_slice.hpp"
#include "pmi/wireup_hooks.hpp"
#include "pmix/daemon_host.hpp"
#include "pmix/fabric.hpp"
#include "pmix/stale_dirs.hpp"

namespace {

using psched::Result;

Result<psched::daemon::Secret> LoadSecret(const std::string& file, int nodes) {
  if (!file.empty()) return psched::daemon::Secret::FromFile(file);
  if (const char* hex = std::getenv("PSCHED_SECRET")) {
    std::string copy = hex;
    unsetenv("PSCHED_SECRET");  // ranks must not inherit it
    return psched::daemon::Secret::FromHex(copy);
  }
  if (nodes == 1) return psched::daemon::Secret::Generate();
  return psched::Fail(psched::ErrorCode::kInvalidArgument,
                      "a multi-node allocation needs its secret: --secret-file FILE or "
                      "PSCHED_SECRET");
}

// Writes one line to the fd the starter waits on; closes it after "ready".
void Report(int fd, const std::string& line) {
  if (fd < 0) return;
  std::string text = line + "\n";
  (void)!write(fd, text.data(), text.size());
  if (line == "ready") close(fd);
}

void AddOptions(CLI::App& app, psched::daemon::DaemonOptions& opt, std::string& secret_file,
                int& ready_fd, bool& exit_when_idle) {
  app.add_option("--node", opt.node, "this node's index in the allocation (0 = leader)");
  app.add_option("--nodes", opt.nodes, "number of nodes in the allocation")
      ->check(psched::Positive());
  app.add_option("--fanout", opt.fanout, "children per daemon in the tree")
      ->check(psched::Positive());
  app.add_option("--parent", opt.parent, "parent daemon's host:port (all but node 0)");
  app.add_option("--listen", opt.listen_host, "IPv4 address to listen on for child daemons");
  app.add_option("--port", opt.port, "TCP port for child daemons (0 = any)");
  app.add_option("--rundir", opt.rundir, "0700 directory for the launcher socket (leader)");
  app.add_option("--contact-file", opt.contact_file,
                 "leader: also listen for launchers over TCP and write the address and the "
                 "secret to this file (mode 0600; removed at the end)");
  app.add_option("--contact-host", opt.contact_host,
                 "the leader's address written to --contact-file (default: --hostname)");
  app.add_option(
      "--topology", opt.topology,
      "hwloc synthetic topology (\"pack:2 core:20 pu:1\") or XML file; default: this machine");
  app.add_option("--hostname", opt.hostname, "name this node reports");
  app.add_flag("--slurm", opt.slurm,
               "the allocation is Slurm's: hostnames are Slurm node names; ranks get srun's "
               "per-task SLURM_* variables");
  app.add_option("--allocator", opt.allocator, "default allocator (leader; default: the config's)");
  app.add_option("--policy", opt.policy, "default co-scheduling policy (leader)");
  app.add_option("--secret-file", secret_file, "file (mode 0600) holding the allocation secret");
  app.add_option("--monitor-interval", opt.monitor.sample_interval_s,
                 "seconds between load/memory samples and reports to the leader");
  app.add_option("--probe-interval", opt.monitor.probe_interval_s,
                 "seconds between rounds of link probes (0 = no probes)");
  app.add_option("--probe-peers", opt.monitor.peers_per_round, "peers probed per round");
  app.add_option("--probe-bytes", opt.monitor.probe_bytes, "bytes of a bandwidth probe");
  app.add_option("--ready-fd", ready_fd, "fd to report 'port N' and 'ready' on");
  app.add_flag("--exit-when-idle", exit_when_idle,
               "exit after the config's daemon.embedded_idle_exit_s with no session and no "
               "client (the daemon psched-exec starts on first use)");
}

// The PMIx server host comes first: the daemon runs on PMIx's own event base (see
// PmixServer::Init), so Open MPI ranks' upcalls and the daemon tree share one thread.
// `pmix_dir` gets the server's directory (empty: PMIx's default), removed at the end.
Result<std::unique_ptr<psched::pmix::PmixServer>> StartPmixServer(
    const psched::daemon::DaemonOptions& opt, std::string& pmix_dir) {
  pmix_dir = psched::pmix::DaemonDirTemplate(std::getenv("TMPDIR"), opt.node);
  if (mkdtemp(pmix_dir.data()) == nullptr) {
    // PMIx then uses its default directory; worth a line, as Open MPI may stumble later.
    std::fprintf(stderr, "pschedd: mkdtemp '%s': %s (PMIx uses its default directory)\n",
                 pmix_dir.c_str(), std::strerror(errno));
    pmix_dir.clear();
  }
  char real_host[256] = {};
  gethostname(real_host, sizeof real_host - 1);
  psched::pmix::PmixServerOptions popt;
  popt.node_index = opt.node;
  popt.tmpdir = pmix_dir;
  popt.hostname = opt.hostname.empty() ? real_host : opt.hostname;
  // Emulated nodes share this host: Open MPI's TCP must use loopback.
  popt.loopback_tcp = popt.hostname != real_host;
  popt.skip_fabric_probe = !psched::pmix::NodeHasFabric();
  return psched::pmix::PmixServer::Init(popt, nullptr, nullptr);
}

// The daemon's launch hooks: the PMIx server host (Open MPI ranks' aborts, job control
// and signals act on its sessions) and the PMI-1 server (MPICH-family ranks), each
// session served by those its wire-up names (pmi/wireup.hpp). Without a PMIx server
// (`server` null) Open MPI ranks run as singletons and PMI-1 still serves.
void HostWireUps(psched::daemon::Daemon& daemon, std::unique_ptr<psched::pmix::PmixServer> server) {
  auto fail_session = [d = &daemon](int64_t s, int rank, int code, std::string why) {
    d->ReportRankFailure(s, rank, code, std::move(why));
  };
  std::unique_ptr<psched::daemon::LaunchHooks> pmix_hooks;
  if (server) {
    psched::pmix::DaemonActions actions;
    actions.fail_session = fail_session;
    actions.suspend_session = [d = &daemon](int64_t s, bool suspend, auto done) {
      d->SuspendSession(s, suspend, std::move(done));
    };
    actions.signal_local = [d = &daemon](int64_t s, int sig) { d->SignalLocalRanks(s, sig); };
    actions.sessions_interact = [d = &daemon](const std::vector<std::string>& nspaces) {
      d->SessionsInteract(nspaces);
    };
    auto pmix = psched::pmix::DaemonPmixHost::Create(std::move(server), daemon.tree(), actions);
    if (pmix) {
      pmix_hooks = std::move(*pmix);
    } else {
      std::fprintf(stderr, "pschedd: Open MPI programs will run as singletons: %s\n",
                   pmix.error().ToString().c_str());
    }
  }
  auto pmi1 = std::make_unique<psched::pmi::SimpleServer>(daemon.base(), daemon.tree(),
                                                          std::move(fail_session));
  daemon.SetLaunchHooks(
      std::make_unique<psched::pmi::WireUpHooks>(std::move(pmix_hooks), std::move(pmi1)));
}

// Runs the loop until a shutdown, SIGTERM or SIGINT (which end the daemon like a
// shutdown: sessions are killed first). The daemon ends while the signals are still
// caught, so a second Ctrl-C cannot cut its cleanup short.
void RunUntilStopped(event_base* base, std::unique_ptr<psched::daemon::Daemon>& daemon) {
  struct Stopper {
    event_base* base;
    bool signalled = false;
  } stopper{base};
  // Said in the log: a daemon that ends for a signal would otherwise leave it empty.
  auto on_term = [](evutil_socket_t sig, short, void* arg) {
    auto* s = static_cast<Stopper*>(arg);
    std::fprintf(stderr, "pschedd: SIG%s received: stopping\n",
                 sigabbrev_np(static_cast<int>(sig)));
    s->signalled = true;
    event_base_loopexit(s->base, nullptr);
  };
  event* term = evsignal_new(base, SIGTERM, on_term, &stopper);
  event* intr = evsignal_new(base, SIGINT, on_term, &stopper);
  event_add(term, nullptr);
  event_add(intr, nullptr);
  const int rc = event_base_dispatch(base);
  if (!daemon->stopped() && !stopper.signalled) {
    // Neither a shutdown nor a signal ended the loop, but a library or an empty base:
    // say so, or the daemon would vanish without a word.
    std::fprintf(stderr,
                 "pschedd: event loop ended without a stop (dispatch %d, exit %d, break %d)\n", rc,
                 event_base_got_exit(base), event_base_got_break(base));
  }
  daemon.reset();
  event_free(term);
  event_free(intr);
}

int RunCommand(int argc, char** argv) {
  CLI::App app{"pschedd: psched's per-node daemon (started by psched-exec, psched-alloc or srun)"};
  psched::daemon::DaemonOptions opt;
  std::string secret_file;
  int ready_fd = -1;
  bool exit_when_idle = false;
  AddOptions(app, opt, secret_file, ready_fd, exit_when_idle);
  if (auto code = psched::ParseCommandLine(app, "pschedd", argc, argv)) return *code;

  if (auto ok = psched::daemon::monitor::Validate(opt.monitor); !ok) {
    std::fprintf(stderr, "pschedd: %s\n", ok.error().message().c_str());
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  // The admin's policies: /etc/psched/psched.toml, then $PSCHED_CONF. A broken file
  // stops the daemon with the file and line rather than running with surprises.
  auto config = psched::config::LoadConfig(psched::config::ConfigPathsFromEnvironment());
  if (!config) {
    std::fprintf(stderr, "pschedd: %s\n", config.error().ToString().c_str());
    return 1;
  }
  opt.config = std::move(*config);
  if (exit_when_idle) opt.idle_exit_s = opt.config.embedded_idle_exit_s;
  auto secret = LoadSecret(secret_file, opt.nodes);
  if (!secret) {
    std::fprintf(stderr, "pschedd: %s\n", secret.error().ToString().c_str());
    return 1;
  }
  opt.report = [ready_fd](const std::string& line) { Report(ready_fd, line); };
  std::string pmix_dir;
  auto pmix_server = StartPmixServer(opt, pmix_dir);
  if (!pmix_server) {
    std::fprintf(stderr, "pschedd: Open MPI programs will run as singletons: %s\n",
                 pmix_server.error().ToString().c_str());
  }
  const bool own_base = !pmix_server;
  event_base* base = own_base ? event_base_new() : (*pmix_server)->base();
  auto daemon = psched::daemon::Daemon::Create(base, opt, std::move(*secret));
  if (!daemon) {
    std::fprintf(stderr, "pschedd: %s\n", daemon.error().ToString().c_str());
    return 1;
  }
  HostWireUps(**daemon,
              pmix_server ? std::move(*pmix_server) : std::unique_ptr<psched::pmix::PmixServer>());
  // This thread runs the loop that answers the ranks' wire-up and forks them. Not where
  // emulated nodes fold onto fewer CPUs: there the daemons share CPUs with each other,
  // and each would preempt the others (64 daemons on 2 CPUs: the PMI-1 barrier and the
  // PMIx fence of bench/pmi 10-15% slower with the short slice).
  if (!(*daemon)->emulation_folds()) {
    if (auto slice = psched::daemon::AskForShortSlice(); !slice) {
      std::fprintf(stderr, "pschedd: node %d: keeping the default CPU slice: %s\n", opt.node,
                   slice.error().ToString().c_str());
    }
  }
  RunUntilStopped(base, *daemon);
  std::error_code ignored;  // PMIx's thread may still delete its own files meanwhile
  if (!pmix_dir.empty()) std::filesystem::remove_all(pmix_dir, ignored);
  // A clean end leaves no run directory behind; after a crash the next starter sweeps it.
  if (!opt.rundir.empty()) (void)psched::daemon::RemoveRunDir(opt.rundir);
  if (own_base) event_base_free(base);  // PMIx's base ends with the process
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("pschedd", [&] { return RunCommand(argc, argv); });
}
