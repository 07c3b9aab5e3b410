// NodeService with real ranks on a real event loop.
#include "daemon/node/node_service.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "daemon/node/freezer.hpp"
#include "daemon/node/node_service_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

// A child that leads a process group of its own and waits, with pid `want` when the
// kernel can be asked for it (ns_last_pid, root in the initial pid namespace): what a
// process that reused a dead group leader's pid looks like. -1 when it cannot be had.
// Another test's fork can take `want` between the write and ours; such a process is
// short-lived, so the attempts go on for a few seconds.
pid_t GroupLeaderWithPid(pid_t want) {
  for (int attempt = 0; attempt < 300; ++attempt) {
    {
      std::ofstream last("/proc/sys/kernel/ns_last_pid");
      if (!last) return -1;
      last << want - 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    if (pid == want) return pid;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    usleep(10000);
  }
  return -1;
}

// A process holds the id of the group and session it is in: the kernel gives a group
// leader's pid to nobody while a member is left. True once the process `pid` has a
// session of its own.
bool LeftItsSession(pid_t pid) {
  return getsid(pid) == pid;
}

// The pid is free again: no process, not even a zombie, holds it.
bool Reaped(pid_t pid) {
  return kill(pid, 0) != 0 && errno == ESRCH;
}

using NodeServiceTest = NodeServiceFixture;

// The session outlives its only rank (a process it started outside its group holds its
// output open), the group empties, and the leader's pid comes back as another group's
// leader: a signal for the session must not reach that group.
TEST_F(NodeServiceTest, SignalSkipsAGroupThatReusedTheLeadersPid) {
  psched::testing::GoFile go;
  Spawn(1, 1, {"sh", "-c", "setsid sleep 29.25 & " + go.WaitCmd()});
  const pid_t leader = Pids(1).front();
  ASSERT_TRUE(psched::testing::Eventually([] {
    // The rank's shell matches too (its command line names the sleep).
    auto found = psched::testing::FindProcesses({"sleep", "29.25"});
    return std::ranges::any_of(found, LeftItsSession);
  })) << "the setsid'd sleep never left the rank's group";
  go.Go();
  ASSERT_TRUE(Loop([&] { return Reaped(leader); })) << "rank never reaped";
  ASSERT_EQ(ranks_->num_sessions(), 1u) << "the session ended: nothing held its output";
  const pid_t stranger = GroupLeaderWithPid(leader);
  for (pid_t p : psched::testing::FindProcesses({"sleep", "29.25"})) kill(p, SIGKILL);
  if (stranger < 0) GTEST_SKIP() << "pid " << leader << " could not be had again here";
  ranks_->Signal(1, SIGTERM);
  usleep(100000);
  EXPECT_EQ(waitpid(stranger, nullptr, WNOHANG), 0) << "the stranger's group got the signal";
  kill(stranger, SIGKILL);
  waitpid(stranger, nullptr, 0);
}

// While the leader rank lives, the group is the session's: every member gets it.
TEST_F(NodeServiceTest, SignalReachesTheGroupWhileItsLeaderLives) {
  Spawn(2, 1, {"sh", "-c", "sleep 30 & wait"});
  const pid_t leader = Pids(2).front();
  ASSERT_TRUE(
      psched::testing::Eventually([&] { return psched::testing::ChildrenOf(leader).size() == 1; }));
  const pid_t member = psched::testing::ChildrenOf(leader).front();
  ranks_->Signal(2, SIGTERM);
  EXPECT_TRUE(psched::testing::Eventually([&] { return psched::testing::ProcessGone(member); }))
      << "the group's other member did not get the signal";
  EXPECT_TRUE(Loop([&] { return ranks_->num_sessions() == 0; }));
}

// The pid a rank wrote to `file` (its background job's, $!), once it is there.
pid_t PidWrittenTo(const std::string& file) {
  std::string text;
  EXPECT_TRUE(psched::testing::Eventually([&] {
    text = psched::testing::ReadFile(file);
    return text.ends_with("\n");
  })) << "nothing in "
      << file;
  return text.empty() ? -1 : std::stoi(text);
}

// A rank's background job ends with the session: it must not run on, reparented to init
// and still pinned, after the session and the whole allocation are gone.
TEST_F(NodeServiceTest, SessionEndKillsWhatItsRanksLeftInTheirGroup) {
  psched::testing::GoFile go;
  psched::testing::TempDir dir;
  Spawn(3, 1,
        {"sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $! >" + dir / "pid" + "; " + go.WaitCmd()});
  const pid_t leftover = PidWrittenTo(dir / "pid");
  ASSERT_FALSE(psched::testing::ProcessGone(leftover));
  go.Go();
  EXPECT_TRUE(Loop([&] { return ranks_->num_sessions() == 0; })) << "the session never ended";
  EXPECT_TRUE(psched::testing::Eventually([&] { return psched::testing::ProcessGone(leftover); }))
      << "pid " << leftover << " outlived its session";
  kill(leftover, SIGKILL);
}

// The leader rank exits first; the other one has left the group (setsid), so the group
// empties and the leader's pid comes back as another group's leader. When the last rank
// exits, the leftovers of the session's group are killed: not that group.
TEST_F(NodeServiceTest, SessionEndSkipsAGroupThatReusedTheLeadersPid) {
  psched::testing::GoFile go0, go1;
  Spawn(5, 2,
        {"sh", "-c",
         "if [ $PSCHED_RANK = 0 ]; then " + go0.WaitCmd() + "; else exec setsid sh -c '" +
             go1.WaitCmd() + "'; fi"});
  const pid_t leader = Pids(5).front();
  const pid_t other = Pids(5).back();
  ASSERT_TRUE(psched::testing::Eventually([&] { return LeftItsSession(other); }))
      << "rank 1 never left the group";
  go0.Go();
  ASSERT_TRUE(Loop([&] { return Reaped(leader); })) << "rank 0 never reaped";
  ASSERT_EQ(ranks_->LocalProcesses(5).size(), 1u);
  const pid_t stranger = GroupLeaderWithPid(leader);
  go1.Go();
  if (stranger < 0) GTEST_SKIP() << "pid " << leader << " could not be had again here";
  EXPECT_TRUE(Loop([&] { return ranks_->num_sessions() == 0; })) << "the session never ended";
  EXPECT_EQ(waitpid(stranger, nullptr, WNOHANG), 0) << "the stranger's group was killed";
  kill(stranger, SIGKILL);
  waitpid(stranger, nullptr, 0);
}

// A rank's end goes up before the rank is reaped: the kernel's release of an exited
// process (wait4's work) comes after the report, not between the rank's exit and its
// launcher. No zombie is left behind once the loop turns.
TEST_F(NodeServiceTest, ASessionsEndIsSentBeforeItsRankIsReaped) {
  pid_t pid = -1;
  char state_at_end = '?';
  proto::NodeDone done;
  ranks_ = std::make_unique<NodeService>(base_, 0, std::vector<int>{0},
                                         [&](proto::MsgType type, const proto::Json& body) {
                                           if (type != proto::MsgType::kSessionNodeDone) return;
                                           state_at_end = psched::testing::ProcessState(pid);
                                           done = body.get<proto::NodeDone>();
                                         });
  psched::testing::GoFile go;
  Spawn(8, 1, {"sh", "-c", go.WaitCmd() + "; exit 3"});
  pid = Pids(8).front();
  go.Go();
  ASSERT_TRUE(Loop([&] { return state_at_end != '?'; })) << "the session never ended";
  EXPECT_EQ(state_at_end, 'Z') << "rank reaped before its end was sent (state '"
                               << (state_at_end == 0 ? '-' : state_at_end) << "')";
  ASSERT_EQ(done.exits.size(), 1u);
  EXPECT_EQ(done.exits[0].code, 3) << done.exits[0].cause;
  EXPECT_TRUE(Loop([&] { return Reaped(pid); })) << "pid " << pid << " left a zombie";
}

// The rank pinned to the CPU the daemon's loop runs on starts last (start_order.hpp),
// and the session's ranks stay in rank order: rank 1 (pinned elsewhere) starts first,
// rank 0 after it, and each exit is still told as its own rank's.
TEST_F(NodeServiceTest, TheRankOnTheDaemonsCpuStartsLastAndRanksKeepTheirOrder) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two CPUs";
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  cpu_set_t cpu0;
  CPU_ZERO(&cpu0);
  CPU_SET(0, &cpu0);
  ASSERT_EQ(sched_setaffinity(0, sizeof cpu0, &cpu0), 0);  // the loop runs on CPU 0
  proto::NodeDone done;
  ranks_ = std::make_unique<NodeService>(base_, 0, std::vector<int>{0, 1},
                                         [&](proto::MsgType type, const proto::Json& body) {
                                           if (type == proto::MsgType::kSessionNodeDone)
                                             done = body.get<proto::NodeDone>();
                                         });
  psched::testing::GoFile go;
  proto::StartRanksOrder order;
  order.session = 9;
  order.argv = {"sh", "-c", go.WaitCmd() + "; exit $PSCHED_RANK"};
  order.env = {"PATH=/usr/bin:/bin"};
  order.size = 2;
  order.ranks = {{0, 0, 0, {0}}, {1, 0, 1, {1}}};  // rank 0 on PU 0 (CPU 0), rank 1 on CPU 1
  ranks_->StartRanks(order);
  const bool started = Loop([&] { return ranks_->LocalProcesses(9).size() == 2; });
  sched_setaffinity(0, sizeof mine, &mine);
  ASSERT_TRUE(started);
  const auto procs = ranks_->LocalProcesses(9);
  ASSERT_EQ(procs[0].first, 0);
  ASSERT_EQ(procs[1].first, 1);
  EXPECT_LT(procs[1].second, procs[0].second)
      << "rank 1 (pid " << procs[1].second << ") did not start before rank 0 (pid "
      << procs[0].second << ")";
  EXPECT_EQ(psched::testing::CpusAllowed(procs[0].second), "0");
  EXPECT_EQ(psched::testing::CpusAllowed(procs[1].second), "1");
  go.Go();
  ASSERT_TRUE(Loop([&] { return done.exits.size() == 2; })) << "the session never ended";
  for (const auto& exit : done.exits) EXPECT_EQ(exit.code, exit.rank) << exit.cause;
}

