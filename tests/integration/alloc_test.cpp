// Emulated multi-node allocations (psched-alloc): sessions across nodes, output
// volume, signal forwarding, Ctrl-Z, and faults (launcher or daemon killed).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

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

std::vector<pid_t> Pids(const std::string& out) {
  std::vector<pid_t> pids;
  for (const auto& line : Lines(out)) {
    if (auto at = line.find("pid "); at != std::string::npos)
      pids.push_back(std::stoi(line.substr(at + 4)));
  }
  return pids;
}

TEST(Alloc, SessionAcrossNodesWithPinning) {
  EmulatedAlloc alloc(4, "pack:2 core:4 pu:1");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  const std::string report =
      "echo $PSCHED_NODE $PSCHED_LOCAL_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)";
  auto r = RunCmd({Bin("psched-exec"), "-n", "12", "--ppn", "3", "sh", "-c", report}, alloc.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, int> per_node;
  for (const auto& line : Lines(r.out)) {
    per_node[line.substr(0, line.find(' '))]++;
    EXPECT_EQ(line.find_first_of(",-", 4), std::string::npos) << "one PU per rank: " << line;
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"0", 3}, {"1", 3}, {"2", 3}, {"3", 3}}));
  auto status = RunCmd({Bin("psched-ctl"), "status"}, alloc.Env());
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(status.out.find("node3"), std::string::npos) << status.out;
  EXPECT_EQ(alloc.Stop(), 0);
}

// Emulated nodes smaller than the host spread over its CPUs: node n's first PU is
// bound to the host's CPU n (modulo their count), so four one-PU nodes use up to four
// CPUs instead of all running on the first.
TEST(Alloc, OnePuNodesSpreadOverTheHostsCpus) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  const int usable = std::min(4, CPU_COUNT(&mine));
  EmulatedAlloc alloc(4, "pack:1 core:1 pu:1");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  const std::string report =
      "echo $PSCHED_NODE $(grep Cpus_allowed_list /proc/self/status | cut -f2)";
  auto r = RunCmd({Bin("psched-exec"), "-n", "4", "--ppn", "1", "sh", "-c", report}, alloc.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<int, std::string> cpu_of_node;
  for (const auto& line : Lines(r.out)) {
    int node = std::stoi(line);
    cpu_of_node[node] = line.substr(line.find(' ') + 1);
  }
  ASSERT_EQ(cpu_of_node.size(), 4u) << r.out;
  std::set<std::string> first;
  for (int n = 0; n < usable; ++n) first.insert(cpu_of_node[n]);
  EXPECT_EQ(static_cast<int>(first.size()), usable) << "nodes 0-" << usable - 1 << " share CPUs:\n"
                                                    << r.out;
  EXPECT_EQ(alloc.Stop(), 0);
}

// pschedd asks for a short CPU slice (daemon/node/short_slice.hpp) to preempt the ranks
// it serves, but not where emulated nodes fold onto fewer CPUs: there its daemons would
// preempt each other.
TEST(Alloc, DaemonsAskForAShortCpuSliceUnlessTheEmulationFolds) {
  if (!KernelHonoursSliceRequests()) GTEST_SKIP() << "this kernel ignores slice requests";
  const long short_slice = static_cast<long>(daemon::kShortSliceNs);
  {
    EmulatedAlloc apart(1, "pack:1 core:1 pu:1");  // one PU: no fold on any host
    ASSERT_TRUE(apart.ok()) << apart.Diagnosis();
    const pid_t leader = apart.DaemonPid(0);
    ASSERT_GT(leader, 0);
    EXPECT_EQ(CpuSliceNs(leader, leader), short_slice);
    EXPECT_EQ(apart.Stop(), 0);
  }
  // Two nodes of as many PUs as the host has CPUs: twice too many.
  const std::string pus = "pack:1 core:" + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " pu:1";
  EmulatedAlloc folded(2, pus);
  ASSERT_TRUE(folded.ok()) << folded.Diagnosis();
  for (int node : {0, 1}) {
    const pid_t daemon = folded.DaemonPid(node);
    ASSERT_GT(daemon, 0) << "node " << node;
    EXPECT_GT(CpuSliceNs(daemon, daemon), short_slice) << "node " << node;
  }
  EXPECT_EQ(folded.Stop(), 0);
}

