#include "daemon/run_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace psched::daemon {

Result<void> EnsurePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Fail(Error::FromErrno("mkdir", "creating run directory '" + dir + "'"));
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0)
    return Fail(Error::FromErrno("lstat", "run directory '" + dir + "'"));
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    return Fail(
        ErrorCode::kPermissionDenied,
        "run directory '" + dir + "' is not a directory owned by uid " + std::to_string(geteuid()));
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0)
    return Fail(Error::FromErrno("chmod", "making run directory '" + dir + "' private"));
  return {};
}

}  // namespace psched::daemon