// With the freezer the session's cgroup holds even what left the group (setsid): killed
// when the ranks have exited, it no longer holds the session's output open either.
TEST_F(NodeServiceTest, WithTheFreezerSessionEndKillsEvenWhatLeftTheGroup) {
  auto freezer = SessionFreezer::Create(0);
  if (!freezer) GTEST_SKIP() << "no writable cgroup freezer here: " << freezer.error().ToString();
  ranks_->SetFreezer(freezer->get());
  psched::testing::GoFile go;
  psched::testing::TempDir dir;
  Spawn(6, 1, {"sh", "-c", "setsid sleep 30 & echo $! >" + dir / "pid" + "; " + go.WaitCmd()});
  const pid_t leftover = PidWrittenTo(dir / "pid");
  ASSERT_TRUE(psched::testing::Eventually([&] { return getpgid(leftover) == leftover; }))
      << "pid " << leftover << " never left the group";
  go.Go();
  EXPECT_TRUE(Loop([&] { return ranks_->num_sessions() == 0; }))
      << "the session waited for what its rank left behind";
  EXPECT_TRUE(psched::testing::Eventually([&] { return psched::testing::ProcessGone(leftover); }))
      << "pid " << leftover << " outlived its session";
  kill(leftover, SIGKILL);
  ranks_.reset();  // before its freezer goes
}

