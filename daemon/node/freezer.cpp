#include "daemon/node/freezer.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>

#include "common/read_file.hpp"

namespace psched::daemon {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      std::string_view oct = s.substr(i + 1, 3);
      if (oct.size() == 3 &&
          std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out += static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

Result<void> WriteControl(const std::string& path, std::string_view value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Fail(Error::FromErrno("open", path));
  ssize_t n = write(fd, value.data(), value.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size()))
    return Fail(Error::FromErrno("write", "writing '" + std::string(value) + "' to " + path, err));
  return {};
}

const char* ControlFile(CgroupVersion v) {
  return v == CgroupVersion::kV2 ? "cgroup.freeze" : "freezer.state";
}

const char* Describe(CgroupVersion v) {
  return v == CgroupVersion::kV2 ? "cgroup2" : "v1 freezer";
}

// Makes and removes a probe cgroup in `parent`: "" when session cgroups can go
// there, else why not.
std::string Probe(const std::string& parent, CgroupVersion v, int node) {
  std::string dir =
      parent + "/psched.n" + std::to_string(node) + ".probe.p" + std::to_string(getpid());
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return std::string("mkdir ") + dir + ": " + std::strerror(errno);
  std::string why;
  std::string control = dir + "/" + ControlFile(v);
  if (access(control.c_str(), W_OK) != 0) {
    why = control + ": " + std::strerror(errno) +
          (v == CgroupVersion::kV2 && errno == ENOENT ? " (kernel older than 5.2?)" : "");
  } else if (access((dir + "/cgroup.procs").c_str(), W_OK) != 0) {
    why = dir + "/cgroup.procs: " + std::strerror(errno);
  }
  rmdir(dir.c_str());
  return why;
}

}  // namespace

std::vector<FreezerHierarchy> FreezerHierarchies(std::string_view mountinfo) {
  std::vector<FreezerHierarchy> v2, v1;
  for (std::string_view line : Split(mountinfo, '\n')) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    std::vector<std::string_view> f = Split(line, ' ');
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
    std::string_view fstype = dash[1];
    FreezerHierarchy h;
    h.root = Unescape(f[3]);
    h.mount = Unescape(f[4]);
    if (fstype == "cgroup2") {
      h.version = CgroupVersion::kV2;
      v2.push_back(h);
    } else if (fstype == "cgroup") {
      auto opts = Split(dash[3], ',');
      if (std::find(opts.begin(), opts.end(), "freezer") == opts.end()) continue;
      h.version = CgroupVersion::kV1;
      v1.push_back(h);
    }
  }
  v2.insert(v2.end(), v1.begin(), v1.end());
  return v2;
}

std::string CgroupDirIn(const FreezerHierarchy& h, std::string_view proc_cgroup) {
  for (std::string_view line : Split(proc_cgroup, '\n')) {
    // hierarchy-id:controllers:path; the path may itself hold ':'.
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    std::string path(line.substr(b + 1));
    bool match = h.version == CgroupVersion::kV2 ? id == "0" && controllers.empty() : [&] {
      auto c = Split(controllers, ',');
      return std::find(c.begin(), c.end(), "freezer") != c.end();
    }();
    if (!match) continue;
    if (h.root != "/") {
      // Only what lies under the mounted root is visible at the mount point.
      if (path.compare(0, h.root.size(), h.root) != 0 ||
          (path.size() > h.root.size() && path[h.root.size()] != '/'))
        return h.mount;
      path = path.substr(h.root.size());
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    return h.mount + path;
  }
  return h.mount;
}

namespace {

Result<FreezerPlace> FindPlace(int node, std::optional<CgroupVersion> only) {
  auto mountinfo = ReadWholeFile("/proc/self/mountinfo", "reading /proc/self/mountinfo");
  if (!mountinfo) return Fail(mountinfo.error());
  auto own = ReadWholeFile("/proc/self/cgroup", "reading /proc/self/cgroup");
  if (!own) return Fail(own.error());
  std::vector<std::string> tried;
  for (const FreezerHierarchy& h : FreezerHierarchies(*mountinfo)) {
    if (only && h.version != *only) continue;
    std::vector<std::string> parents{CgroupDirIn(h, *own)};
    if (parents[0] != h.mount) parents.push_back(h.mount);
    for (const std::string& parent : parents) {
      std::string why = Probe(parent, h.version, node);
      if (why.empty()) return FreezerPlace{h.version, parent};
      tried.push_back(std::string(Describe(h.version)) + " in " + parent + ": " + why);
    }
  }
  std::string what = only ? std::string(Describe(*only)) : "cgroup freezer (v2 or v1)";
  if (tried.empty())
    return Fail(ErrorCode::kNotFound, "no " + what + " is mounted (see /proc/self/mountinfo)");
  std::string all;
  for (const std::string& t : tried) all += (all.empty() ? "" : "; ") + t;
  return Fail(ErrorCode::kPermissionDenied, "no writable " + what + ": " + all);
}

}  // namespace

Result<FreezerPlace> FindFreezerPlace(int node) {
  return FindPlace(node, std::nullopt);
}
Result<FreezerPlace> FindFreezerPlace(int node, CgroupVersion only) {
  return FindPlace(node, only);
}

Result<std::unique_ptr<SessionFreezer>> SessionFreezer::Create(int node) {
  auto where = FindFreezerPlace(node);
  if (!where) return Fail(where.error());
  return CreateIn(node, std::move(*where));
}

std::unique_ptr<SessionFreezer> SessionFreezer::CreateIn(int node, FreezerPlace where) {
  std::unique_ptr<SessionFreezer> f(new SessionFreezer(node, std::move(where)));
  f->pid_ = getpid();
  return f;
}

SessionFreezer::~SessionFreezer() {
  std::vector<int64_t> sessions;
  sessions.reserve(join_fds_.size());
  for (const auto& [session, fd] : join_fds_) sessions.push_back(session);
  for (int64_t s : sessions) Remove(s);
  // Killed processes leave their cgroup as they exit: give them a moment.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!busy_dirs_.empty() && std::chrono::steady_clock::now() < deadline) {
    std::erase_if(busy_dirs_, [this](const std::string& d) { return TryRemoveDir(d); });
    timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
}

std::string SessionFreezer::VersionName() const {
  return Describe(where_.version);
}

std::string SessionFreezer::PathOf(int64_t session) const {
  return where_.parent + "/psched.n" + std::to_string(node_) + ".s" + std::to_string(session) +
         ".p" + std::to_string(pid_);
}

Result<int> SessionFreezer::JoinFd(int64_t session) {
  if (auto it = join_fds_.find(session); it != join_fds_.end()) return it->second;
  std::erase_if(busy_dirs_, [this](const std::string& d) { return TryRemoveDir(d); });
  std::string dir = PathOf(session);
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Fail(Error::FromErrno("mkdir", "making the session's cgroup " + dir)
                    .WithSession(session)
                    .WithNode(node_));
  }
  std::string procs = dir + "/cgroup.procs";
  int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    auto e = Error::FromErrno("open", procs);
    rmdir(dir.c_str());
    return Fail(e.WithSession(session).WithNode(node_));
  }
  join_fds_[session] = fd;
  return fd;
}