// As on one node (ExecTest.RanksInheritOnlyStdio): daemons of an emulated allocation
// hold tree links and link-probe listeners, and a rank gets none of them (nor, with
// --mpi pmix, a PMI-1 socket).
TEST(Alloc, RanksOnEveryNodeInheritOnlyStdio) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  auto r =
      RunCmd({Bin("psched-exec"), "-n", "2", "--ppn", "1", "--mpi", "pmix", "ls", "/proc/self/fd"},
             alloc.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> fds = Lines(r.out);
  std::sort(fds.begin(), fds.end());
  EXPECT_EQ(fds, (std::vector<std::string>{"0", "0", "1", "1", "2", "2", "3", "3"})) << r.out;
  EXPECT_EQ(alloc.Stop(), 0);
}

TEST(Alloc, OneMegabytePerRankAcrossNodesNothingLost) {
  EmulatedAlloc alloc(4, "core:2", 2);
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  constexpr int kLines = 16384;  // x 64 bytes = 1 MiB per rank
  const std::string megabyte =
      "BEGIN { for (i = 0; i < 16384; i++) printf \"%02d %06d "
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n\", "
      "ENVIRON[\"PSCHED_RANK\"], i }";
  auto r = RunCmd({Bin("psched-exec"), "-n", "8", "--label", "awk", megabyte}, alloc.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<int> next(8, 0);
  auto lines = Lines(r.out);
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) {
    ASSERT_EQ(line.size(), lines.front().size()) << "a torn line: " << line;
    int rank = std::stoi(line.substr(1));
    ASSERT_GE(rank, 0);
    ASSERT_LT(rank, 8);
    int seq = std::stoi(line.substr(line.find(']') + 5, 6));
    ASSERT_EQ(seq, next[rank]) << "rank " << rank << " lost or reordered a line";
    ++next[rank];
  }
  for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(next[rank], kLines) << "rank " << rank;
}

// 2 x slots + 1 ranks with --policy overbook over emulated nodes of 2 slots, as mpirun
// --oversubscribe runs them: 5 ranks on node 0 and 4 on node 1, each pinned to one slot,
// every slot taken twice or three times. Refused before ("the allocation has 4 slots").
// With max_overbook_factor = 2 the admin forbids it, and wait still refuses, naming overbook.
TEST(Alloc, OverbookRunsASessionWiderThanTheAllocationSpreadOverTheNodes) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  auto r = RunCmd({Bin("psched-exec"), "-n", "9", "--policy", "overbook", "sh", "-c",
                   "echo $PSCHED_NODE $(grep Cpus_allowed_list /proc/self/status | cut -f2)"},
                  alloc.Env());
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, int> per_slot;  // "node pu" -> ranks
  std::map<std::string, int> per_node;
  for (const std::string& line : Lines(r.out)) {
    ++per_slot[line];
    ++per_node[line.substr(0, line.find(' '))];
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"0", 5}, {"1", 4}})) << r.out;
  ASSERT_EQ(per_slot.size(), 4u) << "one PU each, four slots:\n" << r.out;
  for (const auto& [slot, ranks] : per_slot) {
    EXPECT_GE(ranks, 2) << slot;
    EXPECT_LE(ranks, 3) << slot;
  }
  auto wait = RunCmd({Bin("psched-exec"), "-n", "9", "true"}, alloc.Env());
  EXPECT_NE(wait.code, 0);
  EXPECT_NE(wait.err.find("--policy overbook runs it anyway"), std::string::npos) << wait.err;
  EXPECT_EQ(alloc.Stop(), 0);

  EmulatedAlloc capped(2, "core:2", 8, "[policy]\nmax_overbook_factor = 2\n");
  ASSERT_TRUE(capped.ok()) << capped.Diagnosis();
  auto refused =
      RunCmd({Bin("psched-exec"), "-n", "9", "--policy", "overbook", "true"}, capped.Env());
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("the admin allows at most 2 times that (max_overbook_factor"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(
      RunCmd({Bin("psched-exec"), "-n", "8", "--policy", "overbook", "true"}, capped.Env()).code,
      0);
}

