#include "tests/integration/harness.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace psched::testing {

std::string Bin(const std::string& name) {
  return std::string(PSCHED_BIN_DIR) + "/" + name;
}

Proc::Proc(const std::vector<std::string>& argv, const std::vector<std::string>& env,
           bool keep_stdin_open) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) std::abort();
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  for (const auto& e : env) {
    std::string name = e.substr(0, e.find('='));
    std::erase_if(envs, [&](const std::string& x) { return x.starts_with(name + "="); });
    envs.push_back(e);
  }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> a, en;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : envs) en.push_back(const_cast<char*>(s.c_str()));
    en.push_back(nullptr);
    execvpe(a[0], a.data(), en.data());
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
  signal(SIGPIPE, SIG_IGN);
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

bool Proc::WaitStdout(const std::function<bool(const std::string&)>& done, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done(out_)) {
    if (std::chrono::steady_clock::now() > end || (out_fd_ < 0 && err_fd_ < 0)) return done(out_);
    Pump(50);
  }
  return true;
}

bool Proc::WaitStderr(const std::function<bool(const std::string&)>& done, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done(err_)) {
    if (std::chrono::steady_clock::now() > end || (out_fd_ < 0 && err_fd_ < 0)) return done(err_);
    Pump(50);
  }
  return true;
}

int Proc::Wait(double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!reaped_) {
    if (out_fd_ >= 0 || err_fd_ >= 0) Pump(50);
    int st = 0;
    if (waitpid(pid_, &st, (out_fd_ < 0 && err_fd_ < 0) ? 0 : WNOHANG) == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::steady_clock::now() > end) return -1;
  }
  while (out_fd_ >= 0 || err_fd_ >= 0) Pump(1000);
  return status_;
}

void Proc::Signal(int sig) {
  kill(pid_, sig);
}

RunResult RunCmd(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const std::string& stdin_data) {
  Proc p(argv, env, !stdin_data.empty());
  if (!stdin_data.empty()) {
    p.WriteStdin(stdin_data);
    p.CloseStdin();
  }
  int code = p.Wait(120);
  return {code, p.out(), p.err()};
}

bool Eventually(const std::function<bool()>& cond, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

char ProcessState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return 0;
  return text[paren + 2];
}

bool ProcessGone(pid_t pid) {
  char s = ProcessState(pid);
  return s == 0 || s == 'Z' || s == 'X';
}

std::string CpusAllowed(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("Cpus_allowed_list:")) {
      auto v = line.substr(18);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    pid_t pid = std::atoi(e.path().filename().c_str());
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(text.substr(paren + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(pid);
  }
  return out;
}

std::vector<pid_t> FindProcesses(const std::vector<std::string>& needles) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    pid_t pid = std::atoi(e.path().filename().c_str());
    if (pid <= 0 || ProcessState(pid) == 'Z') continue;
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    bool all = !cmd.empty();
    for (const auto& n : needles) all = all && cmd.find(n) != std::string::npos;
    if (all) out.push_back(pid);
  }
  return out;
}

EmulatedAlloc::EmulatedAlloc(int nodes, const std::string& topology, int fanout)
    : proc_({Bin("psched-alloc"), "-N", std::to_string(nodes), "--topology", topology, "--fanout",
             std::to_string(fanout), "--", "sh", "-c",
             "echo \"alloc=$PSCHED_ALLOCATION\"; exec cat > /dev/null"},
            {}, /*keep_stdin_open=*/true) {
  if (proc_.WaitStdout([](const std::string& s) { return s.find('\n') != std::string::npos; })) {
    auto line = Lines(proc_.out()).front();
    if (line.starts_with("alloc=")) dir_ = line.substr(6);
  }
}

EmulatedAlloc::~EmulatedAlloc() {
  Stop();
}

int EmulatedAlloc::Stop() {
  proc_.CloseStdin();
  return proc_.Wait(60);
}

pid_t EmulatedAlloc::DaemonPid(int node) const {
  std::string rundir = node == 0 ? dir_ + " " : dir_ + "/node-" + std::to_string(node) + " ";
  auto pids = FindProcesses({"pschedd", "--rundir " + rundir});
  return pids.empty() ? -1 : pids.front();
}

EmbeddedDaemon::EmbeddedDaemon() {
  char tmpl[] = "/tmp/psched-it-XXXXXX";
  xdg_ = mkdtemp(tmpl);
}

EmbeddedDaemon::~EmbeddedDaemon() {
  RunCmd({Bin("psched-ctl"), "shutdown"}, Env());
  pid_t pid = Pid();
  if (pid > 0) Eventually([pid] { return ProcessGone(pid); }, 10);
  std::error_code ec;
  std::filesystem::remove_all(xdg_, ec);
}

pid_t EmbeddedDaemon::Pid() const {
  auto pids = FindProcesses({"pschedd", "--rundir " + RunDir()});
  return pids.empty() ? -1 : pids.front();
}

GoFile::GoFile() {
  char tmpl[] = "/tmp/psched-go-XXXXXX";
  int fd = mkstemp(tmpl);
  close(fd);
  unlink(tmpl);
  path_ = tmpl;
}
GoFile::~GoFile() {
  unlink(path_.c_str());
}
void GoFile::Go() {
  std::ofstream(path_) << "go\n";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (const auto& l : Lines(text)) n += l.find(needle) != std::string::npos;
  return n;
}

}  // namespace psched::testing
