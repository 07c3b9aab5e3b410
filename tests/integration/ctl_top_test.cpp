// psched-ctl top in a real pseudo-terminal: tmux runs it, capture-pane reads the screen
// as a user sees it, send-keys types. The view follows the daemon, asks before it acts,
// redraws at a new size, and without a terminal prints one plain-text view.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

class CtlTopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RunCmd({"tmux", "-V"}).code != 0) GTEST_SKIP() << "no tmux (scripts/install-deps.sh)";
  }
  void TearDown() override { Tmux({"kill-server"}); }

  // tmux on a socket of this test's own: its server ends with the test.
  RunResult Tmux(std::vector<std::string> args) const {
    args.insert(args.begin(), {"tmux", "-S", tmux_dir_ / "socket"});
    return RunCmd(args, {"TERM=xterm"});
  }
  std::string Screen() const { return Tmux({"capture-pane", "-p", "-t", "top"}).out; }
  bool ScreenShows(const std::string& text) const {
    return Eventually([&] { return Screen().find(text) != std::string::npos; }, 20);
  }
  std::string SessionState(int id) const {
    auto r = RunCmd({Bin("psched-ctl"), "status", "--json"}, daemon_.Env());
    if (r.code != 0) return "";
    for (const auto& s : nlohmann::json::parse(r.out).value("sessions", nlohmann::json::array()))
      if (s.value("id", 0) == id) return s.value("state", "");
    return "";
  }

  EmbeddedDaemon daemon_;
  TempDir tmux_dir_{"psched-tmux"};
};

TEST_F(CtlTopTest, ShowsTheSessionsAsksBeforeSuspendingFollowsResizesAndQuits) {
  Proc session({Bin("psched-exec"), "-n", "2", "sleep", "100"}, daemon_.Env());
  ASSERT_TRUE(Eventually([&] { return SessionState(1) == "running"; })) << session.err();
  ASSERT_EQ(Tmux({"new-session", "-d", "-s", "top", "-x", "120", "-y", "30", "env",
                  daemon_.Env()[0], Bin("psched-ctl"), "top"})
                .code,
            0);
  ASSERT_TRUE(ScreenShows("sleep 100")) << Screen();
  std::string screen = Screen();
  EXPECT_NE(screen.find("psched-ctl top: nodes: 1"), std::string::npos) << screen;
  EXPECT_NE(screen.find("> 1 "), std::string::npos) << "session 1 selected:\n" << screen;
  EXPECT_NE(screen.find("queue: 0 waiting"), std::string::npos) << screen;
  EXPECT_NE(screen.find("keys: q quit"), std::string::npos) << screen;

  Tmux({"send-keys", "-t", "top", "s"});
  ASSERT_TRUE(ScreenShows("suspend session 1 (sleep 100)? y/n")) << Screen();
  EXPECT_EQ(SessionState(1), "running") << "asked, not done yet";
  Tmux({"send-keys", "-t", "top", "y"});
  ASSERT_TRUE(ScreenShows("session 1 suspended")) << Screen();
  EXPECT_EQ(SessionState(1), "suspended");
  ASSERT_TRUE(ScreenShows("suspended by user")) << "the next refresh shows it:\n" << Screen();
  Tmux({"send-keys", "-t", "top", "r"});
  ASSERT_TRUE(ScreenShows("resume session 1 (sleep 100)? y/n")) << Screen();
  Tmux({"send-keys", "-t", "top", "n"});
  ASSERT_TRUE(ScreenShows("nothing done")) << Screen();
  EXPECT_EQ(SessionState(1), "suspended");

  ASSERT_EQ(Tmux({"resize-window", "-t", "top", "-x", "50", "-y", "20"}).code, 0);
  EXPECT_TRUE(Eventually([&] {
    std::istringstream lines(Screen());
    size_t widest = 0;
    for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
    return widest <= 50 && Screen().find("psched-ctl top: nodes: 1") != std::string::npos;
  })) << Screen();

  Tmux({"send-keys", "-t", "top", "q"});
  EXPECT_TRUE(Eventually([&] {
    return Tmux({"has-session", "-t", "top"}).code != 0;
  })) << "top did not quit on q:\n"
      << Screen();
  RunCmd({Bin("psched-ctl"), "kill", "1"}, daemon_.Env());
}

TEST_F(CtlTopTest, WithoutATerminalPrintsOneView) {
  Proc session({Bin("psched-exec"), "-n", "1", "sleep", "100"}, daemon_.Env());
  ASSERT_TRUE(Eventually([&] { return SessionState(1) == "running"; })) << session.err();
  auto r = RunCmd({Bin("psched-ctl"), "top"}, daemon_.Env());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("psched-ctl top: nodes: 1", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("sleep 100"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no terminal codes in plain text";
  RunCmd({Bin("psched-ctl"), "kill", "1"}, daemon_.Env());
}

}  // namespace
}  // namespace psched::testing
