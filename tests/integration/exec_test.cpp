// psched-exec on this machine alone (the embedded daemon): pinning, environment,
// output, stdin, exit codes, bad input, psched-ctl.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon/node/short_slice.hpp"
#include "tests/support/allocation.hpp"
#include "tests/support/cpu_slice.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {
namespace {

class ExecTest : public ::testing::Test {
 protected:
  RunResult Exec(std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin(), Bin("psched-exec"));
    return RunCmd(args, daemon_.Env(), in);
  }
  EmbeddedDaemon daemon_;
};

TEST_F(ExecTest, RanksGetEnvironmentAndTheirOwnPu) {
  // Each rank reports its pid; the test reads its pinning from /proc while it waits.
  GoFile go;
  Proc p({Bin("psched-exec"), "-n", "2", "--label", "-x", "EXTRA=42", "sh", "-c",
          "echo pid $$ rank=$PSCHED_RANK size=$PSCHED_SIZE local=$PSCHED_LOCAL_RANK "
          "node=$PSCHED_NODE session=$PSCHED_SESSION omp=$OMP_NUM_THREADS extra=$EXTRA; " +
              go.WaitCmd()},
         daemon_.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 2; }));
  std::set<std::string> cpus;
  for (const auto& line : Lines(p.out())) {
    pid_t pid = std::stoi(line.substr(line.find("pid ") + 4));
    std::string c = CpusAllowed(pid);
    EXPECT_EQ(c.find_first_of(",-"), std::string::npos) << "one PU per rank, got " << c;
    cpus.insert(c);
  }
  EXPECT_EQ(cpus.size(), 2u) << "ranks share a PU";
  go.Go();
  ASSERT_EQ(p.Wait(), 0) << p.err();
  EXPECT_EQ(CountLines(p.out(), "size=2 "), 2);
  EXPECT_EQ(CountLines(p.out(), "[0] pid"), 1);
  EXPECT_EQ(CountLines(p.out(), "[1] pid"), 1);
  EXPECT_EQ(CountLines(p.out(), "rank=1 size=2 local=1 node=0"), 1);
  EXPECT_EQ(CountLines(p.out(), "omp=1 extra=42"), 2);
}

TEST_F(ExecTest, ThreadsPerRankPinsThatManyPusAndSetsOmp) {
  auto r = Exec({"-n", "1", "-c", "2", "sh", "-c",
                 "echo $OMP_NUM_THREADS; grep Cpus_allowed_list /proc/self/status"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out)[0], "2");
  EXPECT_NE(r.out.find("0-1"), std::string::npos) << r.out;
}

TEST_F(ExecTest, StdinGoesToRankZeroOnly) {
  auto r = Exec({"-n", "2", "--label", "cat"}, "line one\nline two\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[0] line one\n[0] line two\n");
}

// --label: a rank's last line without a newline is still a line of its own; the next
// rank's label used to follow it on the same line ("[0] tail0[1] tail1").
TEST_F(ExecTest, LabelEndsAnUnfinishedLastLine) {
  auto r = Exec({"-n", "2", "--label", "sh", "-c", "printf tail$PSCHED_RANK"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = Lines(r.out);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()),
            (std::set<std::string>{"[0] tail0", "[1] tail1"}))
      << r.out;
  EXPECT_EQ(r.out.back(), '\n');
}

// The launcher sends stdin (and its end) as soon as the session has started, which is
// before the node has forked rank 0 (PMIx registers the session first): the node must
// keep it for rank 0, or cat never sees the input or its end and hangs.
TEST_F(ExecTest, StdinSentBeforeRankZeroStartsIsKeptForIt) {
  auto r = Exec({"-n", "1", "cat"}, "x\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "x\n");
  auto empty = Exec({"-n", "1", "cat"}, "");
  EXPECT_EQ(empty.code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
}

// With stdin closed (`<&-`) the daemon socket became psched-exec's descriptor 0, read as
// its stdin: nothing was printed and nothing ended. Closed stdio stands for /dev/null, as
// under srun and mpiexec.
TEST_F(ExecTest, ClosedStdioIsDevNull) {
  const std::string exec = Bin("psched-exec");
  auto r = RunShell(exec + " sh -c 'read x || echo no input; echo there' <&-", daemon_.Env(), 30);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "no input\nthere\n");
  r = RunShell(exec + " sh -c 'read x || echo no input >&2' <&- >&-", daemon_.Env(), 30);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "no input\n");
}

