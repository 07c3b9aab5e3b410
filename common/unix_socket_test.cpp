#include "common/unix_socket.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

namespace psched {
namespace {

TEST(UnixSocket, ConnectsToAListenerAndNamesThePathWhenNoneListens) {
  char dir[] = "/tmp/psched-unix-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/s";
  auto missing = ConnectUnix(path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("'" + path + "': connect: No such file"),
            std::string::npos)
      << missing.error().ToString();

  auto addr = UnixAddress(path);
  ASSERT_TRUE(addr);
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(bind(listener, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  auto fd = ConnectUnix(path);
  ASSERT_TRUE(fd) << fd.error().ToString();
  int accepted = accept(listener, nullptr, nullptr);
  EXPECT_GE(accepted, 0);
  ASSERT_EQ(write(*fd, "x", 1), 1);
  char c = 0;
  EXPECT_EQ(read(accepted, &c, 1), 1);
  EXPECT_EQ(c, 'x');
  close(accepted);
  close(*fd);
  close(listener);
  unlink(path.c_str());
  rmdir(dir);
}

TEST(UnixSocket, PathTooLongForSunPathIsRefused) {
  const std::string path = "/tmp/" + std::string(200, 'p');
  auto fd = ConnectUnix(path);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(fd.error().message().find("is too long"), std::string::npos);
}

}  // namespace
}  // namespace psched
