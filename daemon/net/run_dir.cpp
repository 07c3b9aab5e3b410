#include "daemon/net/run_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace psched::daemon {

Result<void> EnsurePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Fail(Error::FromErrno("mkdir", "creating run directory '" + dir + "'"));
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0)
    return Fail(Error::FromErrno("lstat", "run directory '" + dir + "'"));
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
    return Fail(
        ErrorCode::kPermissionDenied,
        "run directory '" + dir + "' is not a directory owned by uid " + std::to_string(geteuid()));
  }
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0)
    return Fail(Error::FromErrno("chmod", "making run directory '" + dir + "' private"));
  return {};
}

namespace {

// The entries psched itself makes in a run directory.
bool OursToRemove(const std::string& name) {
  if (name == "pschedd.sock" || name == "start.lock" || name == "pschedd.log") return true;
  return name.starts_with("srun-level-") && (name.ends_with(".out") || name.ends_with(".err"));
}

}  // namespace

Result<void> RemoveRunDir(const std::string& dir) {
  const std::string lock_path = dir + "/start.lock";
  int lock = open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) != 0) {
    close(lock);
    return {};  // a launcher is starting daemons here
  }
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (OursToRemove(e->d_name)) names.emplace_back(e->d_name);
    closedir(d);
  } else if (errno != ENOENT) {
    Error e = Error::FromErrno("opendir", "removing run directory '" + dir + "'");
    if (lock >= 0) close(lock);
    return Fail(e);
  }
  for (const std::string& name : names) unlink((dir + "/" + name).c_str());
  if (lock >= 0) close(lock);
  if (rmdir(dir.c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
    return Fail(Error::FromErrno("rmdir", "removing run directory '" + dir + "'"));
  return {};
}

}  // namespace psched::daemon
