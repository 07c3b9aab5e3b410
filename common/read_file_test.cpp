#include "common/read_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>

namespace psched {
namespace {

class ReadWholeFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(mkdtemp(dir_), nullptr); }
  void TearDown() override {
    unlink(File().c_str());
    rmdir(dir_);
  }
  std::string File() const { return std::string(dir_) + "/f"; }
  char dir_[32] = "/tmp/psched-read-XXXXXX";
};

TEST_F(ReadWholeFileTest, EveryByteIncludingNulsAndLargerThanOneRead) {
  std::string bytes(200000, 'x');
  bytes[7] = '\0';
  bytes.back() = '\n';
  std::ofstream(File(), std::ios::binary) << bytes;
  auto text = ReadWholeFile(File(), "reading f");
  ASSERT_TRUE(text) << text.error().ToString();
  EXPECT_EQ(*text, bytes);
}

TEST_F(ReadWholeFileTest, EmptyFileIsEmptyNotAnError) {
  std::ofstream(File()).close();
  auto text = ReadWholeFile(File(), "reading f");
  ASSERT_TRUE(text) << text.error().ToString();
  EXPECT_EQ(*text, "");
}

TEST_F(ReadWholeFileTest, MissingFileAndDirectorySayWhatAndWhichCall) {
  auto missing = ReadWholeFile(File(), "cannot read config file f");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().ToString(),
            "cannot read config file f: open: No such file or directory");
  auto directory = ReadWholeFile(dir_, "reading the dir");
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().ToString(), "reading the dir: read: Is a directory");
}

TEST(ReadToEnd, APipeUntilItsWriterClosesAndTheDescriptorStaysOpen) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "port 7\nready\n", 13), 13);
  close(fds[1]);
  auto text = ReadToEnd(fds[0], "reading the pipe");
  ASSERT_TRUE(text) << text.error().ToString();
  EXPECT_EQ(*text, "port 7\nready\n");
  EXPECT_GE(fcntl(fds[0], F_GETFD), 0);
  close(fds[0]);
  auto closed = ReadToEnd(fds[0], "reading a closed descriptor");
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().ToString(), "reading a closed descriptor: read: Bad file descriptor");
}

}  // namespace
}  // namespace psched
