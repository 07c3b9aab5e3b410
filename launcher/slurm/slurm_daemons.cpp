#include "launcher/slurm/slurm_daemons.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/child_process.hpp"
#include "common/exec_args.hpp"
#include "common/read_file.hpp"
#include "common/unix_socket.hpp"
#include "daemon/net/auth.hpp"
#include "daemon/net/contact_file.hpp"
#include "daemon/net/launcher_service.hpp"
#include "daemon/net/launcher_tcp.hpp"
#include "daemon/net/run_dir.hpp"
#include "daemon/net/start_lock.hpp"
#include "daemon/net/tree.hpp"
#include "launcher/slurm/daemon_plan.hpp"

extern char** environ;

namespace psched::slurm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(5);

bool SocketAnswers(const std::string& path) {
  auto fd = ConnectUnix(path);
  if (fd) close(*fd);
  return fd.has_value();
}

// A log or step output that may not exist yet: empty then.
std::string ReadFile(const std::string& path) {
  return ReadWholeFile(path, path).value_or("");
}

// The last lines of a log, for an error message.
std::string Tail(const std::string& path, int lines = 5) {
  std::string text = ReadFile(path);
  std::size_t pos = text.size();
  while (lines-- > 0 && pos > 0) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) {
      pos = 0;
      break;
    }
  }
  std::string tail = text.substr(pos == 0 ? 0 : pos + 1);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail.empty() ? "(empty)" : tail;
}