// A suspended session whose ranks catch SIGTERM: the signal acts (the handlers run),
// then the ranks are stopped again, as the leader still counts the session suspended.
TEST_F(NodeServiceTest, FatalSignalToASuspendedSessionActsThenItIsStoppedAgain) {
  psched::testing::TempDir dir;
  const std::string caught = dir / "caught";
  Spawn(4, 2,
        {"sh", "-c",
         "trap 'echo $PSCHED_RANK >> " + caught + "' TERM; while :; do sleep 0.05; done"});
  const std::vector<pid_t> pids = Pids(4);
  for (pid_t pid : pids) {
    ASSERT_TRUE(
        psched::testing::Eventually([&] { return psched::testing::CatchesSignal(pid, SIGTERM); }));
  }
  auto all_stopped = [&] {
    return std::all_of(pids.begin(), pids.end(), psched::testing::HeldStopped);
  };
  ASSERT_TRUE(ranks_->Suspend(4));
  ASSERT_TRUE(Loop(all_stopped)) << "never suspended";
  ranks_->Signal(4, SIGTERM);
  EXPECT_TRUE(Loop([&] { return psched::testing::ReadFile(caught).size() == 4; }))
      << "the ranks never acted on SIGTERM: '" << psched::testing::ReadFile(caught) << "'";
  EXPECT_TRUE(Loop(all_stopped)) << "the session runs on while suspended";
  ranks_->Resume(4);
  for (pid_t pid : pids)
    EXPECT_TRUE(Loop([&] { return !psched::testing::HeldStopped(pid); })) << "pid " << pid;
}

// A resume during that grace wins: the session runs on, and the grace's end does not
// stop it again.
TEST_F(NodeServiceTest, AResumeDuringAFatalSignalsGraceIsNotUndone) {
  psched::testing::TempDir dir;
  const std::string ticks = dir / "ticks";
  Spawn(7, 1, {"sh", "-c", "trap : TERM; while :; do echo >>" + ticks + "; sleep 0.05; done"});
  const pid_t pid = Pids(7).front();
  ASSERT_TRUE(
      psched::testing::Eventually([&] { return psched::testing::CatchesSignal(pid, SIGTERM); }));
  ASSERT_TRUE(ranks_->Suspend(7));
  ASSERT_TRUE(Loop([&] { return psched::testing::HeldStopped(pid); })) << "never suspended";
  ranks_->Signal(7, SIGTERM);
  ranks_->Resume(7);
  const size_t at_resume = psched::testing::ReadFile(ticks).size();
  // 40 more ticks take 2 s at least: past the grace, whose end must not stop the rank.
  EXPECT_TRUE(Loop([&] { return psched::testing::ReadFile(ticks).size() >= at_resume + 40; }))
      << "stopped again after its resume";
}

}  // namespace
}  // namespace psched::daemon
