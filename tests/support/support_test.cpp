// The support library itself: real child processes, real /proc, real signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {
namespace {

TEST(TestSupport, RunShellCapturesBothStreamsAndTheExitCode) {
  auto r = RunShell("echo out; echo err >&2; exit 3");
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(TestSupport, RunCmdFeedsStdinAndOverridesEnvironment) {
  auto r = RunCmd({"sh", "-c", "cat; echo \"$PSCHED_TEST_VAR\""}, {"PSCHED_TEST_VAR=x"}, "in\n");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "in\nx\n");
}

TEST(TestSupport, MissingProgramExits127) {
  EXPECT_EQ(RunCmd({"/nonexistent/program"}).code, 127);
}

TEST(TestSupport, SignalledChildReports128PlusSignal) {
  Proc p({"sleep", "60"});
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 128 + SIGTERM);
}

TEST(TestSupport, DeadlinePassedReturnsMinusOne) {
  Proc p({"sleep", "60"});
  EXPECT_EQ(p.Wait(0.2), -1);
}  // the destructor kills and reaps it

TEST(TestSupport, GrandchildHoldingThePipesDoesNotHangWait) {
  // The shell exits at once; its background sleep keeps stdout open for a minute.
  Proc p({"sh", "-c", "sleep 60 & echo $!"});
  EXPECT_EQ(p.Wait(1), 0);
  pid_t sleeper = std::atoi(p.out().c_str());
  ASSERT_GT(sleeper, 0) << p.out();
  kill(sleeper, SIGKILL);
}

TEST(TestSupport, StoppedChildIsInStateT) {
  Proc p({"sh", "-c", "echo ready; exec sleep 60"});
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s == "ready\n"; }));
  p.Signal(SIGSTOP);
  EXPECT_TRUE(Eventually([&] { return ProcessState(p.pid()) == 'T'; }));
  EXPECT_FALSE(ProcessGone(p.pid()));
  p.Signal(SIGCONT);
  p.Signal(SIGKILL);
  p.Wait();
  EXPECT_TRUE(ProcessGone(p.pid()));
}

TEST(TestSupport, CatchesSignalTellsAHandlerFromTheDefaultAndIgnored) {
  Proc p(
      {"sh", "-c", "trap 'exit 0' USR2; trap '' USR1; echo ready; while :; do sleep 0.05; done"});
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s.find("ready") != s.npos; }));
  EXPECT_TRUE(CatchesSignal(p.pid(), SIGUSR2));
  EXPECT_FALSE(CatchesSignal(p.pid(), SIGUSR1));  // ignored, not caught
  EXPECT_FALSE(CatchesSignal(p.pid(), SIGTSTP));
  p.Signal(SIGUSR2);
  EXPECT_EQ(p.Wait(), 0);
  EXPECT_FALSE(CatchesSignal(p.pid(), SIGUSR2));  // gone
}

TEST(TestSupport, HeldStoppedIsStateTOrAParentInDWhoseChildrenAreStopped) {
  Proc p({"sh", "-c", "echo ready; while :; do sleep 0.05; done"});
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s.find("ready") != s.npos; }));
  EXPECT_FALSE(HeldStopped(p.pid()));  // running or sleeping
  p.Signal(SIGSTOP);
  EXPECT_TRUE(Eventually([&] { return HeldStopped(p.pid()); }));
  p.Signal(SIGCONT);
  EXPECT_TRUE(Eventually([&] { return !HeldStopped(p.pid()); }));
  p.Signal(SIGKILL);
  p.Wait();
  EXPECT_FALSE(HeldStopped(p.pid()));  // gone
}

TEST(TestSupport, ProcReadersSeeOurOwnProcess) {
  EXPECT_FALSE(CpusAllowed(getpid()).empty());
  auto threads = Threads(getpid());
  ASSERT_FALSE(threads.empty());
  EXPECT_EQ(ThreadCpusAllowed(getpid(), threads.front()), CpusAllowed(getpid()));
  Proc child({"sleep", "60"});
  EXPECT_TRUE(Eventually([&] {
    auto kids = ChildrenOf(getpid());
    return std::find(kids.begin(), kids.end(), child.pid()) != kids.end();
  }));
  EXPECT_TRUE(Eventually([&] { return !FindProcesses({"sleep", "60"}).empty(); }));
}