// A launcher whose stdout nobody reads (piped into a pager, a stopped reader) must not
// make the leader keep its ranks' output: the nodes stop reading the session's pipes and
// the ranks block in write, as on a full terminal. Two `yes` ranks on two nodes, the
// launcher's stdout a pipe that `sleep` never reads: the leader grew by gigabytes before.
TEST(Alloc, OutputNobodyReadsIsHeldNotBufferedByTheLeader) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  const pid_t leader = alloc.DaemonPid(0);
  ASSERT_GT(leader, 0);
  const long before = ResidentKiB(leader);
  Proc p({"sh", "-c",
          Bin("psched-exec") +
              " -N 2 -n 2 yes | sh -c 'echo reader $$ >&2; exec sleep 60'; echo reader gone"},
         alloc.Env());
  ASSERT_TRUE(p.WaitStderr([](const std::string& s) { return s.find('\n') != s.npos; }));
  const pid_t reader = std::stoi(p.err().substr(p.err().find("reader ") + 7));
  ASSERT_TRUE(Eventually([&] { return AllocationRanks(alloc.dir(), "yes").size() == 2u; }));
  // The backlog would build at the daemons' speed: a few hundred MB/s.
  long peak = 0;
  for (int i = 0; i < 30; ++i) {
    peak = std::max(peak, ResidentKiB(leader));
    usleep(100'000);
  }
  EXPECT_LT(peak - before, 64 * 1024) << "leader grew from " << before << " kB to " << peak;
  for (const RankProc& r : AllocationRanks(alloc.dir(), "yes"))
    EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == 'S'; })) << "rank " << r.rank;
  // Killed while held: the nodes drain the pipes to their end, the session ends once the
  // reader has gone (the launcher's write then fails), and the daemons serve on. The
  // reader stays until then: a reader gone first ends the session itself.
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, alloc.Env()).code, 0);
  EXPECT_TRUE(Eventually([&] { return AllocationRanks(alloc.dir(), "yes").empty(); }));
  kill(reader, SIGKILL);
  EXPECT_TRUE(p.WaitStdout([](const std::string& s) { return s.find("reader gone") != s.npos; }))
      << p.err();
  EXPECT_TRUE(Eventually([&] { return SessionOf(alloc.Status(), 1).empty(); }))
      << alloc.Status().dump();
  EXPECT_EQ(RunCmd({Bin("psched-exec"), "-n", "2", "true"}, alloc.Env()).code, 0);
  p.Wait();
}

// The leader's hold reaches a node only after what the node sent before it; a node that
// read its ranks' output at full speed while the leader's daemon got no CPU (a loaded
// host) piled it up for the leader to take in later: under load, the test above saw the
// leader grow by 126 MB. Here the leader is stopped for a second while a `yes` rank on
// node 1 writes: node 1 stops reading once 4 MB wait on its link (NodeService's
// kUpstreamHoldAt), and grew by hundreds of MB before.
TEST(Alloc, ANodeStopsReadingOutputWhileItsLinkToTheLeaderIsBacklogged) {
  EmulatedAlloc alloc(2, "core:1");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  const pid_t leader = alloc.DaemonPid(0), node1 = alloc.DaemonPid(1);
  ASSERT_GT(leader, 0);
  ASSERT_GT(node1, 0);
  GoFile go;
  Proc busy({Bin("psched-exec"), "-n", "1", "sh", "-c", "echo up; " + go.WaitCmd()}, alloc.Env());
  ASSERT_TRUE(busy.WaitStdout([](const std::string& s) { return CountLines(s, "up") == 1; }));
  Proc p({"sh", "-c", Bin("psched-exec") + " -n 1 yes >/dev/null"}, alloc.Env());
  ASSERT_TRUE(Eventually([&] { return AllocationRanks(alloc.dir(), "yes").size() == 1u; }));
  usleep(200'000);  // the output flows
  const long before = ResidentKiB(node1);
  ASSERT_EQ(kill(leader, SIGSTOP), 0);
  long peak = 0;
  for (int i = 0; i < 10; ++i) {
    usleep(100'000);
    peak = std::max(peak, ResidentKiB(node1));
  }
  ASSERT_EQ(kill(leader, SIGCONT), 0);
  EXPECT_LT(peak - before, 32 * 1024) << "node 1 grew from " << before << " kB to " << peak;
  // Reading again once the leader takes what waits: the session still ends as killed.
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "2"}, alloc.Env()).code, 0);
  EXPECT_EQ(p.Wait(), 128 + SIGKILL) << p.err();
  go.Go();
  EXPECT_EQ(busy.Wait(), 0) << busy.err();
}

