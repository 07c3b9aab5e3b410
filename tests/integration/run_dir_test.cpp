// pschedd's run directory goes with a clean end of the daemon: what psched put there
// (socket, start lock, log) is removed, and the directory with it unless someone else's
// file is left in it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

TEST(RunDir, EmbeddedDaemonRemovesItsRunDirectoryOnShutdown) {
  TempDir xdg("psched-rundir");
  const std::vector<std::string> env = {"XDG_RUNTIME_DIR=" + xdg.path()};
  ASSERT_EQ(RunCmd({Bin("psched-exec"), "true"}, env).code, 0);
  const std::string rundir = xdg / "psched";
  ASSERT_TRUE(std::filesystem::exists(rundir + "/pschedd.sock"));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "shutdown"}, env).code, 0);
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(rundir); }, 30))
      << "left behind in " << rundir;
}

TEST(RunDir, FilesPschedDidNotMakeStay) {
  TempDir xdg("psched-rundir");
  const std::vector<std::string> env = {"XDG_RUNTIME_DIR=" + xdg.path()};
  ASSERT_EQ(RunCmd({Bin("psched-exec"), "true"}, env).code, 0);
  const std::string rundir = xdg / "psched";
  std::ofstream(rundir + "/notes.txt") << "mine";
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "shutdown"}, env).code, 0);
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(rundir + "/pschedd.sock"); }, 30));
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(rundir + "/start.lock"); }, 30));
  EXPECT_TRUE(std::filesystem::exists(rundir + "/notes.txt"));
}

}  // namespace
}  // namespace psched::testing
