#include "pmix/stale_dirs.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace psched::pmix {
namespace {

constexpr const char* kOwnerFile = "owner";

// Field 22 of /proc/PID/stat (clock ticks after boot): a pid reused later differs.
std::optional<unsigned long long> StartTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');  // the command may contain spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  // After ')' come fields 3 (state) ... 22 (starttime).
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return std::nullopt;
  }
  unsigned long long value = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

bool ProcessExists(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

std::optional<pid_t> ParsePid(std::string_view text) {
  long value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size() || value <= 0) return std::nullopt;
  return static_cast<pid_t>(value);
}

enum class Owner { kAlive, kDead, kUnknown };

std::string ThisHost() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

Owner OwnerFromFile(const std::string& dir) {
  std::ifstream in(dir + "/" + kOwnerFile);
  long pid = 0;
  unsigned long long start = 0;
  if (!(in >> pid >> start) || pid <= 0) return Owner::kUnknown;
  // A TMPDIR on a shared file system holds other hosts' directories: their pids mean
  // nothing here. (Files without a host are from before it was written.)
  std::string host;
  if (in >> host && host != ThisHost()) return Owner::kUnknown;
  auto now = StartTime(static_cast<pid_t>(pid));
  if (!now) return ProcessExists(static_cast<pid_t>(pid)) ? Owner::kAlive : Owner::kDead;
  return *now == start ? Owner::kAlive : Owner::kDead;
}

// Directories made before "owner" existed: PMIx's rendezvous file names carry the
// server's pid. Without a start time a live pid counts as the owner.
Owner OwnerFromPmixFiles(const std::string& dir) {
  std::error_code ec;
  std::optional<pid_t> pid;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/pmix", ec)) {
    std::string name = entry.path().filename().string();
    auto tool = name.rfind(".tool.");
    if (!name.starts_with("pmix.") || tool == std::string::npos) continue;
    if (auto p = ParsePid(std::string_view(name).substr(tool + 6))) pid = p;
  }
  if (!pid) return Owner::kUnknown;
  return ProcessExists(*pid) ? Owner::kAlive : Owner::kDead;
}

}  // namespace

std::string DaemonDirTemplate(const char* tmpdir, int node) {
  const std::string name = std::string(kDaemonDirPrefix) + std::to_string(node) + ".XXXXXX";
  std::string parent = tmpdir != nullptr ? tmpdir : "";
  while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
  if (!parent.starts_with('/') || parent.size() + 1 + name.size() > kMaxDaemonDirLength)
    parent = "/tmp";
  return (parent == "/" ? "" : parent) + "/" + name;
}

Result<void> WriteOwner(const std::string& dir) {
  auto start = StartTime(getpid());
  if (!start) return Fail(ErrorCode::kSystem, "reading /proc/self/stat for " + dir + "/owner");
  std::ofstream out(dir + "/" + kOwnerFile, std::ios::trunc);
  out << getpid() << " " << *start << " " << ThisHost() << "\n";
  out.close();
  if (!out) return Fail(Error::FromErrno("write", "writing " + dir + "/" + kOwnerFile));
  return {};
}

SweepReport RemoveStaleDirs(const std::string& parent, std::string_view prefix,
                            const std::string& keep) {
  SweepReport report;
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return report;
  std::vector<std::string> candidates;
  while (dirent* e = readdir(d)) {
    std::string_view name(e->d_name);
    if (name.starts_with(prefix)) candidates.emplace_back(parent + "/" + std::string(name));
  }
  closedir(d);
  const std::filesystem::path keep_path = std::filesystem::path(keep).lexically_normal();
  for (const auto& dir : candidates) {
    if (!keep.empty() && std::filesystem::path(dir).lexically_normal() == keep_path) continue;
    struct stat st;
    // Our own real directories only: never follow a link, never another user's.
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    Owner owner = OwnerFromFile(dir);
    if (owner == Owner::kUnknown) owner = OwnerFromPmixFiles(dir);
    if (owner != Owner::kDead) {
      report.kept.push_back(dir);
      continue;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) {
      report.kept.push_back(dir);
    } else {
      report.removed.push_back(dir);
    }
  }
  return report;
}

}  // namespace psched::pmix