// Stdin beyond what the node buffers (16 MiB) was dropped without a word and the session
// exited 0: the launcher read its stdin as fast as it came. It now keeps no more than a
// window in flight toward rank 0 and reads on as rank 0 takes it, from a file as from a
// pipe. Rank 0 reads only once the launcher says its reading waits (-v) or, without flow
// control, once the daemon has dropped input; then all of it must arrive.
TEST_F(ExecTest, AllOfAStdinLargerThanAnyBufferReachesARankThatReadsLate) {
  ASSERT_EQ(Exec({"true"}).code, 0);  // the daemon runs: its log is where a drop is said
  TempDir dir;
  const std::string input = dir / "input";
  constexpr size_t kSize = size_t{20} << 20;
  std::ofstream(input) << std::string(kSize, 'x');
  const std::string log = daemon_.RunDir() + "/pschedd.log";
  for (const char* feed : {"file", "pipe"}) {
    GoFile go;
    const int drops_before = CountOccurrences(ReadFile(log), "dropping input");
    const std::string exec = Bin("psched-exec") + " -v sh -c '" + go.WaitCmd() + "; wc -c'";
    Proc p({"sh", "-c",
            std::string(feed) == "file" ? exec + " < " + input : "cat " + input + " | " + exec},
           daemon_.Env());
    ASSERT_TRUE(p.WaitStderr([&](const std::string& err) {
      return err.find("reading stdin waits") != std::string::npos ||
             CountOccurrences(ReadFile(log), "dropping input") > drops_before;
    })) << feed
        << ": " << p.err();
    go.Go();
    EXPECT_EQ(p.Wait(), 0) << feed << ": " << p.err();
    EXPECT_EQ(p.out(), std::to_string(kSize) + "\n") << feed;
  }
}

// Rank 0 closed its stdin: the rest would be dropped, so the launcher stops reading and,
// as in a pipeline, whoever writes to it learns it (yes ends) while the session goes on.
TEST_F(ExecTest, RankZeroClosingItsStdinEndsTheWriterUpstream) {
  GoFile go;
  Proc p({"sh", "-c",
          "{ yes; echo \"yes ended\" >&2; } | " + Bin("psched-exec") +
              " sh -c 'exec <&-; echo closed; " + go.WaitCmd() + "; echo done'"},
         daemon_.Env());
  EXPECT_TRUE(p.WaitStderr([](const std::string& s) { return s.find("yes ended") != s.npos; }))
      << p.err();
  go.Go();
  EXPECT_EQ(p.Wait(), 0) << p.err();
  EXPECT_EQ(p.out(), "closed\ndone\n");
}

// `psched-exec ... &` in an interactive shell, stdin the terminal: the launcher read it from
// the background and stopped (SIGTTIN, "Stopped (tty input)") as soon as the user typed
// anything. It reads only once it is in the terminal's foreground (fg). What is typed
// while it is in the background is not taken: SIGUSR1 through the launcher to rank 1 and
// back as output shows the launcher served on after the typing, then fg hands the line to
// rank 0.
TEST_F(ExecTest, ATerminalIsReadOnlyInTheForeground) {
  const std::string ranks =
      "if [ $PSCHED_RANK = 0 ]; then trap '' USR1; read line; echo got $line; "
      "else trap 'echo poked; exit 0' USR1; echo up; while :; do sleep 0.05; done; fi";
  Proc shell({Bin("tty_job"), Bin("psched-exec"), "-n", "2", "sh", "-c", ranks}, daemon_.Env(),
             /*keep_stdin_open=*/true);
  ASSERT_TRUE(shell.WaitStdout([](const std::string& s) { return s.find("up\n") != s.npos; }))
      << shell.err();
  const pid_t launcher = std::stoi(shell.out().substr(shell.out().find("job ") + 4));
  shell.WriteStdin("type hello\n");
  ASSERT_TRUE(shell.WaitStdout([](const std::string& s) { return s.find("typed") != s.npos; }));
  kill(launcher, SIGUSR1);
  EXPECT_TRUE(shell.WaitStdout([](const std::string& s) { return s.find("poked") != s.npos; }))
      << "the launcher state is " << ProcessState(launcher) << "; " << shell.err();
  EXPECT_NE(ProcessState(launcher), 'T');
  shell.WriteStdin("fg\n");
  shell.CloseStdin();
  EXPECT_EQ(shell.Wait(), 0) << shell.err();
  EXPECT_NE(shell.out().find("got hello"), std::string::npos) << shell.out();
}

