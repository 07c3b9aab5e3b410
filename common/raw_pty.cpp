#include "common/raw_pty.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include <array>

namespace psched {

Result<RawPty> OpenRawPty() {
  RawPty pty;
  pty.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (pty.master < 0) return Fail(Error::FromErrno("posix_openpt", "a pseudo-terminal"));
  auto fail = [&pty](const char* call) {
    Error e = Error::FromErrno(call, "a pseudo-terminal");
    close(pty.master);
    if (pty.slave >= 0) close(pty.slave);
    return Fail(std::move(e));
  };
  std::array<char, 128> name{};
  if (grantpt(pty.master) != 0) return fail("grantpt");
  if (unlockpt(pty.master) != 0) return fail("unlockpt");
  if (ptsname_r(pty.master, name.data(), name.size()) != 0) return fail("ptsname_r");
  pty.slave = open(name.data(), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (pty.slave < 0) return fail("open");
  termios t{};
  if (tcgetattr(pty.slave, &t) != 0) return fail("tcgetattr");
  cfmakeraw(&t);
  if (tcsetattr(pty.slave, TCSANOW, &t) != 0) return fail("tcsetattr");
  return pty;
}

}  // namespace psched