// Runs a command and returns its stdout (no shell).
Result<std::string> Capture(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Fail(Error::FromErrno("pipe2", "running " + argv[0]));
  ChildSpec spec;
  spec.argv = argv;
  spec.stdin_fd = ChildSpec::kNull;
  spec.stdout_fd = out[1];
  spec.stderr_fd = ChildSpec::kNull;
  auto pid = StartChild(spec);
  close(out[1]);
  if (!pid) {
    close(out[0]);
    return Fail(pid.error());
  }
  auto text = ReadToEnd(out[0], "reading the output of " + argv[0]);
  close(out[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Fail(ErrorCode::kSystem,
                argv[0] + (WIFEXITED(status)
                               ? " exited with status " + std::to_string(WEXITSTATUS(status))
                               : " was killed by signal " + std::to_string(WTERMSIG(status))));
  }
  return text;
}

// Whether Slurm still lists the job: squeue names a job only while it is pending, running
// or completing.
bool SlurmJobActive(const std::string& job) {
  auto listed = Capture({"squeue", "-h", "-j", job, "-o", "%T"});
  return listed && listed->find_first_not_of(" \n") != std::string::npos;
}

// The job's daemons answer, here on the Unix socket or through the contact file.
bool LeaderAnswers(const SlurmAllocation& allocation, const std::string& rundir) {
  auto fd = ConnectSlurmLeader({allocation.job_id, daemon::LauncherSocketPath(rundir),
                                daemon::ContactPath(allocation.job_id)});
  if (fd) close(*fd);
  return fd.has_value();
}

// One srun step of daemons, started detached: its own session, stdin from /dev/null,
// stdout/stderr into files of the run directory (a file never blocks or breaks srun
// the way a pipe we stop reading would).
struct Step {
  pid_t pid = -1;
  std::string out_path, err_path;
};

Result<Step> StartStep(const std::vector<std::string>& argv, const std::string& rundir, int level,
                       const std::vector<std::pair<std::string, std::string>>& env) {
  Step step;
  step.out_path = rundir + "/srun-level-" + std::to_string(level) + ".out";
  step.err_path = rundir + "/srun-level-" + std::to_string(level) + ".err";
  int out_fd = open(step.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int err_fd = open(step.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0 || err_fd < 0) {
    Error e = Error::FromErrno("open", "srun logs in '" + rundir + "'");
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return Fail(e);
  }
  ChildSpec spec;
  spec.argv = argv;
  for (const auto& [name, value] : env) spec.env.push_back(name + "=" + value);
  spec.env = EnvironmentWith(environ, spec.env);
  spec.stdin_fd = ChildSpec::kNull;
  spec.stdout_fd = out_fd;
  spec.stderr_fd = err_fd;
  spec.own_session = true;  // the terminal's Ctrl-C is for the sessions, not the daemons
  auto pid = StartChild(spec);
  close(out_fd);
  close(err_fd);
  if (!pid) return Fail(pid.error());
  step.pid = *pid;
  return step;
}

bool Exited(pid_t pid) {
  return waitpid(pid, nullptr, WNOHANG) == pid;
}

// Ends the steps started so far (srun cancels its step on SIGTERM).
void StopSteps(const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    if (s.pid > 0) kill(s.pid, SIGTERM);
  }
  for (const Step& s : steps) {
    for (int i = 0; i < 200 && s.pid > 0 && !Exited(s.pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

// Waits until every task of `step` reported "port N"; returns the ports by task.
Result<std::vector<int>> WaitForPorts(const Step& step, const TreeLevel& level,
                                      const std::vector<std::string>& nodes, int timeout_s) {
  auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    auto lines = ParseLabelledLines(ReadFile(step.out_path));
    std::vector<int> ports;
    for (int task = 0; task < level.size(); ++task) {
      int port = lines.count(task) ? ReportedPort(lines[task]) : -1;
      if (port < 0) break;
      ports.push_back(port);
    }
    if (static_cast<int>(ports.size()) == level.size()) return ports;
    int missing = level.first + static_cast<int>(ports.size());
    const std::string where = "the daemon for node " + std::to_string(missing) + " (" +
                              nodes[static_cast<std::size_t>(missing)] + ")";
    if (Exited(step.pid)) {
      return Fail(Error(ErrorCode::kSystem, "srun exited before " + where + " started; " +
                                                step.err_path + ": " + Tail(step.err_path))
                      .WithNode(missing));
    }
    if (Clock::now() > deadline) {
      return Fail(Error(ErrorCode::kTimeout, where + " did not start within " +
                                                 std::to_string(timeout_s) + " s; " +
                                                 step.err_path + ": " + Tail(step.err_path))
                      .WithNode(missing));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

Result<void> WaitForLeaderReady(const Step& leader, int timeout_s) {
  auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    auto lines = ParseLabelledLines(ReadFile(leader.out_path));
    for (const auto& line : lines[0]) {
      if (line == "ready") return {};
    }
    if (Exited(leader.pid)) {
      return Fail(Error(ErrorCode::kSystem, "the leader daemon exited before every node joined; " +
                                                leader.err_path + ": " + Tail(leader.err_path))
                      .WithNode(0));
    }
    if (Clock::now() > deadline) {
      return Fail(Error(ErrorCode::kTimeout,
                        "the daemons did not all join within " + std::to_string(timeout_s) +
                            " s; see " + leader.err_path + " and the other srun-level-*.err")
                      .WithNode(0));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Address of every node: NodeAddr from scontrol, else the node name itself.
std::vector<std::string> NodeAddresses(const SlurmAllocation& allocation,
                                       const SlurmDaemonOptions& options) {
  std::map<std::string, std::string> known;
  std::string list;
  for (const auto& n : allocation.nodes) list += (list.empty() ? "" : ",") + n;
  if (auto text = Capture({options.scontrol, "-o", "show", "node", list})) {
    known = ParseNodeAddresses(*text);
  }
  std::vector<std::string> out;
  for (const auto& n : allocation.nodes) {
    auto it = known.find(n);
    out.push_back(it != known.end() ? it->second : n);
  }
  return out;
}

Result<void> StartDaemons(const SlurmAllocation& allocation, const SlurmDaemonOptions& options,
                          const std::string& rundir) {
  auto secret = daemon::Secret::Generate();
  if (!secret) return Fail(secret.error());
  const std::vector<std::string> addresses = NodeAddresses(allocation, options);
  const int n = allocation.NumNodes();
  daemon::Tree tree{n, options.fanout};
  std::vector<int> ports(static_cast<std::size_t>(n), -1);
  std::vector<Step> steps;

  std::vector<std::string> common = {
      "--nodes",  std::to_string(n), "--fanout", std::to_string(options.fanout),
      "--listen", "0.0.0.0",         "--slurm"};
  if (!options.allocator.empty()) common.insert(common.end(), {"--allocator", options.allocator});
  if (!options.policy.empty()) common.insert(common.end(), {"--policy", options.policy});
  if (!options.topology.empty()) common.insert(common.end(), {"--topology", options.topology});

  const auto levels = TreeLevels(n, options.fanout);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const TreeLevel& level = levels[k];
    std::string parents;
    for (int node = level.first; node <= level.last && k > 0; ++node) {
      int parent = tree.Parent(node);
      parents += (parents.empty() ? "" : " ") + addresses[static_cast<std::size_t>(parent)] + ":" +
                 std::to_string(ports[static_cast<std::size_t>(parent)]);
    }
    DaemonLaunch launch{.srun = options.srun,
                        .pschedd = "/bin/sh",
                        .pschedd_args = {"-c", DaemonWrapperScript(), options.pschedd},
                        .srun_args = {"--label"},
                        .first_node = level.first,
                        .num_nodes = level.size()};
    launch.pschedd_args.insert(launch.pschedd_args.end(), common.begin(), common.end());
    if (k == 0) {
      // The contact file: launchers on hosts without the leader's socket reach it by TCP.
      launch.pschedd_args.insert(launch.pschedd_args.end(), {"--rundir", rundir, "--contact-file",
                                                             daemon::ContactPath(allocation.job_id),
                                                             "--contact-host", addresses[0]});
    }
    auto argv = DaemonLaunchArgv(allocation, launch);
    if (!argv) return Fail(argv.error());
    auto step = StartStep(*argv, rundir, static_cast<int>(k),
                          {{"PSCHED_SECRET", secret->Hex()},
                           {"PSCHED_SLURM_FIRST", std::to_string(level.first)},
                           {"PSCHED_SLURM_PARENTS", parents}});
    if (!step) {
      StopSteps(steps);
      return Fail(step.error());
    }
    steps.push_back(*step);
    auto level_ports = WaitForPorts(*step, level, allocation.nodes, options.start_timeout_seconds);
    if (!level_ports) {
      StopSteps(steps);
      return Fail(level_ports.error());
    }
    for (int i = 0; i < level.size(); ++i) {
      ports[static_cast<std::size_t>(level.first) + static_cast<std::size_t>(i)] =
          (*level_ports)[static_cast<std::size_t>(i)];
    }
  }
  if (auto ready = WaitForLeaderReady(steps.front(), options.start_timeout_seconds); !ready) {
    StopSteps(steps);
    return Fail(ready.error());
  }
  return {};
}

// How many of the allocation's daemons have reported their port so far, from the srun
// logs of the launcher that starts them (in the run directory on its host).
int DaemonsReported(const std::string& rundir) {
  int reported = 0;
  for (int level = 0;; ++level) {
    const std::string out = rundir + "/srun-level-" + std::to_string(level) + ".out";
    if (!std::filesystem::exists(out)) return reported;
    for (const auto& [task, lines] : ParseLabelledLines(ReadFile(out)))
      reported += ReportedPort(lines) >= 0;
  }
}

// How long a start may take: the starter's srun steps and the leader's "ready" (each
// bounded by start_timeout_seconds), and as much again for what comes before them
// (scontrol, the sweeps). A launcher waits for another one's start that long at most.
std::chrono::seconds StartBound(const SlurmAllocation& allocation,
                                const SlurmDaemonOptions& options) {
  const auto levels = static_cast<int>(TreeLevels(allocation.NumNodes(), options.fanout).size());
  return std::chrono::seconds(options.start_timeout_seconds * (levels + 2));
}

// What a launcher that waits for another one's start tells (psched-exec -v): whom it waits
// for, then how far the start is (from the srun logs when that one runs on this host).
daemon::StartLockWaiting StarterProgress(const SlurmAllocation& allocation,
                                         const SlurmDaemonOptions& options,
                                         const std::string& rundir) {
  if (!options.progress) return {};
  const std::string bound = std::to_string(StartBound(allocation, options).count());
  const std::string nodes = std::to_string(allocation.NumNodes());
  return [=, said = false](const std::string& holder, std::chrono::seconds waited) mutable {
    const std::string who = holder.empty() ? "another psched-exec" : "psched-exec " + holder;
    if (!said) {
      said = true;
      options.progress("waiting up to " + bound + " s for the daemons of Slurm job " +
                       allocation.job_id + " to join (" + who + " starts them)");
      return;
    }
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    options.progress(
        holder.ends_with(std::string(" on ") + host)
            ? std::to_string(DaemonsReported(rundir)) + " of " + nodes + " have started"
            : who + " has been starting them for " + std::to_string(waited.count()) + " s");
  };
}

// The leader answers as soon as it listens, before the other daemons have joined, and
// refuses sessions until they have. A launcher that finds it while another one, on any
// host, still starts the daemons (holding the job's start lock in the shared home) waits
// for that one to finish, up to the time that one may take, as a launcher that came first
// would.
Result<void> WaitForStarter(const SlurmAllocation& allocation, const SlurmDaemonOptions& options,
                            const std::string& rundir) {
  auto waited = daemon::WaitForStartLock(daemon::StartLockPath(allocation.job_id),
                                         StartBound(allocation, options),
                                         StarterProgress(allocation, options, rundir));
  if (waited || waited.error().code() != ErrorCode::kTimeout) return {};  // else: try the leader
  return Fail(waited.error().Wrap("the daemons of Slurm job " + allocation.job_id +
                                  " did not all join (the starter's srun logs: " + rundir +
                                  "/srun-level-*.err on its host)"));
}

}  // namespace

std::string SlurmRunDir(const SlurmAllocation& allocation) {
  return "/tmp/psched-" + std::to_string(geteuid()) + "-slurm-" + allocation.job_id;
}

int SweepEndedJobRunDirs(const std::string& parent, const std::string& current_job,
                         const std::function<bool(const std::string& job)>& job_active) {
  const std::string prefix = "psched-" + std::to_string(geteuid()) + "-slurm-";
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename();
    if (!name.starts_with(prefix)) continue;
    const std::string job = name.substr(prefix.size());
    if (job.empty() || job == current_job ||
        job.find_first_not_of("0123456789") != std::string::npos)
      continue;
    if (SocketAnswers(daemon::LauncherService::SocketPath(entry.path())) || job_active(job))
      continue;
    if (daemon::RemoveRunDir(entry.path()) && !std::filesystem::exists(entry.path())) ++removed;
  }
  return removed;
}

Result<std::string> EnsureSlurmDaemons(const SlurmAllocation& allocation,
                                       const SlurmDaemonOptions& options) {
  if (options.pschedd.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "starting the Slurm daemons: no pschedd given");
  }
  if (options.fanout < 1) {
    return Fail(ErrorCode::kInvalidArgument, "starting the Slurm daemons: fanout must be >= 1");
  }
  const std::string rundir = SlurmRunDir(allocation);
  if (LeaderAnswers(allocation, rundir)) {
    auto waited = WaitForStarter(allocation, options, rundir);
    if (!waited) return Fail(waited.error());
    if (LeaderAnswers(allocation, rundir)) return rundir;  // else the starter failed: start here
  }
  if (auto ok = daemon::EnsurePrivateDir(rundir); !ok) return Fail(ok.error());
  // One starter at a time, on whichever host (the lock is in the shared home); whoever
  // waited finds the daemons the first one started.
  const std::string what = "starting psched's daemons in Slurm job " + allocation.job_id;
  if (auto ok = daemon::MakeContactDir(daemon::ContactDir(allocation.job_id)); !ok)
    return Fail(ok.error().Wrap(what));
  auto lock = daemon::StartLock::Take(daemon::StartLockPath(allocation.job_id),
                                      StartBound(allocation, options),
                                      StarterProgress(allocation, options, rundir));
  if (!lock) return Fail(lock.error().Wrap(what));
  // The run directory here keeps its srun logs while we start, for our error messages,
  // even when a leader that fails meanwhile removes its own (on this host): RemoveRunDir
  // leaves a run directory whose start lock is held. Only we take it (under the job's lock).
  auto rundir_lock = daemon::StartLock::Take(rundir + "/" + daemon::kStartLockName,
                                             StartBound(allocation, options));
  if (!rundir_lock) return Fail(rundir_lock.error().Wrap(what));
  const bool answers = LeaderAnswers(allocation, rundir);
  if (!answers) {
    // A job's first daemons: the time to clear what ended jobs left behind.
    SweepEndedJobRunDirs("/tmp", allocation.job_id, SlurmJobActive);
    SweepEndedJobContacts(daemon::ContactRoot(), allocation.job_id, SlurmJobActive);
  }
  Result<void> started = answers ? Result<void>() : StartDaemons(allocation, options, rundir);
  if (!started) {
    return Fail(started.error().Wrap(what));
  }
  return rundir;
}

Result<std::optional<SlurmLeader>> FindSlurmLeader(const Environment& env, bool start,
                                                   const SlurmDaemonOptions& options) {
  if (env.contains("PSCHED_SESSION") && !env.contains("SLURM_JOB_ID")) {
    return std::optional<SlurmLeader>();
  }
  auto allocation = ParseAllocation(env);
  if (!allocation) return Fail(allocation.error());
  if (!*allocation) return std::optional<SlurmLeader>();
  SlurmDaemonOptions chosen = options;
  if (auto it = env.find("PSCHED_SLURM_FANOUT"); it != env.end()) {
    int fanout = 0;
    auto [end, ec] =
        std::from_chars(it->second.data(), it->second.data() + it->second.size(), fanout);
    if (ec != std::errc() || end != it->second.data() + it->second.size() || fanout < 1) {
      return Fail(ErrorCode::kInvalidArgument,
                  "PSCHED_SLURM_FANOUT='" + it->second + "' is not a positive integer");
    }
    chosen.fanout = fanout;
  }
  std::string rundir = SlurmRunDir(**allocation);
  if (start) {
    auto ensured = EnsureSlurmDaemons(**allocation, chosen);
    if (!ensured) return Fail(ensured.error());
    rundir = *ensured;
  } else if (auto waited = WaitForStarter(**allocation, chosen, rundir); !waited) {
    return Fail(waited.error());  // only the lock is looked at: no connection to the leader
  }
  return std::optional<SlurmLeader>(SlurmLeader{(*allocation)->job_id,
                                                daemon::LauncherService::SocketPath(rundir),
                                                daemon::ContactPath((*allocation)->job_id)});
}

Result<int> ConnectSlurmLeader(const SlurmLeader& leader, std::string* via) {
  auto local = ConnectUnix(leader.socket);
  if (local) {
    if (via) *via = leader.socket;
    return local;
  }
  auto contact = daemon::ReadContact(leader.contact, leader.job_id);
  if (!contact) {
    // Neither a socket here nor a contact file: no daemons (yet).
    if (contact.error().sys_errno() == ENOENT) return local;
    return Fail(contact.error());
  }
  auto fd = daemon::ConnectAsLauncher(contact->address, contact->secret);
  const std::string file =
      "the contact file '" + leader.contact + "' of Slurm job " + leader.job_id;
  if (fd) {
    if (via) *via = contact->address + " (TCP, from " + leader.contact + ")";
    return fd;
  }
  if (fd.error().sys_errno() != ECONNREFUSED) return Fail(fd.error().Wrap(file));
  // Nothing listens there: a leader killed before it could remove its file (the job ended,
  // Slurm's SIGKILL) or one that died in a job that still runs (a starter starts anew).
  if (!SlurmJobActive(leader.job_id)) {
    daemon::RemoveContact(leader.contact);
    return Fail(ErrorCode::kNotFound,
                "Slurm job " + leader.job_id + " has ended: its contact file '" + leader.contact +
                    "' was stale (nothing answers at " + contact->address + "); removed it");
  }
  return Fail(fd.error().Wrap(file));
}

int SweepEndedJobContacts(const std::string& root, const std::string& current_job,
                          const std::function<bool(const std::string& job)>& job_active) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string job = entry.path().filename();
    if (job == current_job || job.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string path = entry.path() / "contact";
    auto contact = daemon::ReadContact(path, job);
    if (contact) {
      if (auto fd = daemon::ConnectAsLauncher(contact->address, contact->secret,
                                              std::chrono::seconds(2))) {
        close(*fd);
        continue;
      }
    }
    if (job_active(job)) continue;
    daemon::RemoveContact(path);
    removed += !std::filesystem::exists(entry.path());
  }
  return removed;
}

}  // namespace psched::slurm