TEST_F(ExecTest, ARankThatDoesNotReadStdinNeverBlocksTheDaemon) {
  Proc hog({Bin("psched-exec"), "sh", "-c", "echo up; exec sleep 300"}, daemon_.Env(), true);
  ASSERT_TRUE(hog.WaitStdout([](const std::string& s) { return s.find("up") != s.npos; }));
  hog.WriteStdin(std::string(1 << 20, 'x'));  // far more than a pipe holds
  auto r = Exec({"echo", "daemon still serving"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "daemon still serving\n");
  hog.Signal(SIGTERM);
  EXPECT_EQ(hog.Wait(), 128 + SIGTERM);
}

// The embedded daemon outlives the launcher that started it: it must not keep that
// launcher's directory busy (a file system that then cannot be unmounted).
TEST_F(ExecTest, EmbeddedDaemonDoesNotKeepItsStartersDirectory) {
  TempDir dir;
  auto r = RunShell("cd " + dir.path() + " && exec " + Bin("psched-exec") + " true", daemon_.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  const pid_t daemon = daemon_.Pid();
  ASSERT_GT(daemon, 0);
  EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(daemon) + "/cwd"), "/");
}

// A launcher whose directory was removed cannot name it: sent empty, its ranks ran in
// the daemon's directory instead, without a word.
TEST_F(ExecTest, ALauncherThatCannotNameItsDirectoryRefusesToRun) {
  ASSERT_EQ(Exec({"true"}).code, 0);  // the daemon runs: this is about the launcher
  TempDir dir;
  const std::string in_removed_dir = "mkdir " + dir / "gone" + " && cd " + dir / "gone" +
                                     " && rmdir ../gone && exec " + Bin("psched-exec");
  auto r = RunShell(in_removed_dir + " pwd", daemon_.Env());
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("the current directory is not accessible"), std::string::npos) << r.err;
  r = RunShell(in_removed_dir + " --chdir /tmp pwd", daemon_.Env());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "/tmp\n");
}

// `psched-exec yes | head -2` never ended, yes burning a CPU: the launcher dropped output
// to the broken pipe and the session ran on. As a pipeline's writer (and Open MPI's
// mpirun), the session now ends and the launcher exits 128+SIGPIPE.
TEST_F(ExecTest, AReaderThatHasGoneEndsTheSession) {
  auto r = RunShell("{ " + Bin("psched-exec") + " yes; echo \"exec $?\" >&2; } | head -n 2",
                    daemon_.Env(), 30);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "y\ny\n");
  EXPECT_NE(r.err.find("exec 141"), std::string::npos) << r.err;
  EXPECT_TRUE(Eventually([&] { return ChildrenOf(daemon_.Pid()).empty(); })) << "yes runs on";
}

// Output that cannot be written for another reason (a full disk) was dropped without a
// word and the launcher exited 0.
TEST_F(ExecTest, OutputThatCannotBeWrittenIsSaidAndFailsTheLauncher) {
  auto r = RunShell(Bin("psched-exec") + " echo hi > /dev/full", daemon_.Env(), 30);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("writing the ranks' stdout: No space left on device"), std::string::npos)
      << r.err;
}

