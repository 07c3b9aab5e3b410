#include "tests/support/proc_fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>

namespace psched::testing {
namespace {

std::string ProcPath(pid_t pid, const std::string& file) {
  return "/proc/" + std::to_string(pid) + "/" + file;
}

// The value of field `name` ("Cpus_allowed_list", "SigCgt") in a /proc status file.
std::string StatusField(const std::string& status_path, const std::string& name) {
  std::istringstream in(ReadFile(status_path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(name + ":")) {
      auto v = line.substr(name.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

// The numeric entries of a /proc directory: pids, or a process's thread ids.
std::vector<pid_t> NumericEntries(const std::string& dir) {
  std::vector<pid_t> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    pid_t id = std::atoi(e.path().filename().c_str());
    if (id > 0) ids.push_back(id);
  }
  return ids;
}

// The fields after the command name in /proc/PID/stat (the name may hold spaces and ')').
std::string StatAfterName(pid_t pid) {
  std::string text = ReadFile(ProcPath(pid, "stat"));
  auto paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return "";
  return text.substr(paren + 2);
}

pid_t ParentOf(pid_t pid) {
  std::istringstream rest(StatAfterName(pid));
  char state = 0;
  pid_t ppid = 0;
  return rest >> state >> ppid ? ppid : 0;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  // POSIX reads, not ifstream: a /proc file whose process exits mid-read fails with
  // ESRCH, and libstdc++'s filebuf turns a read error into an exception.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

char ProcessState(pid_t pid) {
  std::string rest = StatAfterName(pid);
  return rest.empty() ? 0 : rest.front();
}

bool ProcessGone(pid_t pid) {
  char s = ProcessState(pid);
  return s == 0 || s == 'Z' || s == 'X';
}

std::string CpusAllowed(pid_t pid) {
  return StatusField(ProcPath(pid, "status"), "Cpus_allowed_list");
}

std::string ThreadCpusAllowed(pid_t pid, pid_t tid) {
  return StatusField(ProcPath(pid, "task/" + std::to_string(tid) + "/status"), "Cpus_allowed_list");
}

bool CatchesSignal(pid_t pid, int sig) {
  const std::string mask = StatusField(ProcPath(pid, "status"), "SigCgt");
  if (mask.empty()) return false;
  return ((std::strtoull(mask.c_str(), nullptr, 16) >> (sig - 1)) & 1U) != 0;
}

std::vector<pid_t> Threads(pid_t pid) {
  return NumericEntries(ProcPath(pid, "task"));
}

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (pid_t pid : NumericEntries("/proc"))
    if (ParentOf(pid) == parent) out.push_back(pid);
  return out;
}

bool StuckInVfork(pid_t pid) {
  if (ProcessState(pid) != 'D') return false;
  const std::vector<pid_t> kids = ChildrenOf(pid);
  return std::any_of(kids.begin(), kids.end(), [](pid_t kid) { return getpgid(kid) == kid; });
}

long ResidentKiB(pid_t pid) {
  const std::string rss = StatusField(ProcPath(pid, "status"), "VmRSS");  // "1234 kB"
  return rss.empty() ? -1 : std::stol(rss);
}

long CpuSliceNs(pid_t pid, pid_t tid) {
  // "se.slice      :      1400000": padded to a column, unlike /proc/PID/status.
  std::istringstream in(ReadFile(ProcPath(pid, "task/" + std::to_string(tid) + "/sched")));
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || line.substr(0, line.find_first_of(" :")) != "se.slice")
      continue;
    try {
      return std::stol(line.substr(colon + 1));
    } catch (const std::exception&) {
      return -1;
    }
  }
  return -1;
}

bool HeldStopped(pid_t pid) {
  auto stopped = [](char s) { return s == 'T' || s == 't'; };
  const char state = ProcessState(pid);
  if (stopped(state)) return true;
  if (state != 'D') return false;
  const std::vector<pid_t> kids = ChildrenOf(pid);
  if (kids.empty() ||
      !std::all_of(kids.begin(), kids.end(), [&](pid_t kid) { return stopped(ProcessState(kid)); }))
    return false;
  // Looked at again: the children are read well after the parent (ChildrenOf scans /proc),
  // and a vfork parent read in D may have been released meanwhile by its child's exec
  // (the child stopping just after): it is then running on its way to its own stop. A
  // stopped child releases nobody, so D (or T) now means held.
  const char now = ProcessState(pid);
  return now == 'D' || stopped(now);
}

std::vector<pid_t> FindProcesses(const std::vector<std::string>& needles) {
  std::vector<pid_t> out;
  for (pid_t pid : NumericEntries("/proc")) {
    if (ProcessState(pid) == 'Z') continue;
    std::string cmd = ReadFile(ProcPath(pid, "cmdline"));
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    bool all = !cmd.empty();
    for (const auto& n : needles) all = all && cmd.find(n) != std::string::npos;
    if (all) out.push_back(pid);
  }
  return out;
}

std::vector<RankProc> AllocationRanks(const std::string& alloc_dir, const std::string& comm) {
  std::vector<RankProc> found;
  std::set<pid_t> pids;
  for (pid_t pid : NumericEntries("/proc")) {
    if (ReadFile(ProcPath(pid, "comm")) != comm + "\n") continue;
    // A leading NUL makes every entry, the first too, findable as "\0NAME=".
    std::string env = std::string(1, '\0') + ReadFile(ProcPath(pid, "environ"));
    if (env.find(alloc_dir) == std::string::npos) continue;
    RankProc r{pid, EnvInt(env, "PSCHED_SESSION"), EnvInt(env, "PSCHED_RANK"),
               EnvInt(env, "PSCHED_NODE"), env};
    if (r.session <= 0) continue;
    found.push_back(std::move(r));
    pids.insert(pid);
  }
  std::vector<RankProc> ranks;
  for (RankProc& r : found)
    if (!pids.contains(ParentOf(r.pid))) ranks.push_back(std::move(r));
  return ranks;
}

int EnvInt(const std::string& env, const std::string& name) {
  auto at = env.find(std::string(1, '\0') + name + "=");
  if (at == std::string::npos) return -1;
  return std::atoi(env.c_str() + at + name.size() + 2);
}

}  // namespace psched::testing