// Stdin flow control across the tree: rank 0 on node 2 (nodes 0 and 1 are busy, node 2
// hangs below node 1) reports what it has written up to the leader, which passes it on to
// the launcher; without the reports the launcher would stop after its window.
TEST(Alloc, AllOfStdinReachesRankZeroOnAnotherNode) {
  EmulatedAlloc alloc(3, "pack:1 core:1 pu:1", /*fanout=*/1);
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  Proc busy({Bin("psched-exec"), "-n", "2", "sh", "-c", "echo up; " + go.WaitCmd()}, alloc.Env());
  ASSERT_TRUE(busy.WaitStdout([](const std::string& s) { return CountLines(s, "up") == 2; }));
  TempDir dir;
  constexpr size_t kSize = size_t{20} << 20;
  std::ofstream(dir / "input") << std::string(kSize, 'x');
  auto r =
      RunShell(Bin("psched-exec") + " sh -c 'echo node $PSCHED_NODE; wc -c' < " + dir / "input",
               alloc.Env(), 60);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "node 2\n" + std::to_string(kSize) + "\n");
  go.Go();
  EXPECT_EQ(busy.Wait(), 0) << busy.err();
}

TEST(Alloc, SignalsAreForwardedToEveryRank) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  const std::string trap_usr1 =
      "trap 'echo got USR1 $PSCHED_RANK; exit 0' USR1; echo pid $$; while :; do sleep 0.05; done";
  Proc p({Bin("psched-exec"), "-n", "4", "sh", "-c", trap_usr1}, alloc.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 4; }));
  p.Signal(SIGUSR1);
  EXPECT_EQ(p.Wait(), 0) << p.err();
  EXPECT_EQ(CountLines(p.out(), "got USR1"), 4) << p.out();

  Proc q({Bin("psched-exec"), "-n", "4", "sh", "-c", "echo pid $$; exec sleep 300"}, alloc.Env());
  ASSERT_TRUE(q.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 4; }));
  q.Signal(SIGINT);
  EXPECT_EQ(q.Wait(), 128 + SIGINT);
  for (pid_t pid : Pids(q.out())) EXPECT_TRUE(Eventually([pid] { return ProcessGone(pid); }));
}

TEST(Alloc, CtrlZSuspendsTheSessionEverywhereAndFgResumesIt) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  Proc p({Bin("psched-exec"), "-n", "4", "sh", "-c", "echo pid $$; " + go.WaitCmd()}, alloc.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 4; }));
  auto pids = Pids(p.out());
  auto all = [&](auto pred) {
    for (pid_t pid : pids)
      if (!pred(ProcessState(pid))) return false;
    return true;
  };
  p.Signal(SIGTSTP);
  // The launcher stops itself only once every node confirmed its ranks stopped.
  EXPECT_TRUE(Eventually([&] { return ProcessState(p.pid()) == 'T'; }))
      << "launcher not stopped: " << p.err() << alloc.Status();
  // Stopped, or a shell rank caught in vfork with its child stopped (daemon/README).
  EXPECT_TRUE(std::all_of(pids.begin(), pids.end(), HeldStopped))
      << "launcher stopped before its ranks";
  p.Signal(SIGCONT);
  EXPECT_TRUE(Eventually([&] { return all([](char s) { return s == 'S' || s == 'R'; }); }));
  go.Go();
  EXPECT_EQ(p.Wait(), 0) << p.err();
}