TEST_F(ExecTest, ChdirAndStderr) {
  auto r = Exec({"--chdir", "/tmp", "sh", "-c", "pwd; echo oops >&2"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "/tmp\n");
  EXPECT_NE(r.err.find("oops"), std::string::npos);
}

TEST_F(ExecTest, ExitCodeIsTheFailingRanksAndNamesIt) {
  auto r = Exec({"-n", "2", "sh", "-c", "[ $PSCHED_RANK = 1 ] && exit 7; exec sleep 300"});
  EXPECT_EQ(r.code, 7);
  EXPECT_NE(r.err.find("rank 1 on node 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with status 7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("other ranks were killed"), std::string::npos) << r.err;
}

// When a rank fails the others get SIGTERM, then SIGKILL after the kill wait: a rank
// that traps SIGTERM says its last words (they reach the launcher), one that ignores it
// is killed and named. Without the grace every rank got SIGKILL at once: no last words.
// Rank 1 fails only once the others' traps are set (the marker files).
std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

constexpr const char* kLastWords =
    "case $PSCHED_RANK in "
    "0) trap 'echo last words of 0; exit 0' TERM; touch $D/0; sleep 300 & wait;; "
    "1) until [ -e $D/0 ] && [ -e $D/2 ]; do sleep 0.02; done; exit 7;; "
    "2) trap '' TERM; touch $D/2; exec sleep 300;; "
    "esac";

TEST_F(ExecTest, FailingRankEndsTheOthersWithSigtermThenSigkillAndListsThem) {
  TempDir d;
  auto r = Exec({"-n", "3", "--policy", "overbook", "--kill-wait", "0.5", "-x", "D=" + d.path(),
                 "sh", "-c", kLastWords});
  EXPECT_EQ(r.code, 7);
  EXPECT_EQ(r.out, "last words of 0\n") << r.err;
  EXPECT_NE(r.err.find("psched-exec: session 1: rank 1 on node 0 (" + Hostname() +
                       ") exited with status 7; the other ranks were killed\n"
                       "psched-exec: session 1:   also rank 2 on node 0 (" +
                       Hostname() + ") outlived SIGTERM and was killed after 0.5 s\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(CountOccurrences(r.err, "also rank 0"), 0) << r.err;
}

// The admin's [launch] kill_wait_s is the default grace; 0 is SIGKILL at once.
TEST_F(ExecTest, KillWaitComesFromTheConfig) {
  TempDir d;
  const std::string conf = d / "psched.toml";
  std::ofstream(conf) << "[launch]\nkill_wait_s = 0\n";
  auto env = daemon_.Env();
  env.push_back("PSCHED_CONF=" + conf);
  auto r = RunCmd({Bin("psched-exec"), "-n", "3", "--policy", "overbook", "-x", "D=" + d.path(),
                   "sh", "-c", kLastWords},
                  env);
  EXPECT_EQ(r.code, 7);
  EXPECT_EQ(r.out, "") << r.err;
  EXPECT_EQ(CountOccurrences(r.err, "also rank"), 0) << r.err;
}

// psched-ctl kill ends a session as a failing rank does: SIGTERM, then SIGKILL after the
// kill wait. Rank 0 traps SIGTERM and says its last words; rank 1 ignores it and is named.
constexpr const char* kKilledFromOutside =
    "case $PSCHED_RANK in "
    "0) trap 'echo last words of 0; exit 0' TERM; echo ready; sleep 300 & wait;; "
    "1) trap '' TERM; echo ready; exec sleep 300;; "
    "esac";

void ExpectLastWordsAfterCtlKill(Proc& p, const std::string& grace) {
  EXPECT_EQ(p.Wait(), 128 + SIGKILL);
  EXPECT_EQ(CountLines(p.out(), "last words of 0"), 1) << p.out() << p.err();
  EXPECT_NE(p.err().find("psched-exec: session 1: session killed by psched-ctl kill\n"
                         "psched-exec: session 1:   also rank 1 on node 0 (" +
                         Hostname() + ") outlived SIGTERM and was killed after " + grace + " s\n"),
            std::string::npos)
      << p.err();
}

TEST_F(ExecTest, CtlKillGivesSigtermThenSigkillAfterTheKillWait) {
  Proc p({Bin("psched-exec"), "-n", "2", "--kill-wait", "0.5", "sh", "-c", kKilledFromOutside},
         daemon_.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "ready") == 2; }));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, daemon_.Env()).code, 0);
  ExpectLastWordsAfterCtlKill(p, "0.5");
}

// A suspended session killed: its ranks are continued for SIGTERM (rank 0 speaks), what
// survives is stopped again after kFatalSignalGraceS (1 s) and still gets SIGKILL at the
// end of the kill wait.
TEST_F(ExecTest, KillingASuspendedSessionKeepsItsLastWords) {
  Proc p({Bin("psched-exec"), "-n", "2", "--kill-wait", "1.5", "sh", "-c", kKilledFromOutside},
         daemon_.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "ready") == 2; }));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "suspend", "1"}, daemon_.Env()).code, 0);
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, daemon_.Env()).code, 0);
  ExpectLastWordsAfterCtlKill(p, "1.5");
}

