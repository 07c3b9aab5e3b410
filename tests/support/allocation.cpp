#include "tests/support/allocation.hpp"

#include <fstream>

#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {
namespace {

// psched-alloc's extra environment: `env`, and PSCHED_CONF naming `toml` written into
// `dir` when there is a config.
std::vector<std::string> AllocEnv(const TempDir& dir, const std::string& toml,
                                  std::vector<std::string> env) {
  if (toml.empty()) return env;
  std::string path = dir / "psched.toml";
  std::ofstream(path) << toml;
  env.push_back("PSCHED_CONF=" + path);
  return env;
}

}  // namespace

EmulatedAlloc::EmulatedAlloc(int nodes, const std::string& topology, int fanout,
                             const std::string& admin_toml, std::vector<std::string> env)
    : proc_({Bin("psched-alloc"), "-N", std::to_string(nodes), "--topology", topology, "--fanout",
             std::to_string(fanout), "--", "sh", "-c",
             "echo \"alloc=$PSCHED_ALLOCATION\"; exec cat > /dev/null"},
            AllocEnv(conf_dir_, admin_toml, std::move(env)), /*keep_stdin_open=*/true) {
  if (proc_.WaitStdout([](const std::string& s) { return s.find('\n') != std::string::npos; })) {
    auto line = Lines(proc_.out()).front();
    if (line.starts_with("alloc=")) dir_ = line.substr(6);
  }
}

std::string EmulatedAlloc::Diagnosis() const {
  if (ok()) return "";
  std::string said = proc_.out() + proc_.err();
  return said.empty() ? "psched-alloc printed nothing within 30 s (a daemon never joined?)"
                      : "psched-alloc said: " + said;
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

std::unique_ptr<Proc> EmulatedAlloc::Exec(std::vector<std::string> args) const {
  args.insert(args.begin(), Bin("psched-exec"));
  return std::make_unique<Proc>(args, Env());
}

nlohmann::json EmulatedAlloc::Status() const {
  nlohmann::json j;
  Eventually([&] {
    auto r = RunCmd({Bin("psched-ctl"), "status", "--json"}, Env());
    j = nlohmann::json::parse(r.out, nullptr, false);
    return r.code == 0 && !j.is_discarded();
  });
  return j.is_discarded() ? nlohmann::json::object() : j;
}

nlohmann::json SessionOf(const nlohmann::json& status, int id) {
  for (const auto& s : status.value("sessions", nlohmann::json::array()))
    if (s.value("id", 0) == id) return s;
  return nlohmann::json::object();
}

EmbeddedDaemon::EmbeddedDaemon() = default;

EmbeddedDaemon::~EmbeddedDaemon() {
  RunCmd({Bin("psched-ctl"), "shutdown"}, Env());
  pid_t pid = Pid();
  if (pid > 0) Eventually([pid] { return ProcessGone(pid); }, 10);
}

pid_t EmbeddedDaemon::Pid() const {
  auto pids = FindProcesses({"pschedd", "--rundir " + RunDir()});
  return pids.empty() ? -1 : pids.front();
}

RunResult InAllocation(const std::vector<std::string>& alloc_args, const std::string& script,
                       int timeout_s) {
  std::vector<std::string> args = {Bin("psched-alloc")};
  args.insert(args.end(), alloc_args.begin(), alloc_args.end());
  args.insert(args.end(), {"--", "/bin/sh", "-c", script});
  return RunCmd(args, {PathWithBin()}, "", timeout_s);
}

}  // namespace psched::testing
