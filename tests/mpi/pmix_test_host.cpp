// pmix-test-host: a single-node PMIx server host for tests.
//
// Starts psched's PmixServer with LocalHostServices, registers one or more
// concurrent sessions of N ranks each, forks the ranks of a real MPI program with
// the PMIx environment and supervises them the way pschedd will: a rank that
// fails (non-zero exit, signal, or exit after PMIx_Init without PMIx_Finalize)
// or calls MPI_Abort takes its whole session down; every wait is bounded.
//
// Exit code: the MPI_Abort status if a rank aborted, 124 on timeout, 1 if a rank
// failed, 2 for bad usage, 0 when every rank finished cleanly.
#include <event2/event.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <pmix_server.h>

#include "common/command_line.hpp"
#include "common/guarded_main.hpp"
#include "pmix/local_host_services.hpp"
#include "pmix/pmix_server.hpp"

extern char** environ;

namespace {

using psched::pmix::PmixServer;

struct Rank {
  int64_t session = 0;
  uint32_t rank = 0;
  pid_t pid = -1;
  bool connected = false;
  bool finalized = false;
  bool exited = false;
  int status = 0;
};

struct Host {
  event_base* base = nullptr;
  PmixServer* server = nullptr;
  std::vector<Rank> ranks;
  std::map<int64_t, bool> session_failed;
  int kill_on_connect = -1;
  int abort_status = -1;
  bool any_failure = false;
  bool timed_out = false;
  int registering = 0;   // registrations PMIx has not answered yet
  bool starting = true;  // sessions of the command line still to start

  bool Finished() const { return !starting && registering == 0 && AllExited(); }