TEST_F(ExecTest, SignalledRankGives128PlusSignal) {
  auto r = Exec({"sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.code, 128 + SIGSEGV);
  EXPECT_NE(r.err.find("killed by signal 11"), std::string::npos) << r.err;
}

TEST_F(ExecTest, BadInputIsAClearErrorAndTheDaemonKeepsServing) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--bogus", "true"}, "unknown option '--bogus'"},
      {{"-n", "0", "true"}, "-n needs a positive integer, got '0'"},
      {{"-n", "abc", "true"}, "-n needs a positive integer, got 'abc'"},
      {{"/tmp"}, "'/tmp' is a directory, not a program"},
      {{"no-such-program-xyz"}, "'no-such-program-xyz' not found"},
      {{"./not/here"}, "not found"},
      {{"-n", "999", "true"}, "the allocation has"},
      {{"-x", "PSCHED_UNSET_FOR_TEST", "true"}, "is not set"},
      {{"--allocator", "nope", "true"}, "unknown allocator 'nope'"},
      {{"--chdir", "/nonexistent-dir", "true"}, "changing directory to '/nonexistent-dir'"},
  };
  for (const auto& c : cases) {
    auto r = Exec(c.args);
    EXPECT_NE(r.code, 0) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "stderr: " << r.err;
  }
  EXPECT_EQ(Exec({"true"}).code, 0);
}

// On the embedded daemon (this machine's slots): 2 x slots + 1 ranks with --policy
// overbook run, every rank pinned to one slot, the slots shared as evenly as they can be,
// and psched-ctl status shows the over-use while they run. Refused before.
TEST_F(ExecTest, OverbookRunsTwiceTheSlotsPlusOneRanks) {
  auto status = RunCmd({Bin("psched-ctl"), "status", "--json"}, daemon_.Env());
  if (status.code != 0) {
    ASSERT_EQ(Exec({"true"}).code, 0);  // starts the daemon
  }
  status = RunCmd({Bin("psched-ctl"), "status", "--json"}, daemon_.Env());
  ASSERT_EQ(status.code, 0) << status.err;
  const int slots = nlohmann::json::parse(status.out).value("total", 0);
  ASSERT_GT(slots, 0);
  const int ranks = 2 * slots + 1;
  Proc session({Bin("psched-exec"), "-n", std::to_string(ranks), "--policy", "overbook", "sh", "-c",
                "grep Cpus_allowed_list /proc/self/status | cut -f2; exec sleep 3"},
               daemon_.Env());
  EXPECT_TRUE(Eventually([&] {
    auto s = RunCmd({Bin("psched-ctl"), "status"}, daemon_.Env());
    return s.out.find("; overbooked: " + std::to_string(slots) + " of " + std::to_string(slots) +
                      " slots shared by " + std::to_string(ranks)) != std::string::npos;
  })) << RunCmd({Bin("psched-ctl"), "status"}, daemon_.Env()).out;
  ASSERT_EQ(session.Wait(), 0) << session.err();
  std::map<std::string, int> per_pu;
  for (const std::string& pu : Lines(session.out())) ++per_pu[pu];
  ASSERT_EQ(static_cast<int>(per_pu.size()), slots) << session.out();
  for (const auto& [pu, n] : per_pu) {
    EXPECT_EQ(pu.find_first_of(",-"), std::string::npos) << "pinned to one PU: " << pu;
    EXPECT_GE(n, 2) << pu;
    EXPECT_LE(n, 3) << pu;
  }
}