// Ctrl-Z before the daemon has answered the launch (its leader is held stopped) is not
// lost: the launcher keeps it until the daemon names the session, then suspends it.
TEST(Alloc, CtrlZBeforeTheDaemonAnswersTheLaunchIsNotLost) {
  EmulatedAlloc alloc(1, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  pid_t leader = alloc.DaemonPid(0);
  ASSERT_GT(leader, 0);
  GoFile go;
  ASSERT_EQ(kill(leader, SIGSTOP), 0);
  Proc p({Bin("psched-exec"), "-v", "-n", "2", "sh", "-c", "echo pid $$; " + go.WaitCmd()},
         alloc.Env());
  // Sent once the launcher handles it: earlier, SIGTSTP would stop it the default way.
  bool asked = Eventually([&] { return CatchesSignal(p.pid(), SIGTSTP); });
  p.Signal(SIGTSTP);
  bool kept = p.WaitStderr(
      [](const std::string& s) { return s.find("waits for the session") != s.npos; }, 10);
  kill(leader, SIGCONT);
  ASSERT_TRUE(asked) << p.err();
  ASSERT_TRUE(kept) << p.err();
  // Suspended as soon as it started: the ranks may not even have printed yet.
  EXPECT_TRUE(Eventually([&] { return ProcessState(p.pid()) == 'T'; })) << p.err();
  EXPECT_EQ(SessionOf(alloc.Status(), 1).value("state", ""), "suspended") << alloc.Status();
  p.Signal(SIGCONT);
  EXPECT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 2; }));
  EXPECT_EQ(SessionOf(alloc.Status(), 1).value("state", ""), "running") << alloc.Status();
  go.Go();
  EXPECT_EQ(p.Wait(), 0) << p.err();
}

TEST(Alloc, LauncherKilledTakesItsSessionDownOnEveryNode) {
  EmulatedAlloc alloc(2, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  Proc p({Bin("psched-exec"), "-n", "4", "sh", "-c", "echo pid $$; exec sleep 300"}, alloc.Env());
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 4; }));
  auto pids = Pids(p.out());
  auto start = std::chrono::steady_clock::now();
  p.Signal(SIGKILL);
  for (pid_t pid : pids) EXPECT_TRUE(Eventually([pid] { return ProcessGone(pid); }));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("session gone %.3f s after the launcher was killed\n", s);
  auto status = RunCmd({Bin("psched-ctl"), "status"}, alloc.Env());
  EXPECT_NE(status.out.find("sessions: 0"), std::string::npos) << status.out;
}

TEST(Alloc, DaemonKilledFailsOnlyTheSessionsWithRanksThere) {
  EmulatedAlloc alloc(3, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  auto start = [&](Proc& p) {
    return p.WaitStdout([](const std::string& s) { return CountLines(s, "pid") == 2; });
  };
  std::string cmd = "echo pid $$ node $PSCHED_NODE; " + go.WaitCmd();
  Proc a({Bin("psched-exec"), "-n", "2", "sh", "-c", cmd}, alloc.Env());
  ASSERT_TRUE(start(a));
  Proc b({Bin("psched-exec"), "-n", "2", "sh", "-c", cmd}, alloc.Env());
  ASSERT_TRUE(start(b));
  Proc c({Bin("psched-exec"), "-n", "2", "sh", "-c", cmd}, alloc.Env());
  ASSERT_TRUE(start(c));
  ASSERT_EQ(CountLines(c.out(), "node 2"), 2) << c.out();
  pid_t node2 = alloc.DaemonPid(2);
  ASSERT_GT(node2, 0);
  kill(node2, SIGKILL);
  // psched-alloc reaps it at once: no zombie is left while the allocation runs on.
  EXPECT_TRUE(Eventually([&] {
    return !std::filesystem::exists("/proc/" + std::to_string(node2));
  })) << "node 2's daemon is left a zombie";
  EXPECT_EQ(c.Wait(), 1);
  EXPECT_NE(c.err().find("lost node 2"), std::string::npos) << c.err();
  for (pid_t pid : Pids(c.out())) EXPECT_TRUE(Eventually([pid] { return ProcessGone(pid); }));
  for (pid_t pid : Pids(a.out())) EXPECT_FALSE(ProcessGone(pid)) << "session a was hurt";
  for (pid_t pid : Pids(b.out())) EXPECT_FALSE(ProcessGone(pid)) << "session b was hurt";
  auto status = RunCmd({Bin("psched-ctl"), "status"}, alloc.Env());
  EXPECT_NE(status.out.find("lost"), std::string::npos) << status.out;
  go.Go();
  EXPECT_EQ(a.Wait(), 0) << a.err();
  EXPECT_EQ(b.Wait(), 0) << b.err();
}

// After kill -9 of the leader nobody can launch, yet psched-alloc and CMD ran on for as
// long as anyone waited, with the daemons left as zombies. psched-alloc now notices at
// once (SIGCHLD), says which daemon died and how, ends CMD and stops the other daemons.
TEST(Alloc, LeaderKilledEndsTheCommandAndTheAllocationAndSaysHow) {
  Proc p({Bin("psched-alloc"), "-N", "3", "--topology", "core:2", "--fanout", "1", "--", "sh", "-c",
          "echo $$ $PSCHED_ALLOCATION; exec sleep 300"});
  ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s.find('\n') != s.npos; })) << p.err();
  pid_t cmd = -1;
  std::string dir;
  std::istringstream(p.out()) >> cmd >> dir;
  auto daemon = [&](const std::string& rundir) {
    auto pids = FindProcesses({"pschedd", "--rundir " + rundir + " "});
    return pids.empty() ? -1 : pids.front();
  };
  const pid_t leader = daemon(dir), node2 = daemon(dir + "/node-2");
  ASSERT_GT(leader, 0);
  ASSERT_GT(node2, 0);
  const auto start = std::chrono::steady_clock::now();
  kill(leader, SIGKILL);
  EXPECT_EQ(p.Wait(20), 1) << p.err();
  std::printf("psched-alloc ended %.3f s after the leader was killed\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  EXPECT_NE(p.err().find("the daemon of node 0 (the leader) ended: killed by signal 9"),
            std::string::npos)
      << p.err();
  EXPECT_TRUE(ProcessGone(cmd)) << "CMD still runs";
  EXPECT_TRUE(Eventually([&] { return ProcessGone(node2); })) << "node 2's daemon still runs";
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir << " left";
  if (!ProcessGone(cmd)) kill(cmd, SIGKILL);
}

