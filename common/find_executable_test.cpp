#include "common/find_executable.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace psched {
namespace {

class FindExecutableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/psched-find-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directories(dir_ + "/bin");
    std::filesystem::create_directories(dir_ + "/other");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void MakeFile(const std::string& rel, mode_t mode) {
    std::ofstream(dir_ + "/" + rel) << "#!/bin/sh\n";
    chmod((dir_ + "/" + rel).c_str(), mode);
  }
  std::string dir_;
};

TEST_F(FindExecutableTest, SearchesTheGivenPathInOrder) {
  MakeFile("bin/prog", 0755);
  MakeFile("other/prog", 0755);
  EXPECT_EQ(FindExecutable("prog", dir_ + "/other:" + dir_ + "/bin", ""), dir_ + "/other/prog");
  EXPECT_EQ(FindExecutable("prog", "/nonexistent:" + dir_ + "/bin", ""), dir_ + "/bin/prog");
  // Not this process's PATH: a program only there is not found on another one.
  EXPECT_EQ(FindExecutable("sh", dir_ + "/bin", ""), std::nullopt);
  EXPECT_EQ(FindExecutable("sh", "/bin:/usr/bin", "").value_or("").ends_with("/sh"), true);
}

TEST_F(FindExecutableTest, SkipsWhatIsNotAnExecutableFile) {
  MakeFile("bin/prog", 0644);
  MakeFile("other/prog", 0755);
  std::filesystem::create_directories(dir_ + "/bin/dir");
  EXPECT_EQ(FindExecutable("prog", dir_ + "/bin:" + dir_ + "/other", ""), dir_ + "/other/prog");
  EXPECT_EQ(FindExecutable("dir", dir_ + "/bin", ""), std::nullopt);
  EXPECT_EQ(FindExecutable("", dir_ + "/bin", ""), std::nullopt);
}

TEST_F(FindExecutableTest, RelativeEntriesAndPathsAreTakenFromTheWorkingDirectory) {
  MakeFile("bin/prog", 0755);
  // "bin" and the empty entry (".") are relative to cwd; the result stays relative.
  EXPECT_EQ(FindExecutable("prog", "/nonexistent:bin", dir_), "bin/prog");
  EXPECT_EQ(FindExecutable("prog", ":/usr/bin", dir_ + "/bin"), "./prog");
  EXPECT_EQ(FindExecutable("./bin/prog", "", dir_), "./bin/prog");
  EXPECT_EQ(FindExecutable("./prog", "", dir_), std::nullopt);
  EXPECT_EQ(FindExecutable(dir_ + "/bin/prog", "", "/"), dir_ + "/bin/prog");
}

TEST(SearchPathOf, TakesPathFromTheEnvironmentOrExecvpsDefault) {
  EXPECT_EQ(SearchPathOf({"A=1", "PATH=/x:/y", "PATHX=no"}), "/x:/y");
  EXPECT_EQ(SearchPathOf({"MYPATH=/z"}), "/bin:/usr/bin");
}

}  // namespace
}  // namespace psched
