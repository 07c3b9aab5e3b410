#include "common/read_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace psched {

// POSIX rather than ifstream: a read error (a directory's EISDIR, say) must not look
// like an empty file.
Result<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(Error::FromErrno("open", what));
  auto text = ReadToEnd(fd, what);
  close(fd);
  return text;
}

Result<std::string> ReadToEnd(int fd, const std::string& what) {
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(Error::FromErrno("read", what));
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace psched
