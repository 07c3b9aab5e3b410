#include "common/closed_stdio.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace psched {

Result<void> OpenNullOntoClosedStdio() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    // The lowest free descriptor is `fd` itself: those below it are open by now.
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0) {
      return Fail(
          Error::FromErrno("open", "/dev/null for the closed descriptor " + std::to_string(fd)));
    }
    if (null_fd != fd) {
      dup2(null_fd, fd);
      close(null_fd);
    }
  }
  return {};
}

}  // namespace psched