// The embedded daemon psched-exec starts ends itself once idle (here after 1 s, from
// the config), never while a session runs; -v says that one was started, and the next
// psched-exec starts another. Before, it stayed until psched-ctl shutdown.
TEST(EmbeddedDaemonIdle, ExitsAfterTheConfiguredIdleTimeAndTheNextLaunchStartsAnother) {
  TempDir xdg("psched-idle");
  const std::string conf = xdg / "psched.toml";
  std::ofstream(conf) << "[daemon]\nembedded_idle_exit_s = 1\n";
  const std::vector<std::string> env = {"XDG_RUNTIME_DIR=" + xdg.path(), "PSCHED_CONF=" + conf};
  auto first = RunCmd({Bin("psched-exec"), "-v", "sh", "-c", "sleep 2.5; echo done"}, env);
  ASSERT_EQ(first.code, 0) << "the daemon must not leave a running session: " << first.err;
  EXPECT_EQ(first.out, "done\n");
  EXPECT_NE(
      first.err.find("psched-exec: started a psched daemon for this user on this machine at " +
                     (xdg / "psched/pschedd.sock") + "; it exits after 1 s without sessions"),
      std::string::npos)
      << first.err;
  auto daemons = FindProcesses({"pschedd", "--rundir " + (xdg / "psched")});
  ASSERT_EQ(daemons.size(), 1u);
  EXPECT_TRUE(Eventually([&] { return ProcessGone(daemons.front()); }, 15))
      << "still running after its idle time";
  auto ctl = RunCmd({Bin("psched-ctl"), "status"}, env);
  EXPECT_EQ(ctl.code, 1);
  EXPECT_NE(ctl.err.find("no psched daemon runs"), std::string::npos) << ctl.err;
  auto second = RunCmd({Bin("psched-exec"), "-v", "true"}, env);
  EXPECT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.err.find("started a psched daemon"), std::string::npos) << second.err;
  auto reused = RunCmd({Bin("psched-exec"), "-v", "true"}, env);
  EXPECT_EQ(reused.err.find("started a psched daemon"), std::string::npos) << reused.err;
  RunCmd({Bin("psched-ctl"), "shutdown"}, env);
}

// The program is found on the ranks' PATH, not on the daemon's: the daemon was started
// by an earlier psched-exec with another PATH (a `module load` since, say), as srun and
// mpirun users expect.
TEST_F(ExecTest, ProgramIsFoundOnTheRanksPathNotTheDaemons) {
  ASSERT_EQ(Exec({"true"}).code, 0);  // the daemon runs, started with this test's PATH
  TempDir dir;
  const std::string bin = dir / "bin";
  std::filesystem::create_directories(bin);
  auto script = [&](const std::string& name, const std::string& says) {
    const std::string file = bin + "/" + name;
    std::ofstream(file) << "#!/bin/sh\necho " << says << "\n";
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
  };
  script("psched-only-here", "found-on-the-users-path");
  script("hostname", "shadowed-hostname");  // ahead of /usr/bin/hostname on the user's PATH
  std::vector<std::string> env = daemon_.Env();
  env.push_back("PATH=" + bin + ":" + std::getenv("PATH"));
  auto r = RunCmd({Bin("psched-exec"), "psched-only-here"}, env);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "found-on-the-users-path\n");
  r = RunCmd({Bin("psched-exec"), "hostname"}, env);
  EXPECT_EQ(r.out, "shadowed-hostname\n") << r.err;
  // -x PATH=... is the ranks' PATH: a program not on it is refused before anything runs.
  r = Exec({"-x", "PATH=/nonexistent", "true"});
  EXPECT_EQ(r.code, 127);
  EXPECT_NE(r.err.find("not found in PATH"), std::string::npos) << r.err;
  EXPECT_EQ(Exec({"true"}).code, 0);
}

TEST_F(ExecTest, ABusyAllocationMakesTheSessionWaitVisiblyThenRun) {
  // The default co-scheduling policy is wait: the launcher says why it waits.
  GoFile go;
  Proc hog({Bin("psched-exec"), "-n", "2", "sh", "-c", "echo up; " + go.WaitCmd()}, daemon_.Env());
  ASSERT_TRUE(
      hog.WaitStdout([](const std::string& s) { return s.find("up") != std::string::npos; }));
  Proc probe({Bin("psched-exec"), "echo", "ran"}, daemon_.Env());
  EXPECT_TRUE(probe.WaitStderr([](const std::string& s) { return s.find("waits") != s.npos; }))
      << probe.err();
  EXPECT_NE(probe.err().find("0 free"), std::string::npos) << probe.err();
  // Nothing of a queued session runs: suspending it is an error, and it still starts.
  auto st =
      nlohmann::json::parse(RunCmd({Bin("psched-ctl"), "status", "--json"}, daemon_.Env()).out);
  std::string queued;
  for (const auto& session : st["sessions"])
    if (session["state"] == "queued") queued = std::to_string(session["id"].get<int>());
  ASSERT_FALSE(queued.empty()) << st.dump();
  auto suspend = RunCmd({Bin("psched-ctl"), "suspend", queued}, daemon_.Env());
  EXPECT_NE(suspend.code, 0);
  EXPECT_NE(suspend.err.find("session " + queued + " is queued"), std::string::npos) << suspend.err;
  // Ctrl-Z on its launcher is told the same (it used to be dropped without a word).
  ASSERT_TRUE(Eventually([&] { return CatchesSignal(probe.pid(), SIGTSTP); }));
  probe.Signal(SIGTSTP);
  EXPECT_TRUE(probe.WaitStderr([&](const std::string& s) {
    return s.find("session " + queued + " is queued: nothing of it runs yet") != s.npos;
  })) << probe.err();
  EXPECT_NE(ProcessState(probe.pid()), 'T') << "the launcher stopped for a session that waits";
  go.Go();
  EXPECT_EQ(hog.Wait(), 0);
  EXPECT_EQ(probe.Wait(), 0) << probe.err();
  EXPECT_EQ(probe.out(), "ran\n");
}