Result<void> SessionFreezer::Freeze(int64_t session) {
  return SetFrozen(session, true);
}

Result<void> SessionFreezer::Thaw(int64_t session) {
  return SetFrozen(session, false);
}

Result<void> SessionFreezer::SetFrozen(int64_t session, bool frozen) {
  if (!join_fds_.contains(session)) return {};
  const bool v2 = where_.version == CgroupVersion::kV2;
  const char* value = v2 ? (frozen ? "1" : "0") : (frozen ? "FROZEN" : "THAWED");
  auto ok = WriteControl(PathOf(session) + "/" + ControlFile(where_.version), value);
  if (!ok) return Fail(ok.error().WithSession(session).WithNode(node_));
  return {};
}

Result<bool> SessionFreezer::Frozen(int64_t session) {
  if (!join_fds_.contains(session)) return true;
  std::string file = PathOf(session) +
                     (where_.version == CgroupVersion::kV2 ? "/cgroup.events" : "/freezer.state");
  auto text = ReadWholeFile(file, "reading " + file);
  if (!text) return Fail(text.error().WithSession(session).WithNode(node_));
  if (where_.version == CgroupVersion::kV1) return text->starts_with("FROZEN");
  for (std::string_view line : Split(*text, '\n'))
    if (line == "frozen 1") return true;
  return false;
}

std::vector<pid_t> SessionFreezer::Processes(int64_t session) const {
  std::vector<pid_t> pids;
  std::ifstream in(PathOf(session) + "/cgroup.procs");
  pid_t pid;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

bool SessionFreezer::TryRemoveDir(const std::string& dir) {
  return rmdir(dir.c_str()) == 0 || errno == ENOENT;
}

void SessionFreezer::KillEverythingIn(int64_t session) {
  bool killed = where_.version == CgroupVersion::kV2 &&
                WriteControl(PathOf(session) + "/cgroup.kill", "1").has_value();  // Linux >= 5.14
  if (!killed)
    for (pid_t pid : Processes(session)) kill(pid, SIGKILL);
}

void SessionFreezer::KillProcesses(int64_t session) {
  if (!join_fds_.contains(session)) return;
  (void)Thaw(session);  // v1: a frozen process cannot even die
  KillEverythingIn(session);
}

void SessionFreezer::Remove(int64_t session) {
  auto it = join_fds_.find(session);
  if (it == join_fds_.end()) return;
  (void)Thaw(session);  // v1: a frozen process cannot even die
  close(it->second);
  join_fds_.erase(it);
  std::string dir = PathOf(session);
  if (TryRemoveDir(dir)) return;
  // What the ranks forked and left behind belongs to the session: it ends with it.
  KillEverythingIn(session);
  // SIGKILLed processes leave the cgroup within microseconds, usually; a straggler
  // is retried later rather than blocking the daemon's loop.
  for (int i = 0; i < 20; ++i) {
    timespec pause{0, 250'000};
    nanosleep(&pause, nullptr);
    if (TryRemoveDir(dir)) return;
  }
  busy_dirs_.push_back(dir);
}

}  // namespace psched::daemon
