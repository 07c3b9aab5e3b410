#include "common/raw_pty.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace psched {
namespace {

// What the writer put in comes out unchanged, then EIO once it closed its end.
TEST(RawPty, ReadsBackExactlyWhatWasWrittenThenEio) {
  auto pty = OpenRawPty();
  ASSERT_TRUE(pty) << pty.error().ToString();
  EXPECT_EQ(isatty(pty->slave), 1);
  const std::string bytes("line\nbin\x00\x01\x03\x1a\x7f\xff\r\x1b[0m tail", 24);
  ASSERT_EQ(write(pty->slave, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(pty->slave);
  std::string got;
  char buf[256];
  ssize_t n;
  while ((n = read(pty->master, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(n, -1);
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(got, bytes);  // no "\r\n" for "\n", nothing dropped or echoed
  close(pty->master);
}

}  // namespace
}  // namespace psched
