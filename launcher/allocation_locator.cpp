#include "launcher/allocation_locator.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/read_file.hpp"
#include "daemon/net/run_dir.hpp"
#include "launcher/slurm/slurm_daemons.hpp"
#include "launcher/slurm/slurm_environment.hpp"

namespace psched::launcher {

std::string SelfDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

std::string EmbeddedRunDir() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && *xdg != '\0' && access(xdg, W_OK) == 0) return std::string(xdg) + "/psched";
  return "/tmp/psched-" + std::to_string(geteuid());
}

namespace {

// A connect that found no daemon (no socket, or nobody listening on it), not a refusal,
// nor a start that failed (an srun that cannot run fails with ENOENT too).
bool NoDaemonThere(const Error& error) {
  return error.syscall() == "connect" &&
         (error.sys_errno() == ENOENT || error.sys_errno() == ECONNREFUSED);
}

// Starts pschedd detached (its own session, outliving us) and waits for "ready".
Result<void> StartEmbedded(const std::string& rundir) {
  int ready[2];
  if (pipe(ready) != 0) return Fail(Error::FromErrno("pipe", "starting the embedded daemon"));
  std::string pschedd = SelfDir() + "/pschedd";
  std::string log = rundir + "/pschedd.log";
  pid_t pid = fork();
  if (pid < 0) {
    Error e = Error::FromErrno("fork", "starting the embedded daemon");
    close(ready[0]);
    close(ready[1]);
    return Fail(e);
  }
  if (pid == 0) {
    close(ready[0]);
    setsid();
    if (fork() != 0) _exit(0);  // the daemon is re-parented: no zombie, no tie to our shell
    // Nor to our directory: the daemon would keep it busy (no umount) for as long as it
    // lives. Its own paths are absolute, and each session names its ranks' directory.
    if (chdir("/") != 0) _exit(127);
    int null_fd = open("/dev/null", O_RDWR);
    int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(log_fd >= 0 ? log_fd : null_fd, 2);
    if (ready[1] != 3) dup2(ready[1], 3);
    // The daemon outlives us: it must not hold our other descriptors (a pipe a caller
    // waits on for EOF, say), nor its own spares.
    close_range(4, ~0U, 0);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGPIPE}) signal(sig, SIG_DFL);
    // Nobody is told it runs: it ends itself once idle (config daemon.embedded_idle_exit_s).
    execl(pschedd.c_str(), "pschedd", "--rundir", rundir.c_str(), "--ready-fd", "3",
          "--exit-when-idle", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  waitpid(pid, nullptr, 0);
  // A read error reads as "not ready": the message below points to the daemon's log.
  std::string text = ReadToEnd(ready[0], "the embedded daemon's readiness").value_or("");
  close(ready[0]);
  if (text.find("ready") == std::string::npos) {
    return Fail(ErrorCode::kSystem,
                "the embedded daemon '" + pschedd + "' did not start (see " + log + ")");
  }
  return {};
}

}  // namespace

Result<int> ConnectToAllocation(bool start_embedded, AllocationSocket* where,
                                const std::function<void(const std::string&)>& progress) {
  if (const char* alloc = std::getenv("PSCHED_ALLOCATION"); alloc && *alloc) {
    where->path = daemon::LauncherSocketPath(alloc);
    where->kind = "psched-alloc";
    auto fd = ConnectUnix(where->path);
    if (!fd) return Fail(fd.error().Wrap("PSCHED_ALLOCATION=" + std::string(alloc)));
    return fd;
  }
  const slurm::Environment env = slurm::CurrentEnvironment();
  const slurm::SlurmDaemonOptions daemons{.pschedd = SelfDir() + "/pschedd", .progress = progress};
  // Warm daemons answer the first connect; only when none does, start them (or wait for
  // the starter). FindSlurmLeader's own check would cost the daemon one more connection.
  auto slurm = slurm::FindSlurmLeader(env, /*start=*/false, daemons);
  if (!slurm) return Fail(slurm.error());
  if (*slurm) {
    where->path = (*slurm)->socket;
    where->contact = (*slurm)->contact;
    where->kind = "slurm";
    auto fd = slurm::ConnectSlurmLeader(**slurm, &where->via);
    if (fd || !start_embedded || !NoDaemonThere(fd.error())) return fd;
    // Whether there is a job depends on `env` alone, so this finds it again (and starts
    // its daemons); were it not found, the connect below fails and says so.
    auto started = slurm::FindSlurmLeader(env, /*start=*/true, daemons);
    if (!started) return Fail(started.error());
    fd = slurm::ConnectSlurmLeader(*started ? **started : **slurm, &where->via);
    if (!fd) return Fail(fd.error().Wrap("Slurm job " + (**slurm).job_id));
    return fd;
  }
  std::string rundir = EmbeddedRunDir();
  where->path = daemon::LauncherSocketPath(rundir);
  where->kind = "embedded";
  if (auto fd = ConnectUnix(where->path); fd || !start_embedded) return fd;
  if (auto ok = daemon::EnsurePrivateDir(rundir); !ok) return Fail(ok.error());
  // One starter at a time: concurrent first calls share one daemon.
  const std::string lock_path = rundir + "/start.lock";
  int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) return Fail(Error::FromErrno("open", "the start lock '" + lock_path + "'"));
  if (flock(lock, LOCK_EX) != 0) {
    Error e = Error::FromErrno("flock", "locking '" + lock_path + "'");
    close(lock);
    return Fail(e);
  }
  auto fd = ConnectUnix(where->path);
  if (!fd) {
    auto started = StartEmbedded(rundir);
    fd = started ? ConnectUnix(where->path) : Result<int>(Fail(started.error()));
    where->started = started.has_value();
  }
  close(lock);
  return fd;
}

std::string NoDaemonMessage(const AllocationSocket& where, const Error& error) {
  // No socket, or one nobody listens on (a daemon that died): nothing runs. Anything
  // else (permissions, a full table) is not "none runs": say what it was.
  if (where.path.empty() || !NoDaemonThere(error))
    return "cannot reach a psched daemon: " + error.ToString();
  const std::string looked = " (looked for its socket at " + where.path + ")";
  // The socket is there but nobody listens: its daemon died without removing it (killed,
  // crashed). Say that, not just "Connection refused".
  const std::string dead = "the psched leader daemon that made " + where.path +
                           " is gone: nothing listens on that socket any more (connect: " +
                           std::strerror(error.sys_errno()) + ")";
  const bool died = error.sys_errno() == ECONNREFUSED;
  if (where.kind == "psched-alloc" && died) {
    return dead +
           "; the psched-alloc allocation in $PSCHED_ALLOCATION has lost its leader and "
           "ends (its psched-alloc says how the leader ended): start a new allocation, or "
           "unset PSCHED_ALLOCATION to use this machine's own daemon";
  }
  if (where.kind == "embedded" && died) {
    return dead + "; the first psched-exec starts a new one";
  }
  if (where.kind == "psched-alloc") {
    return "no psched daemon answers for the psched-alloc allocation in $PSCHED_ALLOCATION" +
           looked + "; has that psched-alloc ended?";
  }
  if (where.kind == "slurm") {
    return "no psched daemons run in this Slurm job yet (looked for its socket at " + where.path +
           " and its contact file at " + where.contact +
           "); the first psched-exec in the job starts them";
  }
  return "no psched daemon runs for this user on this machine" + looked +
         "; the first psched-exec starts one";
}

}  // namespace psched::launcher
