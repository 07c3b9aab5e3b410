// Ranks' stdout on a pseudo-terminal when psched-exec's own stdout is a terminal (as a
// user at a shell runs it): their stdio line-buffers and a line shows when written, as
// under mpirun. --no-pty, or a pipe or file as psched-exec's stdout, keeps the pipes.
// Either way the launcher prints the same bytes. psched-exec runs here on a raw pty
// opened by the test (StdoutIs::kTerminal), read back byte for byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/allocation.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {
namespace {

class ExecPty : public ::testing::Test {
 protected:
  // psched-exec ARGS... with its stdout on a terminal (or a pipe) and stdin closed.
  RunResult ExecOn(StdoutIs out_is, std::vector<std::string> args) {
    args.insert(args.begin(), Bin("psched-exec"));
    Proc p(args, daemon_.Env(), false, out_is);
    const int code = p.Wait(60);
    return {code, p.out(), p.err()};
  }
  EmbeddedDaemon daemon_;
};

// The Python rank: its "started" line came only when it exited. On a terminal it
// comes while the rank still runs (it waits for the test's go), and the rank sees a
// terminal on stdout only; stderr stays a pipe, as under mpirun 4.1.
TEST_F(ExecPty, RankLineShowsAtOnceWhenTheLauncherIsOnATerminal) {
  GoFile go;
  const std::string rank =
      "import os, time\n"
      "print('started', 'out', os.isatty(1), 'err', os.isatty(2))\n"
      "while not os.path.exists('" +
      go.Path() +
      "'): time.sleep(0.02)\n"
      "print('done')\n";
  // Python's own default buffering, whatever the environment running the tests asks for.
  auto env = daemon_.Env();
  env.push_back("PYTHONUNBUFFERED=");
  Proc p({Bin("psched-exec"), "-n", "2", "--label", "python3", "-c", rank}, env, false,
         StdoutIs::kTerminal);
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "started") == 2; }, 20))
      << "ranks' lines held back until they exit: " << p.out() << p.err();
  EXPECT_EQ(CountLines(p.out(), "started out True err False"), 2) << p.out();
  go.Go();
  ASSERT_EQ(p.Wait(), 0) << p.err();
  EXPECT_EQ(CountLines(p.out(), "] done"), 2) << p.out();
}

TEST_F(ExecPty, NoPtyOrAPipeKeepsTheRanksPipes) {
  const std::vector<std::string> probe = {"sh", "-c", "[ -t 1 ] && echo tty || echo pipe"};
  auto with = [&probe](std::vector<std::string> args) {
    args.insert(args.end(), probe.begin(), probe.end());
    return args;
  };
  auto on_terminal = ExecOn(StdoutIs::kTerminal, with({}));
  EXPECT_EQ(on_terminal.code, 0) << on_terminal.err;
  EXPECT_EQ(on_terminal.out, "tty\n");
  auto no_pty = ExecOn(StdoutIs::kTerminal, with({"--no-pty"}));
  EXPECT_EQ(no_pty.code, 0) << no_pty.err;
  EXPECT_EQ(no_pty.out, "pipe\n");
  auto on_pipe = ExecOn(StdoutIs::kPipe, with({}));
  EXPECT_EQ(on_pipe.code, 0) << on_pipe.err;
  EXPECT_EQ(on_pipe.out, "pipe\n");
}

// No "\r\n" for "\n", binary bytes and a last line without a newline kept, nothing of a
// large output lost: the same bytes as through the pipes.
TEST_F(ExecPty, TerminalOutputIsTheSameBytesAsThePipes) {
  const std::vector<std::string> rank = {
      "sh", "-c",
      "[ -t 1 ] && echo 'stdout is a terminal' >&2; "
      "printf 'a\\nb\\r\\n\\001\\003\\004\\032\\177\\377\\033[0m\\000|'; seq 200000; "
      "printf 'no newline'"};
  auto run = [&](StdoutIs out_is) {
    std::vector<std::string> args = {"-n", "1"};
    args.insert(args.end(), rank.begin(), rank.end());
    return ExecOn(out_is, args);
  };
  auto pty = run(StdoutIs::kTerminal);
  auto pipe = run(StdoutIs::kPipe);
  ASSERT_EQ(pty.code, 0) << pty.err;
  ASSERT_EQ(pipe.code, 0) << pipe.err;
  EXPECT_EQ(pty.err, "stdout is a terminal\n");
  EXPECT_EQ(pipe.err, "");
  std::string expected("a\nb\r\n\001\003\004\032\177\377\033[0m\000|", 17);
  for (int i = 1; i <= 200000; ++i) expected += std::to_string(i) + "\n";
  expected += "no newline";
  EXPECT_TRUE(pipe.out == expected) << pipe.out.size() << " bytes of " << expected.size();
  EXPECT_TRUE(pty.out == pipe.out)
      << "terminal: " << pty.out.size() << " bytes, pipes: " << pipe.out.size() << " bytes";
}

// Last words on a terminal: a failing rank's peers get SIGTERM, then SIGKILL after the
// kill wait; what they wrote up to their end still reaches the launcher, unfinished lines
// too: rank 0 traps SIGTERM, rank 2 ignores it and is killed.
TEST_F(ExecPty, LastWordsReachTheLauncherFromATerminal) {
  TempDir d;
  const std::string ranks =
      "case $PSCHED_RANK in "
      "0) trap 'printf \"last words of 0\"; exit 0' TERM; [ -t 1 ] && echo tty; seq 50000; "
      "touch $D/0; sleep 300 & wait;; "
      "1) until [ -e $D/0 ] && [ -e $D/2 ]; do sleep 0.02; done; exit 7;; "
      "2) trap '' TERM; printf 'unfinished line of 2'; touch $D/2; exec sleep 300;; "
      "esac";
  auto r = ExecOn(StdoutIs::kTerminal, {"-n", "3", "--policy", "overbook", "--kill-wait", "0.5",
                                        "--label", "-x", "D=" + d.path(), "sh", "-c", ranks});
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_EQ(CountLines(r.out, "[0] tty"), 1) << r.out.substr(0, 100);
  EXPECT_EQ(CountLines(r.out, "[0] "), 50002);
  EXPECT_EQ(CountLines(r.out, "[0] 50000"), 1);
  EXPECT_EQ(CountLines(r.out, "[0] last words of 0"), 1);
  EXPECT_EQ(CountLines(r.out, "[2] unfinished line of 2"), 1) << r.out.substr(r.out.size() - 200);
}

}  // namespace
}  // namespace psched::testing