// A fake rank (its environment as a daemon gives it) with a child of the same name:
// the reader finds the rank, not the child, and nothing outside the allocation.
TEST(TestSupport, AllocationRanksFindsTheTopmostRankOfTheAllocation) {
  TempDir alloc("psched-fake-alloc");
  Proc rank(
      {"sh", "-c", "sleep 1000 & exec sleep 1000"},
      {"PSCHED_ALLOCATION=" + alloc.path(), "PSCHED_SESSION=3", "PSCHED_RANK=1", "PSCHED_NODE=2"});
  Proc stranger({"sleep", "1000"}, {"PSCHED_SESSION=3", "PSCHED_RANK=0", "PSCHED_NODE=0"});
  auto comm = [](pid_t pid) { return ReadFile("/proc/" + std::to_string(pid) + "/comm"); };
  std::vector<pid_t> kids;
  bool both_sleep = Eventually([&] {
    kids = ChildrenOf(rank.pid());
    return kids.size() == 1u && comm(kids[0]) == "sleep\n" && comm(rank.pid()) == "sleep\n";
  });
  auto ranks = AllocationRanks(alloc.path(), "sleep");
  for (pid_t kid : kids) kill(kid, SIGKILL);  // orphaned otherwise when the rank is killed
  // Seen failing once under ctest -j2 and not since: say what was found if it does again.
  std::string found;
  for (const RankProc& r : ranks) {
    found += " pid " + std::to_string(r.pid) + " (session " + std::to_string(r.session) +
             ", rank " + std::to_string(r.rank) + ")";
  }
  ASSERT_TRUE(both_sleep) << "rank " << rank.pid() << " comm " << comm(rank.pid()) << ", "
                          << kids.size() << " children";
  ASSERT_EQ(ranks.size(), 1u) << "rank " << rank.pid() << ", found:" << found;
  EXPECT_EQ(ranks[0].pid, rank.pid());
  EXPECT_EQ(ranks[0].session, 3);
  EXPECT_EQ(ranks[0].rank, 1);
  EXPECT_EQ(ranks[0].node, 2);
  EXPECT_EQ(EnvInt(ranks[0].env, "PSCHED_NODE"), 2);
  EXPECT_EQ(EnvInt(ranks[0].env, "PSCHED_NO_SUCH_VARIABLE"), -1);
  EXPECT_TRUE(AllocationRanks(alloc.path(), "sh").empty());
}

TEST(TestSupport, PinnedChildShowsItsCpusAllowed) {
  Proc p({"taskset", "-c", "0", "sh", "-c", "echo ready; exec sleep 60"});
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s == "ready\n"; }));
  EXPECT_EQ(CpusAllowed(p.pid()), "0");
}

TEST(TestSupport, TempDirIsRemovedWithItsContents) {
  std::string path;
  {
    TempDir dir("psched-support-test");
    path = dir.path();
    std::ofstream(dir / "file") << "x";
    EXPECT_EQ(ReadFile(dir / "file"), "x");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(TestSupport, GoFileReleasesAWaitingShell) {
  GoFile go;
  Proc p({"sh", "-c", go.WaitCmd() + "; echo went"});
  EXPECT_EQ(ProcessGone(p.pid()), false);
  go.Go();
  EXPECT_EQ(p.Wait(), 0);
  EXPECT_EQ(p.out(), "went\n");
}

TEST(TestSupport, TextHelpersCountLinesAndOccurrences) {
  EXPECT_EQ(Lines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(CountLines("ab ab\nab\nc\n", "ab"), 2);
  EXPECT_EQ(CountOccurrences("ab ab\nab\nc\n", "ab"), 3);
  EXPECT_EQ(CountOccurrences("aaa", ""), 0);
}

}  // namespace
}  // namespace psched::testing
