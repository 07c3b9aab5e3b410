#include "common/unix_socket.hpp"

#include <sys/socket.h>
#include <unistd.h>

namespace psched {

Result<sockaddr_un> UnixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return Fail(ErrorCode::kInvalidArgument, "socket path '" + path + "' is too long");
  path.copy(addr.sun_path, path.size());
  return addr;
}

Result<int> ConnectUnix(const std::string& path) {
  auto addr = UnixAddress(path);
  if (!addr) return Fail(addr.error());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Fail(Error::FromErrno("socket", "connecting to '" + path + "'"));
  if (connect(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0) {
    Error e = Error::FromErrno("connect", "connecting to the psched daemon at '" + path + "'");
    close(fd);
    return Fail(e);
  }
  return fd;
}

}  // namespace psched
