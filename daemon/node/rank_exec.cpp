#include "daemon/node/rank_exec.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/child_process.hpp"
#include "common/exec_args.hpp"
#include "common/find_executable.hpp"
#include "common/raw_pty.hpp"

namespace psched::daemon {
namespace {

struct Pipe {
  int r = -1, w = -1;
  Result<void> Open(bool terminal) {
    if (terminal) {
      // Out of pseudo-terminals (kernel.pty.max, a container without /dev/ptmx): a pipe
      // instead, as Open MPI's odls does; the rank's stdio then only buffers more.
      if (auto pty = OpenRawPty()) {
        r = pty->master;
        w = pty->slave;
        return {};
      }
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return Fail(Error::FromErrno("pipe2", "rank pipes"));
    r = fds[0];
    w = fds[1];
    return {};
  }
  void Close() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
    r = w = -1;
  }
};

// Tells the parent which step failed (and errno), then leaves: the child never returns.
[[noreturn]] void DieInChild(int status_fd, int stage) {
  int payload[2] = {stage, errno};
  (void)!write(status_fd, payload, sizeof payload);
  _exit(127);
}

// In the vfork child, until exec: only async-signal-safe calls, no writes to memory
// the parent uses (the stack frame is shared), _exit never exit.
[[noreturn]] void ExecChild(const RankExecSpec& spec, const char* program, char* const* argv,
                            char* const* envp, const Pipe& out, const Pipe& err, const Pipe& in,
                            int status_fd, const std::vector<int>& keep, pid_t daemon_pid) {
  // Ranks must not outlive a killed daemon.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != daemon_pid) _exit(137);
  setpgid(0, spec.pgid);
  // Into the session's cgroup (freezer) before anything of the rank runs.
  if (spec.cgroup_procs_fd >= 0 && write(spec.cgroup_procs_fd, "0", 1) != 1)
    DieInChild(status_fd, 5);
  // Default dispositions first (the daemon's handlers must never run here), then unblock.
  ResetSignalsInChild();
  if (spec.with_stdin) {
    if (dup2(in.r, 0) < 0) DieInChild(status_fd, 1);
  } else {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0) DieInChild(status_fd, 1);
  }
  if (dup2(out.w, 1) < 0 || dup2(err.w, 2) < 0) DieInChild(status_fd, 1);
  // Only stdio crosses into the rank (and the status pipe, to exec, and what a launch hook
  // hands it): the daemon's sockets, listeners and log, and whatever its own parent left
  // open, must not live on in ranks.
  for (int fd : spec.inherit_fds)
    if (fcntl(fd, F_SETFD, 0) != 0) DieInChild(status_fd, 6);
  if (!CloseDescriptorsExcept(3, keep.data(), keep.size())) DieInChild(status_fd, 6);
  if (spec.bind && sched_setaffinity(0, sizeof spec.cpus, &spec.cpus) != 0)
    DieInChild(status_fd, 2);
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) DieInChild(status_fd, 3);
  execvpe(program, argv, envp);  // a path: no search here (a script without #! runs in sh)
  DieInChild(status_fd, 4);
}

std::string StageName(int stage) {
  switch (stage) {
    case 1:
      return "redirecting stdio";
    case 2:
      return "binding to its CPU set (sched_setaffinity)";
    case 3:
      return "changing directory to";
    case 5:
      return "joining its session's cgroup";
    case 6:
      return "closing the daemon's descriptors (close_range)";
    default:
      return "exec";
  }
}

}  // namespace

Result<RankProcess> ExecRank(const RankExecSpec& spec) {
  if (spec.argv.empty()) return Fail(ErrorCode::kInvalidArgument, "no command to run");
  // Looked up here, on the rank's PATH from its directory: execvp would search the
  // daemon's own PATH, that of whoever started it, not the user's now.
  const std::string search_path = SearchPathOf(spec.env);
  const std::optional<std::string> program = FindExecutable(spec.argv[0], search_path, spec.cwd);
  if (!program) {
    return Fail(ErrorCode::kNotFound,
                "exec '" + spec.argv[0] + "' failed: " +
                    (spec.argv[0].find('/') != std::string::npos
                         ? std::string("no executable file there")
                         : "not found on the rank's PATH (" + search_path + ")"));
  }
  std::vector<char*> argv = ExecArray(spec.argv), envp = ExecArray(spec.env);

  Pipe out, err, in, status;
  auto close_all = [&] {
    for (Pipe* p : {&out, &err, &in, &status}) p->Close();
  };
  // Out of descriptors (EMFILE) is the usual failure here: leak none, or the daemon stays out.
  for (Pipe* p : {&out, &err, &status, &in}) {
    if (p == &in && !spec.with_stdin) continue;
    if (auto ok = p->Open(p == &out && spec.stdout_pty); !ok) {
      close_all();
      return Fail(ok.error().Wrap("spawning '" + spec.argv[0] + "'"));
    }
  }
  // Kept in the child, ascending; built here, since the child allocates nothing.
  std::vector<int> keep = spec.inherit_fds;
  keep.push_back(status.w);
  std::sort(keep.begin(), keep.end());
  pid_t daemon_pid = getpid();
  // vfork: no page-table copy (fork's cost grows with the daemon's memory), and the
  // parent resumes only once the child has exec'd or failed. Signals stay blocked
  // across it so no handler of ours ever runs in the child on shared memory.
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old);
  pid_t pid = vfork();
  if (pid == 0) {
    ExecChild(spec, program->c_str(), argv.data(), envp.data(), out, err, in, status.w, keep,
              daemon_pid);
  }
  int fork_errno = errno;
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) {
    close_all();
    return Fail(Error::FromErrno("vfork", "spawning rank", fork_errno));
  }
  setpgid(pid, spec.pgid == 0 ? pid : spec.pgid);  // both sides set it: no race with signals
  close(out.w);
  close(err.w);
  close(status.w);
  if (spec.with_stdin) close(in.r);
  int payload[2] = {0, 0};
  ssize_t n;
  do n = read(status.r, payload, sizeof payload);  // EOF at once when exec succeeded
  while (n < 0 && errno == EINTR);
  close(status.r);
  if (n > 0) {  // the child reported a failure before exec succeeded
    waitpid(pid, nullptr, 0);
    close(out.r);
    close(err.r);
    if (spec.with_stdin) close(in.w);
    // What failed is the directory when changing to it, else the program.
    const std::string& what = payload[0] == 3 ? spec.cwd : spec.argv[0];
    return Fail(payload[1] == ENOENT ? ErrorCode::kNotFound : ErrorCode::kSystem,
                StageName(payload[0]) + " '" + what + "' failed: " + std::strerror(payload[1]));
  }
  return RankProcess{pid, out.r, err.r, spec.with_stdin ? in.w : -1};
}

}  // namespace psched::daemon
