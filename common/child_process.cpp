#include "common/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "common/exec_args.hpp"

extern char** environ;

namespace psched {
namespace {

// The child's steps, for the error message.
enum Stage : int { kDescriptors = 1, kSession = 2, kExec = 3 };

const char* StageCall(int stage) {
  switch (stage) {
    case kDescriptors:
      return "arranging descriptors (open/dup2/close_range)";
    case kSession:
      return "setsid/setpgid";
    default:
      return "execvp";
  }
}

[[noreturn]] void DieInChild(int status_fd, int stage) {
  const std::array<int, 2> payload = {stage, errno};
  (void)!write(status_fd, payload.data(), sizeof payload);
  _exit(127);
}

// After fork, before exec: only async-signal-safe calls.
[[noreturn]] void BecomeChild(const ChildSpec& spec, char* const* argv, char* const* envp,
                              int status_fd) {
  if (spec.parent_death_signal != 0) prctl(PR_SET_PDEATHSIG, spec.parent_death_signal);
  if (spec.own_session && setsid() < 0) DieInChild(status_fd, kSession);
  if (spec.own_process_group && !spec.own_session && setpgid(0, 0) != 0)
    DieInChild(status_fd, kSession);
  ResetSignalsInChild();

  // Every source first moves above the targets (so no dup2 overwrites a source not yet
  // used), then onto its target, which leaves the target without close-on-exec.
  const int moved_status = fcntl(status_fd, F_DUPFD_CLOEXEC, 10);
  if (moved_status < 0) DieInChild(status_fd, kDescriptors);
  status_fd = moved_status;
  const std::array<int, 4> wanted = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd, spec.fd3};
  std::array<int, 4> moved = {-1, -1, -1, -1};
  for (int target = 0; target < 4; ++target) {
    int source = wanted[target];
    if (source == ChildSpec::kInherit) continue;
    if (source == ChildSpec::kNull) source = open("/dev/null", O_RDWR | O_CLOEXEC);
    moved[target] = source < 0 ? -1 : fcntl(source, F_DUPFD_CLOEXEC, 10);
    if (moved[target] < 0) DieInChild(status_fd, kDescriptors);
  }
  for (int target = 0; target < 4; ++target)
    if (moved[target] >= 0 && dup2(moved[target], target) < 0) DieInChild(status_fd, kDescriptors);
  const int first_closed = spec.fd3 == ChildSpec::kInherit ? 3 : 4;
  if (spec.close_other_fds && !CloseDescriptorsFrom(first_closed, status_fd))
    DieInChild(status_fd, kDescriptors);

  execvpe(argv[0], argv, envp);
  DieInChild(status_fd, kExec);
}

}  // namespace

void ResetSignalsInChild() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

bool CloseDescriptorsFrom(int first, int keep) {
  return CloseDescriptorsExcept(first, &keep, 1);
}

bool CloseDescriptorsExcept(int first, const int* keep, size_t count) {
  int from = first;  // the lowest descriptor not yet closed or kept
  for (size_t i = 0; i < count; ++i) {
    if (keep[i] < from) continue;
    if (keep[i] > from && close_range(from, keep[i] - 1, 0) != 0) return false;
    from = keep[i] + 1;
  }
  return close_range(from, ~0U, 0) == 0;
}

Result<pid_t> StartChild(const ChildSpec& spec) {
  if (spec.argv.empty()) return Fail(ErrorCode::kInvalidArgument, "no command to run");
  const std::string what = "cannot run '" + spec.argv[0] + "'";
  // Built before fork: the child allocates nothing.
  std::vector<std::string> env_strings = spec.env.empty() ? EnvironmentWith(environ, {}) : spec.env;
  std::vector<char*> argv = ExecArray(spec.argv), envp = ExecArray(env_strings);
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) return Fail(Error::FromErrno("pipe2", what));
  pid_t pid = fork();
  if (pid < 0) {
    Error e = Error::FromErrno("fork", what);
    close(status[0]);
    close(status[1]);
    return Fail(e);
  }
  if (pid == 0) {
    close(status[0]);
    BecomeChild(spec, argv.data(), envp.data(), status[1]);
  }
  close(status[1]);
  std::array<int, 2> payload = {0, 0};
  ssize_t n;
  do n = read(status[0], payload.data(), sizeof payload);  // EOF at once when exec succeeded
  while (n < 0 && errno == EINTR);
  close(status[0]);
  if (n <= 0) return pid;
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return Fail(Error::FromErrno(StageCall(payload[0]), what, payload[1]));
}

}  // namespace psched