TEST(Alloc, PassesTheCommandsExitCodeAndRejectsBadInput) {
  auto ok =
      RunCmd({Bin("psched-alloc"), "-N", "2", "--topology", "core:2", "--", "sh", "-c", "exit 5"});
  EXPECT_EQ(ok.code, 5) << ok.err;
  // A command that cannot run: the shell's 127, the reason, and the allocation stopped.
  auto missing = RunCmd({Bin("psched-alloc"), "-N", "1", "--", "/nonexistent/cmd"});
  EXPECT_EQ(missing.code, 127) << missing.err;
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/cmd': execvp: No such file or directory"),
            std::string::npos)
      << missing.err;
  auto zero = RunCmd({Bin("psched-alloc"), "-N", "0", "--", "true"});
  EXPECT_NE(zero.code, 0);
  EXPECT_NE(zero.err.find("nodes"), std::string::npos) << zero.err;
  auto topo = RunCmd({Bin("psched-alloc"), "-N", "2", "--topology", "blob:3", "--", "true"});
  EXPECT_NE(topo.code, 0);
  EXPECT_NE(topo.err.find("invalid synthetic topology"), std::string::npos) << topo.err;
  auto none = RunCmd({Bin("psched-alloc"), "-N", "2"});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no command given"), std::string::npos) << none.err;
  // As salloc: without "--" the command starts at its first word, its options are its own.
  auto own = RunCmd({Bin("psched-alloc"), "-N", "1", "sh", "-c", "echo $0 -v; exit 4", "x"});
  EXPECT_EQ(own.code, 4) << own.err;
  EXPECT_EQ(own.out, "x -v\n") << own.err;
  auto alloc = RunCmd({Bin("psched-alloc"), "--allocator", "nope", "--", "true"});
  EXPECT_NE(alloc.code, 0);
  EXPECT_NE(alloc.err.find("nope"), std::string::npos) << alloc.err;
}

