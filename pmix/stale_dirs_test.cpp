#include "pmix/stale_dirs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace psched::pmix {
namespace {

namespace fs = std::filesystem;

// A pid that existed and is gone now (a reaped child).
pid_t DeadPid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

class StaleDirsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/psched-stale-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    parent_ = tmpl;
  }
  void TearDown() override { fs::remove_all(parent_); }
  std::string Dir(const std::string& name) {
    std::string d = parent_ + "/" + name;
    fs::create_directories(d + "/pmix");
    return d;
  }
  void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  std::string parent_;
};

TEST_F(StaleDirsTest, RemovesOnlyDirectoriesWhoseOwnerIsDead) {
  std::string live = Dir("psched-pmix.0.live");
  ASSERT_TRUE(WriteOwner(live).has_value());
  std::string dead = Dir("psched-pmix.1.dead");
  Write(dead + "/owner", std::to_string(DeadPid()) + " 12345\n");
  // Our pid with another start time: the pid was reused, the owner is gone.
  std::string reused = Dir("psched-pmix.2.reused");
  Write(reused + "/owner", std::to_string(getpid()) + " 1\n");
  std::string legacy_dead = Dir("psched-pmix.3.legacydead");
  Write(legacy_dead + "/pmix/pmix.node0.tool." + std::to_string(DeadPid()), "uri");
  std::string legacy_live = Dir("psched-pmix.4.legacylive");
  Write(legacy_live + "/pmix/pmix.node0.tool." + std::to_string(getpid()), "uri");
  std::string unknown = Dir("psched-pmix.5.unknown");  // e.g. just made, owner not written yet
  std::string own = Dir("psched-pmix.6.own");
  Write(own + "/owner", std::to_string(DeadPid()) + " 1\n");
  std::string other = Dir("other-prefix.7");
  Write(other + "/owner", std::to_string(DeadPid()) + " 1\n");
  Write(parent_ + "/psched-pmix.8.file", "not a directory");
  fs::create_directory_symlink(dead, parent_ + "/psched-pmix.9.link");

  SweepReport report = RemoveStaleDirs(parent_, kDaemonDirPrefix, own);
  EXPECT_EQ(report.removed.size(), 3u);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(reused));
  EXPECT_FALSE(fs::exists(legacy_dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(legacy_live));
  EXPECT_TRUE(fs::exists(unknown));
  EXPECT_TRUE(fs::exists(own));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(parent_ + "/psched-pmix.8.file"));
  EXPECT_TRUE(fs::is_symlink(parent_ + "/psched-pmix.9.link"));
  EXPECT_EQ(report.kept.size(), 3u);  // live, legacy_live, unknown
}

// TMPDIR on a file system that several nodes share: another host's directory is never
// judged by this host's pids, even when its owner's pid does not exist here.
TEST_F(StaleDirsTest, DirectoryOfAnotherHostIsKept) {
  std::string elsewhere = Dir("psched-pmix.0.elsewhere");
  Write(elsewhere + "/owner", std::to_string(DeadPid()) + " 1 another-host-psched-test\n");
  std::string here = Dir("psched-pmix.1.here");
  ASSERT_TRUE(WriteOwner(here).has_value());
  std::ifstream owner(here + "/owner");
  long pid = 0;
  unsigned long long start = 0;
  std::string host;
  owner >> pid >> start >> host;
  EXPECT_EQ(pid, getpid());
  EXPECT_FALSE(host.empty()) << "the owner file names its host";
  Write(here + "/owner", std::to_string(DeadPid()) + " 1 " + host + "\n");  // dead, here
  SweepReport report = RemoveStaleDirs(parent_, kDaemonDirPrefix, "");
  EXPECT_TRUE(fs::exists(elsewhere));
  EXPECT_FALSE(fs::exists(here));
  EXPECT_EQ(report.kept, std::vector<std::string>{elsewhere});
}

TEST_F(StaleDirsTest, MissingParentIsNotAnError) {
  SweepReport report = RemoveStaleDirs(parent_ + "/nope", kDaemonDirPrefix, "");
  EXPECT_TRUE(report.removed.empty());
  EXPECT_TRUE(report.kept.empty());
}

TEST_F(StaleDirsTest, WriteOwnerIntoMissingDirectoryFails) {
  auto r = WriteOwner(parent_ + "/nope");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("owner"), std::string::npos);
}

TEST(DaemonDirTemplate, UsesTmpdirWhenAbsoluteAndShortEnough) {
  EXPECT_EQ(DaemonDirTemplate("/scratch/job42", 3), "/scratch/job42/psched-pmix.3.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate("/scratch/job42//", 0), "/scratch/job42/psched-pmix.0.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate("/", 1), "/psched-pmix.1.XXXXXX");
}

TEST(DaemonDirTemplate, FallsBackToTmpForMissingRelativeOrLongTmpdir) {
  EXPECT_EQ(DaemonDirTemplate(nullptr, 2), "/tmp/psched-pmix.2.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate("", 2), "/tmp/psched-pmix.2.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate("scratch", 2), "/tmp/psched-pmix.2.XXXXXX");
  const std::string longest(kMaxDaemonDirLength - std::string("/psched-pmix.2.XXXXXX").size(), 'd');
  const std::string fits = "/" + longest.substr(1);
  EXPECT_EQ(DaemonDirTemplate(fits.c_str(), 2), fits + "/psched-pmix.2.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate((fits + "d").c_str(), 2), "/tmp/psched-pmix.2.XXXXXX");
  EXPECT_EQ(DaemonDirTemplate(fits.c_str(), 2).size(), kMaxDaemonDirLength);
}

}  // namespace
}  // namespace psched::pmix