// mpirun -np 4 is how most people spell it; CLI11 read it as "-n p" and refused it.
TEST_F(ExecTest, MpiexecNpRunsThatManyRanks) {
  auto r = Exec({"-np", "2", "sh", "-c", "echo size=$PSCHED_SIZE"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "size=2\nsize=2\n");
}

TEST_F(ExecTest, HelpExitsZero) {
  auto r = Exec({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--cpus-per-rank"), std::string::npos);
  EXPECT_NE(r.out.find("-np N"), std::string::npos) << r.out;
}

TEST_F(ExecTest, CtlStatusKillSuspendResume) {
  Proc s({Bin("psched-exec"), "-n", "2", "sh", "-c", "echo pid $$; exec sleep 300"}, daemon_.Env());
  ASSERT_TRUE(s.WaitStdout([](const std::string& x) { return CountLines(x, "pid") == 2; }));
  auto status = RunCmd({Bin("psched-ctl"), "status", "--json"}, daemon_.Env());
  ASSERT_EQ(status.code, 0) << status.err;
  auto j = nlohmann::json::parse(status.out);
  ASSERT_EQ(j["sessions"].size(), 1u);
  EXPECT_EQ(j["sessions"][0]["ranks"], 2);
  EXPECT_EQ(j["sessions"][0]["state"], "running");
  EXPECT_EQ(j["nodes"][0]["uses"], nlohmann::json({1, 1}));
  std::string id = std::to_string(j["sessions"][0]["id"].get<int>());
  auto text = RunCmd({Bin("psched-ctl"), "status"}, daemon_.Env());
  EXPECT_NE(text.out.find("sh -c"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("11"), std::string::npos) << "slot map shows two used slots";

  std::vector<pid_t> pids;
  for (const auto& line : Lines(s.out())) pids.push_back(std::stoi(line.substr(4)));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "suspend", id}, daemon_.Env()).code, 0);
  // The answer comes once the node confirmed the ranks stopped.
  EXPECT_EQ(ProcessState(pids[0]), 'T');
  EXPECT_EQ(ProcessState(pids[1]), 'T');
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "resume", id}, daemon_.Env()).code, 0);
  EXPECT_TRUE(
      Eventually([&] { return ProcessState(pids[0]) == 'S' && ProcessState(pids[1]) == 'S'; }));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", id}, daemon_.Env()).code, 0);
  EXPECT_EQ(s.Wait(), 128 + SIGKILL);
  EXPECT_NE(s.err().find("killed by psched-ctl"), std::string::npos) << s.err();

  auto missing = RunCmd({Bin("psched-ctl"), "kill", "999"}, daemon_.Env());
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("no session 999"), std::string::npos);
  EXPECT_NE(RunCmd({Bin("psched-ctl"), "frobnicate"}, daemon_.Env()).code, 0);
}

