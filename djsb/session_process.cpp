#include "djsb/session_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/exec_args.hpp"
#include "djsb/stream_protocol.hpp"

extern char** environ;

namespace psched::djsb {

double WallClockNow() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Result<LaunchedSession> LaunchSession(const std::string& command,
                                      const std::vector<std::string>& extra_env,
                                      const std::string& output_path) {
  // Environment: ours, with extra_env overriding variables of the same name.
  std::vector<std::string> env_strings = EnvironmentWith(environ, extra_env);
  std::vector<char*> envp = ExecArray(env_strings);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group: a timeout or an error kills the launcher and all it started.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  LaunchedSession session;
  session.output_path = output_path;
  session.submit = WallClockNow();  // just before the launcher is called
  int rc = posix_spawn(&session.pid, "/bin/sh", &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Fail(Error::FromErrno("posix_spawn", "starting: " + command, rc));
  return session;
}

bool PollExited(LaunchedSession& session) {
  if (session.exited) return true;
  int status = 0;
  pid_t r = waitpid(session.pid, &status, WNOHANG);
  if (r != session.pid) return false;
  session.exited = true;
  session.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

void KillSession(LaunchedSession& session) {
  if (session.exited || session.pid <= 0) return;
  kill(-session.pid, SIGKILL);
  int status = 0;
  waitpid(session.pid, &status, 0);
  session.exited = true;
  session.exit_code = 128 + SIGKILL;
}

std::vector<double> ReportedIterations(const LaunchedSession& session, const std::string& tag) {
  std::ifstream in(session.output_path);
  const std::string prefix = std::string(kStreamIterationMarker) + " " + tag + " ";
  std::vector<double> times;
  std::string line;
  while (std::getline(in, line)) {
    // Launchers may prefix lines (labels): look for the marker anywhere in the line. A line
    // still being written has no time yet and is read on the next poll.
    auto at = line.find(prefix);
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + prefix.size()));
    size_t k = 0;
    double t = 0;
    if (!(fields >> k >> t) || k != times.size() + 1) continue;
    times.push_back(t);
  }
  return times;
}

Result<RunTimes> ReadStreamTimes(const LaunchedSession& session,
                                 std::optional<InteractionRecord>* interaction) {
  std::ifstream in(session.output_path);
  if (!in) return Fail(Error::FromErrno("open", "reading " + session.output_path));
  std::string line, all;
  std::optional<nlohmann::json> found;
  while (std::getline(in, line)) {
    all += line + "\n";
    if (line.empty() || line.front() != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.value("program", "") == "psched-stream") found = j;
  }
  auto tail = [&] { return all.size() > 600 ? "..." + all.substr(all.size() - 600) : all; };
  if (session.exit_code != 0) {
    return Fail(ErrorCode::kInternal, "launcher exited with " + std::to_string(session.exit_code) +
                                          " (output " + session.output_path + "):\n" + tail());
  }
  if (!found) {
    return Fail(ErrorCode::kProtocol,
                "no psched-stream JSON line in " + session.output_path + ":\n" + tail());
  }
  if (!found->value("valid", false)) {
    return Fail(ErrorCode::kInternal,
                "psched-stream results failed validation (" + session.output_path + ")");
  }
  RunTimes t;
  t.submit = session.submit;
  t.begin = found->value("begin", 0.0);
  t.end = found->value("end", 0.0);
  if (interaction != nullptr && found->contains("interactions")) {
    const nlohmann::json& j = (*found)["interactions"];
    InteractionRecord r;
    r.asked = j.value("asked", 0);
    r.completed = j.value("completed", 0);
    r.latencies_s = j.value("latencies_s", std::vector<double>{});
    r.error = j.value("error", "");
    *interaction = std::move(r);
  }
  return t;
}

}  // namespace psched::djsb