  Rank* Find(int64_t session, uint32_t rank) {
    for (auto& r : ranks) {
      if (r.session == session && r.rank == rank) return &r;
    }
    return nullptr;
  }
  void KillSession(int64_t session) {
    session_failed[session] = true;
    for (auto& r : ranks) {
      if (r.session == session && !r.exited) kill(r.pid, SIGKILL);
    }
  }
  bool AllExited() const {
    for (const auto& r : ranks) {
      if (!r.exited) return false;
    }
    return true;
  }
};

std::string Describe(const Rank& r) {
  if (WIFSIGNALED(r.status))
    return std::string("killed by signal ") + strsignal(WTERMSIG(r.status));
  std::string s = "exited with code " + std::to_string(WEXITSTATUS(r.status));
  if (r.connected && !r.finalized) s += " before MPI_Finalize";
  return s;
}

bool Failed(const Rank& r) {
  return WIFSIGNALED(r.status) || WEXITSTATUS(r.status) != 0 || (r.connected && !r.finalized);
}

void OnSigchld(int, short, void* arg) {
  auto* host = static_cast<Host*>(arg);
  // Upcalls (finalized, abort) posted before the child exited must be seen first.
  host->server->queue().Drain();
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (auto& r : host->ranks) {
      if (r.pid != pid) continue;
      r.exited = true;
      r.status = status;
      host->server->RankEnded(r.session, r.rank,
                              WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
      if (Failed(r) && !host->session_failed[r.session]) {
        std::fprintf(stderr, "pmix-test-host: session %ld: rank %u %s; killing the session\n",
                     static_cast<long>(r.session), r.rank, Describe(r).c_str());
        host->any_failure = true;
        host->KillSession(r.session);
      }
    }
  }
  if (host->Finished()) event_base_loopbreak(host->base);
}

void OnTimeout(int, short, void* arg) {
  auto* host = static_cast<Host*>(arg);
  std::fprintf(stderr, "pmix-test-host: timed out; killing every rank\n");
  host->timed_out = true;
  for (auto& r : host->ranks) {
    if (!r.exited) kill(r.pid, SIGKILL);
  }
}

bool Executable(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return access(prog.c_str(), X_OK) == 0;
  const char* path = getenv("PATH");
  std::string p = path ? path : "";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

pid_t ForkRank(const std::vector<std::string>& argv, const psched::pmix::EnvList& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string name(entry.substr(0, entry.find('=')));
    if (PmixServer::IsInheritedPmixVariable(name)) continue;
    bool overridden = false;
    for (const auto& [k, v] : extra) overridden |= k == name;
    if (!overridden) env.emplace_back(entry);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    execvpe(args[0], args.data(), envp.data());
    std::fprintf(stderr, "pmix-test-host: execvpe %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  return pid;
}

// Registers `info` with the server (asynchronously: the loop keeps running) and then
// forks its ranks running `argv`, each with the PMIx environment plus `extra`.
// `then(ok)` runs once the ranks are forked or the session failed (reported).
void StartSession(Host& host, const psched::pmix::PmixSessionInfo& info,
                  const std::vector<std::string>& argv, const psched::pmix::EnvList& extra,
                  std::function<void(bool)> then) {
  ++host.registering;
  host.server->RegisterSession(
      info, [&host, info, argv, extra, then = std::move(then)](psched::Result<void> reg) {
        --host.registering;
        if (!reg) {
          std::fprintf(stderr, "pmix-test-host: session %ld: %s\n",
                       static_cast<long>(info.session_id), reg.error().ToString().c_str());
          host.any_failure = true;
          return then(false);
        }
        for (uint32_t r = 0; r < info.ranks.size(); ++r) {
          auto env = host.server->RankEnvironment(info.session_id, r);
          if (!env) {
            std::fprintf(stderr, "pmix-test-host: %s\n", env.error().ToString().c_str());
            host.any_failure = true;
            return then(false);
          }
          env->insert(env->end(), extra.begin(), extra.end());
          // Lets one program play different roles in concurrent sessions.
          env->emplace_back("PSCHED_TEST_SESSION", std::to_string(info.session_id));
          Rank rk{info.session_id, r};
          rk.pid = ForkRank(argv, *env);
          host.ranks.push_back(rk);
        }
        then(true);
      });
}

// Blocks PMIx's progress thread (inside a callback PMIx runs there) until `release_fd`
// becomes readable: everything queued behind it, such as a registration, waits.
void StallPmix(int release_fd) {
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, "pmix-test-host-stall");
  auto* fd = new int(release_fd);
  PMIx_server_deregister_nspace(
      ns,
      [](pmix_status_t, void* cbdata) {
        int* f = static_cast<int*>(cbdata);
        char c;
        while (read(*f, &c, 1) < 0 && errno == EINTR) {
        }
        delete f;
      },
      fd);
}

size_t LiveRanks(const Host& host) {
  size_t n = 0;
  for (const auto& r : host.ranks) n += r.exited ? 0 : 1;
  return n;
}

struct Options {
  int nranks = 2;
  int nsessions = 1;
  int universe = 0;
  double timeout_s = 60;
  int kill_on_connect = -1;
  int register_timeout_ms = 10000;
  int stall_session = 0;  // block PMIx's progress thread while registering this session
  std::vector<std::string> setenv_list;
  std::vector<uint32_t> app_sizes;  // the sessions' apps (MPI_APPNUM), ranks app after app
};

// Counts the loop's turns while PMIx is stalled: proof that registering does not block it.
struct Heartbeat {
  event* ev = nullptr;
  int turns = 0;
  static void OnTick(int, short, void* arg) { ++static_cast<Heartbeat*>(arg)->turns; }
};

int Run(const Options& o, const std::vector<std::string>& argv) {
  const int nranks = o.nranks, nsessions = o.nsessions, universe = o.universe;
  const double timeout_s = o.timeout_s;
  const auto& setenv_list = o.setenv_list;
  char tmpl[] = "/tmp/psched-pmix-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::fprintf(stderr, "pmix-test-host: mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  const std::string tmpdir = tmpl;
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);

  Host host;
  host.base = event_base_new();
  host.kill_on_connect = o.kill_on_connect;
  psched::pmix::LocalHostServices::Hooks hooks;
  hooks.client_connected = [&](int64_t s, uint32_t r) {
    Rank* rk = host.Find(s, r);
    if (rk == nullptr) return;
    rk->connected = true;
    if (static_cast<int>(r) == host.kill_on_connect) {
      std::fprintf(stderr, "pmix-test-host: killing rank %u inside MPI_Init\n", r);
      kill(rk->pid, SIGKILL);
    }
  };
  hooks.client_finalized = [&](int64_t s, uint32_t r) {
    if (Rank* rk = host.Find(s, r)) rk->finalized = true;
  };
  hooks.abort = [&](int64_t s, uint32_t r, int status, const std::string& msg) {
    std::fprintf(stderr, "pmix-test-host: session %ld: rank %u called abort with status %d: %s\n",
                 static_cast<long>(s), r, status, msg.c_str());
    if (host.abort_status < 0) host.abort_status = status;
    host.KillSession(s);
  };
  std::vector<std::pair<std::string, std::string>> user_env;
  for (const auto& kv : setenv_list) {
    auto eq = kv.find('=');
    user_env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  auto session_info = [&](int64_t id, int size) {
    psched::pmix::PmixSessionInfo info;
    info.session_id = id;
    info.nspace = "psched." + std::to_string(getpid()) + "." + std::to_string(id);
    info.hostnames = {hostname};
    for (int r = 0; r < size; ++r) info.ranks.push_back({0, r});
    info.universe_size = universe;
    info.rm_jobid = "pmix-test-host";
    return info;
  };
  int64_t next_session = nsessions + 1;
  hooks.spawn = [&](psched::pmix::SpawnRequest req,
                    const std::function<void(psched::Result<std::string>)>& done) {
    // Single-node stand-in for the daemon: children go into free slots of the universe.
    if (req.apps.size() != 1) {
      done(psched::Fail(psched::ErrorCode::kInvalidArgument, "spawn: only one app is supported"));
      return;
    }
    const auto& app = req.apps.front();
    size_t free_slots = static_cast<size_t>(universe) - std::min<size_t>(universe, LiveRanks(host));
    if (static_cast<size_t>(app.max_procs) > free_slots) {
      done(psched::Fail(psched::ErrorCode::kResourceExhausted,
                        "spawn of " + std::to_string(app.max_procs) + " process(es): only " +
                            std::to_string(free_slots) + " free slot(s) in a universe of " +
                            std::to_string(universe)));
      return;
    }
    auto info = session_info(next_session++, app.max_procs);
    info.parent_nspace = req.requestor.nspace;
    info.parent_rank = req.requestor.rank;
    std::vector<std::string> child_argv = app.argv;
    if (child_argv.empty()) child_argv.push_back(app.cmd);
    child_argv.front() = app.cmd;
    psched::pmix::EnvList extra = user_env;
    for (const auto& kv : app.env) {
      auto eq = kv.find('=');
      if (eq != std::string::npos) extra.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    StartSession(host, info, child_argv, extra, [info, n = app.max_procs, done](bool ok) {
      if (!ok) {
        done(psched::Fail(psched::ErrorCode::kInternal, "spawn: starting the children failed"));
        return;
      }
      std::fprintf(stderr, "pmix-test-host: spawned %d child(ren) as session %ld\n", n,
                   static_cast<long>(info.session_id));
      done(info.nspace);
    });
  };
  psched::pmix::LocalHostServices services(host.base, hooks);

  psched::pmix::PmixServerOptions opt;
  opt.tmpdir = tmpdir;
  opt.hostname = hostname;
  opt.callback_timeout = std::chrono::milliseconds(o.register_timeout_ms);
  auto server = PmixServer::Init(opt, host.base, &services);
  if (!server) {
    std::fprintf(stderr, "pmix-test-host: %s\n", server.error().ToString().c_str());
    return 1;
  }
  host.server = server->get();
  event* sigchld = evsignal_new(host.base, SIGCHLD, &OnSigchld, &host);
  event_add(sigchld, nullptr);
  event* timer = evtimer_new(host.base, &OnTimeout, &host);
  timeval tv{static_cast<time_t>(timeout_s),
             static_cast<suseconds_t>((timeout_s - (time_t)timeout_s) * 1e6)};
  event_add(timer, &tv);

  // The command line's sessions start one after the other, each once the previous
  // one's registration has been answered; everything else runs meanwhile.
  int stall_pipe[2] = {-1, -1};
  Heartbeat heartbeat;
  std::function<void(int)> start_from = [&](int s) {
    if (s > nsessions) {
      host.starting = false;
      if (host.Finished()) event_base_loopbreak(host.base);
      return;
    }
    if (s == o.stall_session) {
      if (pipe(stall_pipe) != 0) {
        std::fprintf(stderr, "pmix-test-host: pipe: %s\n", strerror(errno));
        host.any_failure = true;
        return start_from(s + 1);
      }
      StallPmix(stall_pipe[0]);
      heartbeat.ev = event_new(host.base, -1, EV_PERSIST, &Heartbeat::OnTick, &heartbeat);
      timeval tick{0, 20000};
      event_add(heartbeat.ev, &tick);
    }
    auto info = session_info(s, nranks);
    info.app_sizes = o.app_sizes;
    StartSession(host, info, argv, user_env, [&, s](bool) {
      if (s == o.stall_session) {
        std::fprintf(stderr, "pmix-test-host: loop turns while PMIx was stalled: %d\n",
                     heartbeat.turns);
        event_free(heartbeat.ev);
        heartbeat.ev = nullptr;
        (void)!write(stall_pipe[1], "x", 1);  // let PMIx's thread go on
      }
      start_from(s + 1);
    });
  };
  start_from(1);
  OnSigchld(0, 0, &host);  // children that exited before the handler was armed
  if (!host.Finished()) event_base_dispatch(host.base);
  for (const auto& r : host.ranks) {
    std::fprintf(stderr, "pmix-test-host: session %ld rank %u: %s%s\n",
                 static_cast<long>(r.session), r.rank, Describe(r).c_str(),
                 r.finalized ? " (finalized)" : "");
  }
  std::fprintf(stderr, "pmix-test-host: node ranks still held: %zu\n",
               host.server->node_ranks_in_use().size());
  for (int64_t s = 1; s < next_session; ++s) host.server->DeregisterSession(s);
  std::fprintf(stderr, "pmix-test-host: node ranks after deregistration: %zu\n",
               host.server->node_ranks_in_use().size());
  std::fprintf(stderr, "pmix-test-host: namespaces quarantined: %zu\n", host.server->quarantined());
  event_free(timer);
  event_free(sigchld);
  server->reset();
  for (int fd : stall_pipe)
    if (fd >= 0) close(fd);
  event_base_free(host.base);
  std::error_code ignored;  // PMIx's thread may still delete its own files meanwhile
  std::filesystem::remove_all(tmpdir, ignored);
  if (host.abort_status >= 0) return host.abort_status;
  if (host.timed_out) return 124;
  return host.any_failure ? 1 : 0;
}

int RunCommand(int argc, char** argv) {
  CLI::App app{"Single-node PMIx server host for psched tests: runs N ranks of an MPI program"};
  Options o;
  std::vector<std::string> command;
  app.add_option("-n,--ranks", o.nranks, "ranks per session")->check(CLI::Range(1, 256));
  app.add_option("--sessions", o.nsessions, "concurrent sessions, each with its own namespace")
      ->check(CLI::Range(1, 16));
  app.add_option("--universe", o.universe, "slots for the sessions and their spawned children")
      ->check(CLI::Range(1, 4096));
  app.add_option("--timeout", o.timeout_s, "seconds before every rank is killed")
      ->check(psched::Positive());
  app.add_option("--kill-on-connect", o.kill_on_connect,
                 "SIGKILL this rank when it connects (inside MPI_Init)");
  app.add_option("--register-timeout", o.register_timeout_ms,
                 "milliseconds PMIx has to answer a session's registration")
      ->check(CLI::Range(1, 600000));
  app.add_option("--stall-pmix-session", o.stall_session,
                 "block PMIx's progress thread while this session (1..N) registers, until its "
                 "registration has timed out")
      ->check(CLI::Range(1, 16));
  app.add_option("--apps", o.app_sizes,
                 "ranks of each app of every session (MPI_APPNUM), adding up to -n")
      ->delimiter(',');
  app.add_option("--setenv", o.setenv_list, "NAME=VALUE added to every rank's environment")
      ->check([](const std::string& s) {
        return s.find('=') == std::string::npos || s.front() == '='
                   ? "expected NAME=VALUE, got '" + s + "'"
                   : std::string();
      });
  app.add_option("command", command, "program and its arguments (after --)")->required();
  if (auto code = psched::ParseCommandLine(app, "pmix_test_host", argc, argv)) return *code;
  // As in pschedd: PMIx writes to client sockets without MSG_NOSIGNAL, so a client
  // that dies inside its handshake would otherwise kill the host with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  if (!Executable(command.front())) {
    std::fprintf(stderr, "pmix-test-host: cannot execute '%s': not found or not executable\n",
                 command.front().c_str());
    return 2;
  }
  if (o.universe == 0) o.universe = o.nranks * o.nsessions;
  if (o.universe < o.nranks * o.nsessions) {
    std::fprintf(stderr, "pmix-test-host: --universe %d is smaller than %d ranks x %d sessions\n",
                 o.universe, o.nranks, o.nsessions);
    return 2;
  }
  if (o.stall_session > o.nsessions) {
    std::fprintf(stderr, "pmix-test-host: --stall-pmix-session %d: there are only %d sessions\n",
                 o.stall_session, o.nsessions);
    return 2;
  }
  return Run(o, command);
}

}  // namespace

int main(int argc, char** argv) {
  return psched::GuardedMain("pmix_test_host", [&] { return RunCommand(argc, argv); });
}