// Emulated PUs beyond the real ones share real CPUs, and a timing taken there measures
// no placement: psched-alloc says so once on stderr (taskset leaves it one real CPU).
TEST(Alloc, WarnsOnceWhenEmulatedPusOutnumberTheRealOnes) {
  const std::string alloc =
      "taskset -c 0 " + Bin("psched-alloc") + " --topology 'pack:1 core:1 pu:1' ";
  auto folded = RunShell(alloc + "-N 2 -- true", {}, 60);
  EXPECT_EQ(folded.code, 0) << folded.err;
  EXPECT_NE(folded.err.find(
                "psched-alloc: warning: 2 emulated PUs (2 nodes x 1) fold onto the 1 real PUs"),
            std::string::npos)
      << folded.err;
  EXPECT_EQ(folded.err.find("warning", folded.err.find("warning") + 1), std::string::npos)
      << "said more than once:\n"
      << folded.err;
  auto fits = RunShell(alloc + "-N 1 -- true", {}, 60);
  EXPECT_EQ(fits.code, 0) << fits.err;
  EXPECT_EQ(fits.err.find("warning"), std::string::npos) << fits.err;
}

// psched-alloc started with stdin or stdout closed handed them out as its own pipes, and
// CMD inherited one of psched-alloc's pipes as its stdin. Every command now opens
// /dev/null onto a closed 0-2 first (GuardedMain), as srun and salloc give no input.
TEST(Alloc, ClosedStdioOfPschedAllocIsDevNullForTheCommand) {
  const std::string show = "for f in 0 1; do echo \"$f $(readlink /proc/$$/fd/$f)\" >&2; done";
  auto r = RunShell(Bin("psched-alloc") + " -N 1 -- sh -c '" + show + "' <&- >&-", {}, 60);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("0 /dev/null\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 /dev/null\n"), std::string::npos) << r.err;
}

// SIGTERM (a batch system's end, an admin) or SIGHUP (the terminal closed) took psched-alloc
// down by their default action: CMD ran on, and the directory, secret included, stayed.
// As salloc: they go to CMD, and the allocation ends after it, with CMD's status.
TEST(Alloc, TermAndHupGoToTheCommandAndTheAllocationEndsAfterIt) {
  struct Case {
    int sig;
    std::string cmd;
    int code;
  } cases[] = {
      {SIGTERM, "echo $$ $PSCHED_ALLOCATION; exec sleep 300", 128 + SIGTERM},
      {SIGHUP,
       "trap 'echo got HUP; exit 3' HUP; echo $$ $PSCHED_ALLOCATION; "
       "while :; do sleep 0.05; done",
       3},
  };
  for (const auto& c : cases) {
    Proc p({Bin("psched-alloc"), "-N", "2", "--topology", "core:2", "--", "sh", "-c", c.cmd});
    ASSERT_TRUE(p.WaitStdout([](const std::string& s) { return s.find('\n') != s.npos; }))
        << p.err();
    pid_t cmd = -1;
    std::string dir;
    std::istringstream(p.out()) >> cmd >> dir;
    ASSERT_TRUE(std::filesystem::exists(dir + "/secret")) << dir;
    p.Signal(c.sig);
    EXPECT_EQ(p.Wait(), c.code) << strsignal(c.sig) << ": " << p.err();
    EXPECT_TRUE(ProcessGone(cmd)) << strsignal(c.sig) << ": CMD still runs";
    EXPECT_FALSE(std::filesystem::exists(dir)) << strsignal(c.sig) << ": " << dir << " left";
    if (c.sig == SIGHUP) {
      EXPECT_NE(p.out().find("got HUP"), std::string::npos) << p.out();
    }
    if (!ProcessGone(cmd)) kill(cmd, SIGKILL);
  }
}