// A rank inherits stdio and nothing else: not the daemon's sockets, listeners or log, nor
// what the daemon's starter left open. `ls` itself holds one more, the directory it reads.
// Under the default wire-up (auto) the rank also holds its PMI socket, named by PMI_FD,
// and the host's topology, named by HWLOC_XMLFILE (pmi/host_topology.hpp).
TEST_F(ExecTest, RanksInheritOnlyStdio) {
  auto r = Exec({"-n", "1", "--mpi", "pmix", "ls", "/proc/self/fd"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out), (std::vector<std::string>{"0", "1", "2", "3"})) << r.out;
  auto with_pmi = Exec({"-n", "1", "sh", "-c",
                        "echo $PMI_FD; echo ${HWLOC_XMLFILE#/proc/self/fd/}; ls /proc/self/fd"});
  ASSERT_EQ(with_pmi.code, 0) << with_pmi.err;
  std::vector<std::string> fds = Lines(with_pmi.out);
  ASSERT_GE(fds.size(), 2u) << with_pmi.out;
  const std::string pmi_fd = fds[0];
  const std::string topology_fd = fds[1];
  fds.erase(fds.begin(), fds.begin() + 2);
  std::sort(fds.begin(), fds.end());
  // ls's directory takes the lowest number the rank left free: 3, unless the daemon's
  // topology or PMI descriptor happens to have that number (the daemon's lowest free one
  // when it made it, which depends on when its last connection closed).
  int ls_fd = 3;
  while (std::to_string(ls_fd) == pmi_fd || std::to_string(ls_fd) == topology_fd) ++ls_fd;
  std::vector<std::string> want = {"0", "1", "2", std::to_string(ls_fd), pmi_fd, topology_fd};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(fds, want) << with_pmi.out;
}

TEST_F(ExecTest, NoZombiesOrLeftoverProcesses) {
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Exec({"-n", "2", "true"}).code, 0);
  EXPECT_EQ(Exec({"-n", "2", "false"}).code, 1);
  pid_t daemon = daemon_.Pid();
  ASSERT_GT(daemon, 0);
  // A rank's end reaches its launcher before the daemon reaps it (cf87668: the report is
  // sent first, the reap follows at the loop's next turn), so psched-exec can return while
  // its last rank is still a zombie for a moment. None may stay.
  EXPECT_TRUE(Eventually([&] { return ChildrenOf(daemon).empty(); }, 5))
      << ChildrenOf(daemon).size() << " children of pschedd left";
}

// pschedd's loop runs on the kernel's shortest CPU slice, so that its answers to the
// ranks' wire-up preempt a computing rank instead of waiting out its slice
// (daemon/node/short_slice.hpp); the ranks it forks start on the kernel's default one.
TEST_F(ExecTest, TheDaemonsLoopRunsOnAShortCpuSliceAndItsRanksDoNot) {
  if (!KernelHonoursSliceRequests()) GTEST_SKIP() << "this kernel ignores slice requests";
  ASSERT_EQ(Exec({"true"}).code, 0);  // the daemon runs
  pid_t daemon = daemon_.Pid();
  ASSERT_GT(daemon, 0);
  EXPECT_EQ(CpuSliceNs(daemon, daemon), static_cast<long>(daemon::kShortSliceNs));
  // A rank, read while it runs.
  Proc p({Bin("psched-exec"), "-n", "1", "sh", "-c", "echo $$; exec sleep 30"}, daemon_.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s.ends_with('\n'); }));
  const pid_t rank = std::stoi(p.out());
  EXPECT_GT(CpuSliceNs(rank, rank), static_cast<long>(daemon::kShortSliceNs)) << "rank " << rank;
  kill(rank, SIGTERM);
  p.Wait();
}

// A rank's background job ends with its session (DESIGN.md: no process outlives its
// session): it does not run on, reparented to init and still pinned, after psched-exec
// has returned and the slot shows free.
TEST_F(ExecTest, ABackgroundJobEndsWithItsSession) {
  auto r = Exec({"-n", "1", "sh", "-c", "sleep 27.875 >/dev/null 2>&1 & echo $!"});
  ASSERT_EQ(r.code, 0) << r.err;
  const pid_t left = std::stoi(r.out);
  EXPECT_TRUE(Eventually([&] { return ProcessGone(left); }))
      << "pid " << left << " outlived its session";
  kill(left, SIGKILL);
}

TEST(CtlWithoutDaemon, SaysThereIsNone) {
  TempDir empty("psched-none");
  auto r = RunCmd({Bin("psched-ctl"), "status"}, {"XDG_RUNTIME_DIR=" + empty.path()});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("no psched daemon"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace psched::testing
