#include "tests/support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "common/exec_args.hpp"
#include "common/raw_pty.hpp"

extern char** environ;

namespace psched::testing {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point Deadline(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

std::string Bin(const std::string& name) {
  return std::string(PSCHED_BIN_DIR) + "/" + name;
}

std::string PathWithBin() {
  const char* path = std::getenv("PATH");
  return std::string("PATH=") + PSCHED_BIN_DIR + ":" + (path ? path : "/usr/bin:/bin");
}

Proc::Proc(const std::vector<std::string>& argv, const std::vector<std::string>& env,
           bool keep_stdin_open, StdoutIs out_is) {
  int in[2], out[2], err[2];
  // A test cannot go on without its child: failing to make pipes is a broken machine.
  if (pipe2(in, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) std::abort();
  if (out_is == StdoutIs::kTerminal) {
    auto pty = OpenRawPty();  // its end of file is EIO, which Pump takes as one
    if (!pty) std::abort();
    out[0] = pty->master;
    out[1] = pty->slave;
  } else if (pipe2(out, O_CLOEXEC)) {
    std::abort();
  }
  std::vector<std::string> envs = EnvironmentWith(environ, env);
  std::vector<char*> args = ExecArray(argv), envp = ExecArray(envs);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvpe(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (!keep_stdin_open) CloseStdin();
}

Proc::~Proc() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    Wait(10);
  }
  CloseStdin();
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

void Proc::WriteStdin(const std::string& data) {
  signal(SIGPIPE, SIG_IGN);  // a child that exited early must fail the test, not kill it
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(in_, data.data() + off, data.size() - off);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

void Proc::CloseStdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

void Proc::Pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (poll(fds, 2, timeout_ms) <= 0) return;
  char buf[65536];
  for (auto& p : fds) {
    if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP))) continue;
    ssize_t n = read(p.fd, buf, sizeof buf);
    std::string& sink = p.fd == out_fd_ ? out_ : err_;
    if (n > 0) {
      sink.append(buf, static_cast<size_t>(n));
    } else {
      close(p.fd);
      (p.fd == out_fd_ ? out_fd_ : err_fd_) = -1;
    }
  }
}

bool Proc::WaitOutput(const std::string& sink, const std::function<bool(const std::string&)>& done,
                      double seconds) {
  auto end = Deadline(seconds);
  while (!done(sink)) {
    if (Clock::now() > end || (out_fd_ < 0 && err_fd_ < 0)) return done(sink);
    Pump(50);
  }
  return true;
}

bool Proc::WaitStdout(const std::function<bool(const std::string&)>& done, double seconds) {
  return WaitOutput(out_, done, seconds);
}

bool Proc::WaitStderr(const std::function<bool(const std::string&)>& done, double seconds) {
  return WaitOutput(err_, done, seconds);
}

int Proc::Wait(double seconds) {
  auto end = Deadline(seconds);
  while (!reaped_) {
    if (out_fd_ >= 0 || err_fd_ >= 0) Pump(50);
    int st = 0;
    if (waitpid(pid_, &st, (out_fd_ < 0 && err_fd_ < 0) ? 0 : WNOHANG) == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (Clock::now() > end) return -1;
  }
  // The rest of its output; bounded too, since a daemon it left behind may hold the pipes.
  while ((out_fd_ >= 0 || err_fd_ >= 0) && Clock::now() <= end) Pump(50);
  return status_;
}

void Proc::Signal(int sig) {
  kill(pid_, sig);
}

RunResult RunCmd(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const std::string& stdin_data, double seconds) {
  Proc p(argv, env, !stdin_data.empty());
  if (!stdin_data.empty()) {
    p.WriteStdin(stdin_data);
    p.CloseStdin();
  }
  int code = p.Wait(seconds);
  return {code, p.out(), p.err()};
}

RunResult RunShell(const std::string& command, const std::vector<std::string>& env,
                   double seconds) {
  return RunCmd({"/bin/sh", "-c", command}, env, "", seconds);
}

}  // namespace psched::testing