// The same while the daemons start: the allocation is stopped as soon as it is up, and
// CMD never runs. A copy of psched-alloc runs beside a pschedd wrapper that sends its
// parent SIGTERM when it starts node 1.
TEST(Alloc, TermWhileTheDaemonsStartStopsThemAndRunsNothing) {
  TempDir bin("psched-alloc-term");
  std::filesystem::copy_file(Bin("psched-alloc"), bin / "psched-alloc");
  std::ofstream(bin / "pschedd") << "#!/bin/sh\n"
                                    "echo $$ \"$*\" >> "
                                 << bin / "started"
                                 << "\n"
                                    "case \" $* \" in *\" --node 1 \"*) kill -TERM $PPID ;; esac\n"
                                    "exec "
                                 << Bin("pschedd") << " \"$@\"\n";
  std::filesystem::permissions(bin / "pschedd", std::filesystem::perms::owner_all);
  auto r =
      RunCmd({bin / "psched-alloc", "-N", "2", "--topology", "core:2", "--", "touch", bin / "ran"},
             {}, "", 60);
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.err;
  EXPECT_FALSE(std::filesystem::exists(bin / "ran")) << "CMD ran";
  std::ifstream started(bin / "started");
  int daemons = 0;
  for (std::string line; std::getline(started, line); ++daemons) {
    const pid_t pid = std::stoi(line);
    EXPECT_TRUE(Eventually([&] { return ProcessGone(pid); })) << "pschedd " << pid << " left";
    const auto at = line.find("--secret-file ") + 14;
    const std::string dir =
        std::filesystem::path(line.substr(at, line.find(' ', at) - at)).parent_path();
    EXPECT_FALSE(std::filesystem::exists(dir)) << dir << " left";
  }
  EXPECT_EQ(daemons, 2);
}

// A daemon that dies after announcing its port but before joining leaves the leader
// waiting for it: psched-alloc must notice, name the node and its last words, and stop
// the others. psched-alloc starts the pschedd beside itself, so a copy of it runs next
// to a pschedd that is the real one for every node but node 2 (a leaf of the tree).
TEST(Alloc, ADaemonDyingBeforeItJoinsFailsTheStartAndNamesTheNode) {
  TempDir bin("psched-alloc-crash");
  std::filesystem::copy_file(Bin("psched-alloc"), bin / "psched-alloc");
  std::ofstream(bin / "pschedd") << "#!/bin/sh\n"
                                    "case \" $* \" in *\" --node 2 \"*)\n"
                                    "  echo 'port 1' >&3\n"
                                    "  echo 'pschedd: node 2 crashes on purpose' >&2\n"
                                    "  exit 7 ;;\n"
                                    "esac\n"
                                    "echo $$ >> "
                                 << bin / "pids"
                                 << "\n"
                                    "exec "
                                 << Bin("pschedd") << " \"$@\"\n";
  std::filesystem::permissions(bin / "pschedd", std::filesystem::perms::owner_all);
  auto r =
      RunCmd({bin / "psched-alloc", "-N", "3", "--topology", "core:2", "--", "true"}, {}, "", 60);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, -1) << "psched-alloc still waited after 60 s";
  EXPECT_NE(r.err.find("node 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exit 7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("crashes on purpose"), std::string::npos) << r.err;
  std::vector<pid_t> started;
  std::ifstream pids(bin / "pids");
  for (pid_t pid; pids >> pid;) started.push_back(pid);
  EXPECT_EQ(started.size(), 2u) << "nodes 0 and 1 ran the real pschedd";
  for (pid_t pid : started)
    EXPECT_TRUE(Eventually([&] { return kill(pid, 0) != 0; })) << "pschedd " << pid << " left";
}

// psched-alloc must not override the admin's default allocator: without
// --allocator the config decides (spread puts one rank per node, compact would
// fill node 0); with --allocator the flag wins.
TEST(Alloc, ConfigDefaultAllocatorAppliesUnlessTheFlagOverridesIt) {
  auto conf = std::filesystem::temp_directory_path() /
              ("psched-alloc-spread-" + std::to_string(getpid()) + ".toml");
  std::ofstream(conf) << "[allocator]\ndefault = \"spread\"\n";
  auto nodes_of = [&](std::vector<std::string> alloc_flags) {
    std::vector<std::string> argv = {Bin("psched-alloc"), "-N", "4", "--topology", "core:4"};
    argv.insert(argv.end(), alloc_flags.begin(), alloc_flags.end());
    argv.insert(argv.end(), {"--", Bin("psched-exec"), "-n", "4", "sh", "-c", "echo $PSCHED_NODE"});
    auto r = RunCmd(argv, {"PSCHED_CONF=" + conf.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    std::multiset<std::string> nodes;
    for (const auto& line : Lines(r.out)) nodes.insert(line);
    return nodes;
  };
  EXPECT_EQ(nodes_of({}), (std::multiset<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(nodes_of({"--allocator", "compact"}), (std::multiset<std::string>{"0", "0", "0", "0"}));
  std::filesystem::remove(conf);
}

}  // namespace
}  // namespace psched::testing
