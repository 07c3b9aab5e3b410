// Co-scheduling in the running daemons, on an emulated 4-node x 40-PU allocation
// (the paper's configuration): a simulation of 160 ranks (or 32 x 5 threads), then
// an analysis of 32 ranks (or 8 x 4 threads) under each policy. Checked for real:
// placement and use counts from psched-ctl status --json, the affinity of every
// process and thread from /proc, process states, and that everything is restored
// and free at the end.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "daemon/node/repin.hpp"
#include "daemon/node/topology.hpp"
#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

using Json = nlohmann::json;
constexpr int kNodes = 4;
constexpr int kPus = 40;

class CoschedTest : public ::testing::Test {
 protected:
  // Starts the allocation with the admin config `toml` (empty: none).
  void StartAlloc(const std::string& toml = "") {
    alloc_ = std::make_unique<EmulatedAlloc>(kNodes, "pack:2 core:20 pu:1", 8, toml);
    ASSERT_TRUE(alloc_->ok()) << alloc_->Diagnosis();
    real_ = *daemon::RealPuOsIndices();
  }
  void TearDown() override { alloc_.reset(); }

  std::unique_ptr<Proc> Exec(std::vector<std::string> args) {
    return alloc_->Exec(std::move(args));
  }
  Json Status() { return alloc_->Status(); }
  Json Session(const Json& status, int id) { return SessionOf(status, id); }
  // Waits until session `id` is in `state` with all its `ranks` processes (and `threads`
  // threads each) visible; returns them by rank.
  std::map<int, RankProc> WaitRanks(const std::string& comm, int id, int ranks, int threads = 1) {
    std::map<int, RankProc> by_rank;
    EXPECT_TRUE(Eventually(
        [&] {
          by_rank.clear();
          for (const RankProc& r : AllocationRanks(alloc_->dir(), comm)) {
            if (r.session == id && static_cast<int>(Threads(r.pid).size()) == threads)
              by_rank[r.rank] = r;
          }
          return static_cast<int>(by_rank.size()) == ranks;
        },
        60))
        << "session " << id << ": " << by_rank.size() << " of " << ranks << " ranks";
    return by_rank;
  }
  // The real CPUs that logical `pus` of emulated node `node` are bound to.
  std::string Expected(int node, const std::vector<int>& pus) {
    cpu_set_t set = daemon::CpuSetFor(pus, daemon::RealPusOfEmulatedNode(real_, node, kPus));
    std::string out;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) {
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
        out += (out.empty() ? "" : ",") + std::to_string(c) +
               (end > c ? "-" + std::to_string(end) : "");
        c = end;
      }
    }
    return out;
  }
  // Every thread of every rank of `id` is bound to what the daemon recorded for it.
  void ExpectPinned(const Json& status, int id, const std::map<int, RankProc>& procs) {
    Json s = Session(status, id);
    ASSERT_EQ(s.value("placement", Json::array()).size(), procs.size()) << s.dump();
    for (const auto& r : s["placement"]) {
      int rank = r["rank"];
      auto it = procs.find(rank);
      ASSERT_NE(it, procs.end()) << "rank " << rank;
      EXPECT_EQ(it->second.node, r.value("node", -1)) << "rank " << rank;
      std::vector<int> pus = r["pus"];
      if (s.value("floating", false)) {
        pus.clear();
        for (int p = 0; p < kPus; ++p) pus.push_back(p);
      }
      for (pid_t tid : Threads(it->second.pid)) {
        EXPECT_EQ(ThreadCpusAllowed(it->second.pid, tid), Expected(it->second.node, pus))
            << "session " << id << " rank " << rank << " thread " << tid;
      }
    }
  }
  void ExpectStates(const std::map<int, RankProc>& procs, char state) {
    for (const auto& [rank, r] : procs) {
      EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == state; }, 20))
          << "rank " << rank << " pid " << r.pid << " is " << ProcessState(r.pid) << ", not "
          << state;
    }
  }
  std::vector<int> Uses(const Json& status, int node) {
    return status["nodes"][node].value("uses", std::vector<int>{});
  }
  void ExpectAllFree() {
    Json st;
    ASSERT_TRUE(Eventually([&] {
      st = Status();
      return st.value("sessions", Json::array()).empty() && st.value("free", -1) == kNodes * kPus;
    })) << st.dump();
    for (int n = 0; n < kNodes; ++n)
      for (int u : Uses(st, n)) EXPECT_EQ(u, 0);
  }
  // The simulation: 160 slots, every slot used once.
  std::map<int, RankProc> StartSim(bool threads) {
    sim_ = threads ? Exec({"-n", "32", "-c", "5", Bin("cosched_threads"), "5"})
                   : Exec({"-n", "160", Bin("cosched_threads"), "1"});
    auto procs = WaitRanks("cosched_threads", 1, threads ? 32 : 160, threads ? 5 : 1);
    Json st = Status();
    EXPECT_EQ(Session(st, 1).value("state", ""), "running") << st.dump();
    for (int n = 0; n < kNodes; ++n) EXPECT_EQ(Uses(st, n), std::vector<int>(kPus, 1));
    ExpectPinned(st, 1, procs);
    return procs;
  }
  std::unique_ptr<Proc> StartAnalysis(bool threads, const std::string& policy, bool spread) {
    // The user's own 0: overbooking sets yield-when-idle over it, while the default a
    // folded emulation (40 PUs per node on this host) gives would leave it alone.
    std::vector<std::string> args = {"--policy", policy, "-x", "OMPI_MCA_mpi_yield_when_idle=0"};
    if (spread) args.push_back("--spread");
    for (const auto& a : threads ? std::vector<std::string>{"-n", "8", "-c", "4"}
                                 : std::vector<std::string>{"-n", "32"})
      args.push_back(a);
    args.push_back(Bin("cosched_threads"));
    args.push_back(threads ? "4" : "1");
    return Exec(args);
  }
  void Kill(int id) {
    ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", std::to_string(id)}, alloc_->Env()).code, 0);
  }
  void EndAll(std::unique_ptr<Proc>& analysis) {
    if (analysis) {
      Kill(2);
      EXPECT_EQ(analysis->Wait(), 128 + SIGKILL) << analysis->err();
    }
  }

  std::unique_ptr<EmulatedAlloc> alloc_;
  std::unique_ptr<Proc> sim_;
  std::vector<int> real_;
};

// Slots of `node` the session's placement uses.
std::set<int> PusOn(const Json& session, int node) {
  std::set<int> pus;
  for (const auto& r : session.value("placement", Json::array())) {
    if (r.value("node", -1) == node)
      for (int p : r["pus"]) pus.insert(p);
  }
  return pus;
}

struct Case {
  bool threads;
  bool spread;
};
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.threads ? "Threads" : "Ranks") +
         (info.param.spread ? "Spread" : "Compact");
}

class CoschedPolicyTest : public CoschedTest, public ::testing::WithParamInterface<Case> {};

TEST_P(CoschedPolicyTest, SurpassSuspendsTheSimulationAndResumesIt) {
  StartAlloc();
  auto [threads, spread] = GetParam();
  auto sim = StartSim(threads);
  auto analysis = StartAnalysis(threads, "surpass", spread);
  auto procs = WaitRanks("cosched_threads", 2, threads ? 8 : 32, threads ? 4 : 1);
  Json st = Status();
  EXPECT_EQ(Session(st, 1).value("state_detail", ""), "suspended by 2") << st.dump();
  EXPECT_EQ(Session(st, 2).value("state", ""), "running");
  ExpectStates(sim, 'T');  // the whole simulation, on every node
  // Only the surpasser's end resumes it: psched-ctl resume is refused, saying why.
  auto resume = RunCmd({Bin("psched-ctl"), "resume", "1"}, alloc_->Env());
  EXPECT_NE(resume.code, 0);
  EXPECT_NE(resume.err.find("suspended by session 2"), std::string::npos) << resume.err;
  ExpectStates(sim, 'T');
  for (const auto& [rank, r] : procs) EXPECT_NE(ProcessState(r.pid), 'T');
  ExpectPinned(st, 2, procs);
  int used = 0;
  for (int n = 0; n < kNodes; ++n) {
    for (int u : Uses(st, n)) {
      EXPECT_LE(u, 1) << "surpass never shares a slot";
      used += u;
    }
  }
  EXPECT_EQ(used, 32);
  if (spread) {
    for (int n = 0; n < kNodes; ++n) EXPECT_EQ(PusOn(Session(st, 2), n).size(), 8u);
  }
  EndAll(analysis);
  ASSERT_TRUE(Eventually([&] { return Session(Status(), 1).value("state", "") == "running"; }));
  ExpectStates(sim, 'S');
  st = Status();
  ExpectPinned(st, 1, sim);
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(Uses(st, n), std::vector<int>(kPus, 1));
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

TEST_P(CoschedPolicyTest, SidestepRepinsEveryThreadAndRestoresIt) {
  StartAlloc();
  auto [threads, spread] = GetParam();
  auto sim = StartSim(threads);
  Json before = Session(Status(), 1);
  auto analysis = StartAnalysis(threads, "sidestep", spread);
  auto procs = WaitRanks("cosched_threads", 2, threads ? 8 : 32, threads ? 4 : 1);
  Json st = Status();
  Json a = Session(st, 2), s = Session(st, 1);
  EXPECT_EQ(s.value("state_detail", ""), "sidestepped by 2") << st.dump();
  EXPECT_TRUE(a.value("exclusive", false));
  ExpectStates(sim, 'S');
  ExpectPinned(st, 2, procs);
  ExpectPinned(st, 1, sim);  // every thread moved where the daemon says
  for (int n = 0; n < kNodes; ++n) {
    std::set<int> mine = PusOn(a, n);
    std::vector<int> uses = Uses(st, n);
    for (int p : mine) EXPECT_EQ(uses[p], 1) << "node " << n << " slot " << p << " is shared";
    for (int p : PusOn(s, n)) EXPECT_FALSE(mine.contains(p)) << "node " << n << " slot " << p;
    int total = 0;
    for (int u : uses) total += u;
    EXPECT_EQ(total, kPus + static_cast<int>(mine.size())) << "node " << n;
  }
  if (spread) {
    for (int n = 0; n < kNodes; ++n) EXPECT_EQ(PusOn(a, n).size(), 8u);
  } else {
    EXPECT_EQ(PusOn(a, 0).size(), 32u);
  }
  EndAll(analysis);
  ASSERT_TRUE(Eventually([&] { return Session(Status(), 1).value("state", "") == "running"; }));
  st = Status();
  EXPECT_EQ(Session(st, 1)["placement"], before["placement"]) << "pinning restored";
  ExpectPinned(st, 1, sim);
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(Uses(st, n), std::vector<int>(kPus, 1));
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

TEST_P(CoschedPolicyTest, OverbookSharesTheLeastUsedSlots) {
  StartAlloc();
  auto [threads, spread] = GetParam();
  auto sim = StartSim(threads);
  auto analysis = StartAnalysis(threads, "overbook", spread);
  auto procs = WaitRanks("cosched_threads", 2, threads ? 8 : 32, threads ? 4 : 1);
  Json st = Status();
  EXPECT_EQ(Session(st, 2).value("state", ""), "overbooked") << st.dump();
  ExpectStates(sim, 'S');
  ExpectPinned(st, 1, sim);
  ExpectPinned(st, 2, procs);
  for (const auto& [rank, r] : procs)
    EXPECT_EQ(EnvInt(r.env, "OMPI_MCA_mpi_yield_when_idle"), 1) << "rank " << rank;
  int twice = 0;
  for (int n = 0; n < kNodes; ++n) {
    for (int u : Uses(st, n)) {
      EXPECT_GE(u, 1);
      EXPECT_LE(u, 2);
      twice += u == 2;
    }
  }
  EXPECT_EQ(twice, 32);
  if (spread) {
    for (int n = 0; n < kNodes; ++n) EXPECT_EQ(PusOn(Session(st, 2), n).size(), 8u);
  }
  EndAll(analysis);
  ASSERT_TRUE(Eventually([&] {
    Json now = Status();
    return now.value("free", -1) == 0 && Session(now, 2).is_object() && Session(now, 2).empty();
  }));
  st = Status();
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(Uses(st, n), std::vector<int>(kPus, 1));
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

INSTANTIATE_TEST_SUITE_P(Paper, CoschedPolicyTest,
                         ::testing::Values(Case{false, false}, Case{false, true}, Case{true, false},
                                           Case{true, true}),
                         CaseName);

// Nested surpass (paper, section 3): A suspended by B, B suspended by C; C ends: B
// resumes (A stays stopped); B ends: A resumes.
TEST_F(CoschedTest, NestedSurpassResumesInReverseOrder) {
  StartAlloc();
  auto a = StartSim(false);
  auto b_proc = StartAnalysis(false, "surpass", false);
  auto b = WaitRanks("cosched_threads", 2, 32);
  auto c_proc = StartAnalysis(false, "surpass", false);
  auto c = WaitRanks("cosched_threads", 3, 32);
  Json st = Status();
  EXPECT_EQ(Session(st, 1).value("state_detail", ""), "suspended by 2") << st.dump();
  EXPECT_EQ(Session(st, 2).value("state_detail", ""), "suspended by 3") << st.dump();
  EXPECT_EQ(Session(st, 3).value("state", ""), "running");
  ExpectStates(a, 'T');
  ExpectStates(b, 'T');
  ExpectStates(c, 'S');
  ExpectPinned(st, 3, c);
  Kill(3);
  EXPECT_EQ(c_proc->Wait(), 128 + SIGKILL);
  ASSERT_TRUE(Eventually([&] { return Session(Status(), 2).value("state", "") == "running"; }));
  ExpectStates(b, 'S');
  for (const auto& [rank, r] : a) EXPECT_EQ(ProcessState(r.pid), 'T') << "rank " << rank;
  EXPECT_EQ(Session(Status(), 1).value("state", ""), "suspended");
  Kill(2);
  EXPECT_EQ(b_proc->Wait(), 128 + SIGKILL);
  ASSERT_TRUE(Eventually([&] { return Session(Status(), 1).value("state", "") == "running"; }));
  ExpectStates(a, 'S');
  st = Status();
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(Uses(st, n), std::vector<int>(kPus, 1));
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

// overbook_mode = "float" (admin config): each analysis rank is bound to all of its
// node's slots ("0-1" on the 2-core host, where a pinned rank gets one CPU).
TEST_F(CoschedTest, OverbookFloatBindsToTheWholeNode) {
  StartAlloc("[policy]\noverbook_mode = \"float\"\n");
  auto sim = StartSim(false);
  auto analysis = StartAnalysis(false, "overbook", false);
  auto procs = WaitRanks("cosched_threads", 2, 32);
  Json st = Status();
  EXPECT_TRUE(Session(st, 2).value("floating", false)) << st.dump();
  ExpectPinned(st, 2, procs);
  std::vector<int> node(kPus);
  for (int p = 0; p < kPus; ++p) node[static_cast<size_t>(p)] = p;
  for (const auto& [rank, r] : procs) {
    EXPECT_EQ(CpusAllowed(r.pid), Expected(r.node, node)) << "rank " << rank;
    EXPECT_EQ(EnvInt(r.env, "OMPI_MCA_mpi_yield_when_idle"), 1) << "rank " << rank;
  }
  ExpectPinned(st, 1, sim);
  EndAll(analysis);
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

TEST_F(CoschedTest, WaitQueuesAndSaysWhyThenStartsAtTheEnd) {
  StartAlloc();
  auto sim = StartSim(false);
  auto analysis = StartAnalysis(false, "wait", false);
  ASSERT_TRUE(analysis->WaitStdout(
      [&](const std::string&) { return analysis->err().find("waits for") != std::string::npos; }));
  // The shell-visible line, printed once after 1 s.
  EXPECT_NE(analysis->err().find("psched-exec: session 2 waits for 32 slots: 0 free"),
            std::string::npos)
      << analysis->err();
  Json st = Status();
  EXPECT_EQ(Session(st, 2).value("state_detail", ""), "queued at position 1") << st.dump();
  ExpectStates(sim, 'S');
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  auto procs = WaitRanks("cosched_threads", 2, 32);
  st = Status();
  EXPECT_EQ(Session(st, 2).value("state", ""), "running");
  ExpectPinned(st, 2, procs);
  EndAll(analysis);
  ExpectAllFree();
}

TEST_F(CoschedTest, QuietWaitPrintsNothing) {
  StartAlloc();
  auto sim = StartSim(false);
  auto analysis = Exec({"-q", "--policy", "wait", "-n", "32", Bin("cosched_threads"), "1"});
  ASSERT_TRUE(Eventually(
      [&] { return Session(Status(), 2).value("state_detail", "") == "queued at position 1"; }));
  Kill(2);
  EXPECT_EQ(analysis->Wait(), 128 + SIGKILL);
  EXPECT_EQ(analysis->err().find("waits for"), std::string::npos) << analysis->err();
  Kill(1);
  EXPECT_EQ(sim_->Wait(), 128 + SIGKILL);
  ExpectAllFree();
}

TEST_F(CoschedTest, UnknownPolicyIsAClearErrorNamingTheAllowedSet) {
  StartAlloc();
  auto r = RunCmd({Bin("psched-exec"), "--policy", "nonsense", "true"}, alloc_->Env());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("nonsense"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wait, surpass, overbook, sidestep"), std::string::npos) << r.err;
}

TEST_F(CoschedTest, ForbiddenPolicyIsAClearErrorNamingTheAllowedSet) {
  StartAlloc("[policy]\ndefault = \"wait\"\nallowed = [\"wait\", \"overbook\"]\n");
  auto r = RunCmd({Bin("psched-exec"), "--policy", "surpass", "true"}, alloc_->Env());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("surpass"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wait, overbook"), std::string::npos) << r.err;
  // What the admin allows still runs.
  EXPECT_EQ(RunCmd({Bin("psched-exec"), "--policy", "overbook", "true"}, alloc_->Env()).code, 0);
}

// On a 2-core host the paper's 40-PU nodes fold onto 2 CPUs, so most re-pinnings look
// alike from /proc. Here they cannot: one node of 4 PUs, a simulation of 2 ranks x 2
// PUs ("0-1" each) running `sim_command`, then a sidestepper of 3 PUs leaves them one
// PU, a single CPU. Every cosched_threads process of the simulation (the rank, or the
// rank's child when the rank is a wrapper) and each of its threads moves and comes back.
void ExpectSidestepMovesTheSimulationAndRestoresIt(std::vector<std::string> sim_command) {
  EmulatedAlloc alloc(1, "core:4");
  ASSERT_TRUE(alloc.ok());
  auto ctl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), Bin("psched-ctl"));
    return RunCmd(args, alloc.Env());
  };
  sim_command.insert(sim_command.begin(), {Bin("psched-exec"), "-n", "2", "-c", "2"});
  Proc sim(sim_command, alloc.Env());
  std::vector<RankProc> ranks;
  auto threads_of_session = [&](int id, int count) {
    return Eventually([&] {
      ranks.clear();
      for (const RankProc& r : AllocationRanks(alloc.dir(), "cosched_threads"))
        if (r.session == id && Threads(r.pid).size() == 3u) ranks.push_back(r);
      return static_cast<int>(ranks.size()) == count;
    });
  };
  ASSERT_TRUE(threads_of_session(1, 2));
  std::vector<RankProc> sim_ranks = ranks;
  for (const RankProc& r : sim_ranks)
    for (pid_t tid : Threads(r.pid)) EXPECT_EQ(ThreadCpusAllowed(r.pid, tid), "0-1");
  Proc side({Bin("psched-exec"), "--policy", "sidestep", "-n", "1", "-c", "3",
             Bin("cosched_threads"), "3"},
            alloc.Env());
  ASSERT_TRUE(threads_of_session(2, 1));
  for (const RankProc& r : sim_ranks) {
    for (pid_t tid : Threads(r.pid)) {
      std::string cpus = ThreadCpusAllowed(r.pid, tid);
      EXPECT_TRUE(cpus == "0" || cpus == "1")
          << "rank " << r.rank << " thread " << tid << ": " << cpus << " (not moved to one slot)";
    }
  }
  ASSERT_EQ(ctl({"kill", "2"}).code, 0);
  EXPECT_EQ(side.Wait(), 128 + SIGKILL);
  for (const RankProc& r : sim_ranks) {
    for (pid_t tid : Threads(r.pid)) {
      EXPECT_TRUE(Eventually([&] { return ThreadCpusAllowed(r.pid, tid) == "0-1"; }))
          << "rank " << r.rank << " thread " << tid
          << " not restored: " << ThreadCpusAllowed(r.pid, tid);
    }
  }
  ASSERT_EQ(ctl({"kill", "1"}).code, 0);
  EXPECT_EQ(sim.Wait(), 128 + SIGKILL);
}

TEST(CoschedRepinTest, SidestepChangesTheRealAffinityAndRestoresIt) {
  ExpectSidestepMovesTheSimulationAndRestoresIt({Bin("cosched_threads"), "3"});
}

// A rank that is a wrapper (sh -c, a script, time, numactl) runs its workload in a
// child: that child is what must leave the sidestepper's slots.
TEST(CoschedRepinTest, SidestepMovesTheWorkloadOfAWrapperRankAndRestoresIt) {
  ExpectSidestepMovesTheSimulationAndRestoresIt({"sh", "-c", Bin("cosched_threads") + " 3; true"});
}

// The 4 cosched_threads ranks of a "tstp" session, once each has its SIGTSTP handler in
// place (a rank is visible before it installs it, and a SIGTSTP then stops it silently).
bool FourRanksCatchingSigtstp(const EmulatedAlloc& alloc, std::vector<RankProc>& ranks) {
  ranks = AllocationRanks(alloc.dir(), "cosched_threads");
  return ranks.size() == 4u && std::all_of(ranks.begin(), ranks.end(), [](const RankProc& r) {
           return CatchesSignal(r.pid, SIGTSTP);
         });
}

// The surpass grace has begun: each of the 4 cosched_threads ranks reported its SIGTSTP.
bool EveryRankCaughtSigtstp(const std::string& out) {
  for (const char* r : {"rank 0\n", "rank 1\n", "rank 2\n", "rank 3\n"})
    if (out.find(std::string("SIGTSTP ") + r) == std::string::npos) return false;
  return true;
}

// surpass_grace_s from the admin's config: SIGTSTP first (a program may reach a safe
// point), SIGSTOP after the grace; status says who suspended whom.
TEST(CoschedGraceTest, SurpassSendsSigtstpThenStops) {
  EmulatedAlloc alloc(1, "core:4", 8, "[policy]\nsurpass_grace_s = 0.2\n");
  ASSERT_TRUE(alloc.ok());
  Proc sim({Bin("psched-exec"), "-n", "4", Bin("cosched_threads"), "1", "tstp"}, alloc.Env());
  std::vector<RankProc> ranks;
  ASSERT_TRUE(Eventually([&] { return FourRanksCatchingSigtstp(alloc, ranks); }));
  Proc analysis({Bin("psched-exec"), "--policy", "surpass", "-n", "1", Bin("cosched_threads"), "1"},
                alloc.Env());
  ASSERT_TRUE(sim.WaitStdout(EveryRankCaughtSigtstp)) << sim.out();
  for (const RankProc& r : ranks)
    EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == 'T'; })) << "rank " << r.rank;
  auto status = RunCmd({Bin("psched-ctl"), "status"}, alloc.Env());
  EXPECT_NE(status.out.find("suspended by 2"), std::string::npos) << status.out;
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "2"}, alloc.Env()).code, 0);
  EXPECT_EQ(analysis.Wait(), 128 + SIGKILL);
  for (const RankProc& r : ranks)
    EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == 'S'; })) << "rank " << r.rank;
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, alloc.Env()).code, 0);
  EXPECT_EQ(sim.Wait(), 128 + SIGKILL);
}

// A surpasser whose launcher dies during the grace never starts: nobody would see its
// output or its end, and the session it displaced would stay suspended until it ended.
// Its slots go back and the displaced session resumes once the plan is over.
TEST(CoschedGraceTest, ArrivalWhoseLauncherDiesDuringTheGraceNeverStarts) {
  EmulatedAlloc alloc(1, "core:4", 8, "[policy]\nsurpass_grace_s = 2\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  Proc sim({Bin("psched-exec"), "-n", "4", Bin("cosched_threads"), "1", "tstp"}, alloc.Env());
  std::vector<RankProc> ranks;
  ASSERT_TRUE(Eventually([&] { return FourRanksCatchingSigtstp(alloc, ranks); }));
  TempDir dir;
  const std::string marker = dir / "started";
  Proc analysis({Bin("psched-exec"), "--policy", "surpass", "-n", "1", "touch", marker},
                alloc.Env());
  ASSERT_TRUE(sim.WaitStdout(EveryRankCaughtSigtstp)) << sim.out();
  analysis.Signal(SIGKILL);
  EXPECT_EQ(analysis.Wait(), 128 + SIGKILL);
  EXPECT_TRUE(Eventually([&] { return SessionOf(alloc.Status(), 2).empty(); }))
      << alloc.Status().dump();
  for (const RankProc& r : ranks)
    EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) != 'T'; })) << "rank " << r.rank;
  EXPECT_EQ(SessionOf(alloc.Status(), 1).value("state", ""), "running") << alloc.Status().dump();
  EXPECT_FALSE(std::filesystem::exists(marker)) << "session 2 started with no launcher";
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, alloc.Env()).code, 0);
  EXPECT_EQ(sim.Wait(), 128 + SIGKILL);
}

// Waits until session `id` of `alloc` has `count` ranks named `comm`; returns their pids.
std::vector<pid_t> SessionPids(const EmulatedAlloc& alloc, int id, const std::string& comm,
                               int count) {
  std::vector<pid_t> pids;
  EXPECT_TRUE(Eventually([&] {
    pids.clear();
    for (const RankProc& r : AllocationRanks(alloc.dir(), comm))
      if (r.session == id) pids.push_back(r.pid);
    return static_cast<int>(pids.size()) == count;
  })) << "session "
      << id << ": " << pids.size() << " of " << count << " " << comm;
  return pids;
}

bool AllIn(const std::vector<pid_t>& pids, char state) {
  for (pid_t pid : pids)
    if (ProcessState(pid) != state) return false;
  return true;
}

// A user's suspend (psched-ctl suspend, Ctrl-Z) keeps the session's slots: a queued
// session does not start on them, so the resume has them back and nothing is
// overbooked (the queued session used to start there, and the resume then pinned two
// sessions on each slot while status said both were running).
TEST(CoschedUserSuspend, SuspendedSessionKeepsItsSlotsSoItsResumeNeverOverbooks) {
  EmulatedAlloc alloc(1, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  auto ctl = [&](const std::string& verb, int id) {
    return RunCmd({Bin("psched-ctl"), verb, std::to_string(id)}, alloc.Env());
  };
  auto session = [&](const Json& status, int id) { return SessionOf(status, id); };
  auto first = alloc.Exec({"-n", "1", "sleep", "1000"});
  std::vector<pid_t> first_pids = SessionPids(alloc, 1, "sleep", 1);
  GoFile go;
  auto other = alloc.Exec({"-n", "1", "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(
      Eventually([&] { return session(alloc.Status(), 2).value("state", "") == "running"; }));
  auto queued = alloc.Exec({"--policy", "wait", "-n", "2", "sleep", "1000"});
  ASSERT_TRUE(
      Eventually([&] { return session(alloc.Status(), 3).value("state", "") == "queued"; }));

  auto suspended = ctl("suspend", 1);
  EXPECT_EQ(suspended.code, 0) << suspended.err;
  EXPECT_NE(suspended.out.find("session 1 suspended"), std::string::npos) << suspended.out;
  EXPECT_TRUE(Eventually([&] { return AllIn(first_pids, 'T'); }));
  Json st = alloc.Status();
  EXPECT_EQ(session(st, 1).value("state_detail", ""), "suspended by user") << st.dump();
  // Session 2 ends: its slot frees, session 1 keeps its own, session 3 still waits.
  go.Go();
  EXPECT_EQ(other->Wait(), 0) << other->err();
  st = alloc.Status();
  EXPECT_EQ(session(st, 3).value("state", ""), "queued") << st.dump();
  EXPECT_EQ(st["nodes"][0].value("uses", std::vector<int>{}), (std::vector<int>{1, 0}));

  auto resumed = ctl("resume", 1);
  EXPECT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("session 1 resumed"), std::string::npos) << resumed.out;
  EXPECT_TRUE(Eventually([&] { return AllIn(first_pids, 'S'); }));
  st = alloc.Status();
  EXPECT_EQ(session(st, 1).value("state", ""), "running") << st.dump();
  EXPECT_EQ(session(st, 3).value("state", ""), "queued") << st.dump();
  // Session 1 ends: session 3 starts on both slots, each used once.
  ctl("kill", 1);
  EXPECT_EQ(first->Wait(), 128 + SIGKILL);
  SessionPids(alloc, 3, "sleep", 2);
  st = alloc.Status();
  EXPECT_EQ(st["nodes"][0].value("uses", std::vector<int>{}), (std::vector<int>{1, 1}));
  ctl("kill", 3);
  EXPECT_EQ(queued->Wait(), 128 + SIGKILL);
}

// Ctrl-Z on a session a surpass suspended is not forgotten: when the surpasser ends the
// session stays stopped, as its launcher does in the shell, until fg.
TEST(CoschedUserSuspend, CtrlZOnASurpassedSessionOutlastsItsSurpasser) {
  EmulatedAlloc alloc(1, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  auto detail = [&](int id) { return SessionOf(alloc.Status(), id).value("state_detail", ""); };
  auto first = alloc.Exec({"-n", "2", "sleep", "1000"});
  std::vector<pid_t> pids = SessionPids(alloc, 1, "sleep", 2);
  GoFile go;
  auto surpasser = alloc.Exec({"--policy", "surpass", "-n", "2", "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(Eventually([&] { return detail(1) == "suspended by 2"; })) << alloc.Status().dump();
  EXPECT_TRUE(Eventually([&] { return AllIn(pids, 'T'); }));
  ASSERT_TRUE(Eventually([&] { return CatchesSignal(first->pid(), SIGTSTP); }));
  first->Signal(SIGTSTP);
  EXPECT_TRUE(Eventually([&] { return ProcessState(first->pid()) == 'T'; })) << first->err();
  EXPECT_EQ(detail(1), "suspended by 2 and user");

  go.Go();
  EXPECT_EQ(surpasser->Wait(), 0) << surpasser->err();
  EXPECT_EQ(detail(1), "suspended by user") << alloc.Status().dump();
  EXPECT_TRUE(AllIn(pids, 'T')) << "the surpasser's end resumed a session the user stopped";
  EXPECT_EQ(ProcessState(first->pid()), 'T');
  // fg: the launcher and the ranks run again.
  first->Signal(SIGCONT);
  EXPECT_TRUE(Eventually([&] { return detail(1) == "running"; })) << alloc.Status().dump();
  EXPECT_TRUE(Eventually([&] { return AllIn(pids, 'S'); }));
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, alloc.Env()).code, 0);
  EXPECT_EQ(first->Wait(), 128 + SIGKILL);
}

// Three sessions suspended by one surpass on a node share one grace: the plan needs one
// grace and the stops, which the leader allows (plan_timeout_s + the grace), however
// many sessions it suspends there.
TEST(CoschedGraceTest, VictimsOnANodeShareOneGrace) {
  EmulatedAlloc alloc(1, "core:3", 8,
                      "[policy]\nsurpass_grace_s = 2\nplan_timeout_s = 3\n"
                      "suspend_confirm_timeout_s = 1\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  std::vector<std::unique_ptr<Proc>> victims;
  for (int id = 1; id <= 3; ++id) {
    victims.push_back(alloc.Exec({"-n", "1", "sh", "-c", go.WaitCmd()}));
    ASSERT_TRUE(
        Eventually([&] { return SessionOf(alloc.Status(), id).value("state", "") == "running"; }));
  }
  auto arrival = alloc.Exec({"--policy", "surpass", "-n", "3", "echo", "ran"});
  EXPECT_EQ(arrival->Wait(), 0) << arrival->err();
  EXPECT_EQ(arrival->out(), "ran\nran\nran\n");
  go.Go();
  for (auto& v : victims) EXPECT_EQ(v->Wait(), 0) << v->err();
}

// kill -TERM to the launcher of a session that a surpass suspended: the ranks get the
// signal (their handler runs) and are then stopped again. The session stays what status
// says (suspended by 2), off the slots of the session that displaced it, and resumes
// when that one ends.
TEST(CoschedSignalTest, FatalSignalToASuspendedSessionActsThenItStaysSuspended) {
  EmulatedAlloc alloc(1, "core:2");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  Proc a({Bin("psched-exec"), "-n", "2", "sh", "-c",
          "trap 'echo rank $PSCHED_RANK got TERM' TERM; while :; do sleep 0.05; done"},
         alloc.Env());
  std::vector<RankProc> ranks;
  ASSERT_TRUE(Eventually([&] {
    ranks = AllocationRanks(alloc.dir(), "sh");
    std::erase_if(ranks, [](const RankProc& r) { return r.session != 1; });
    return ranks.size() == 2u && std::all_of(ranks.begin(), ranks.end(), [](const RankProc& r) {
             return CatchesSignal(r.pid, SIGTERM);
           });
  }));
  GoFile go;
  Proc b({Bin("psched-exec"), "--policy", "surpass", "-n", "2", "sh", "-c", go.WaitCmd()},
         alloc.Env());
  ASSERT_TRUE(Eventually(
      [&] { return SessionOf(alloc.Status(), 1).value("state_detail", "") == "suspended by 2"; }));
  for (const RankProc& r : ranks)
    ASSERT_TRUE(Eventually([&] { return HeldStopped(r.pid); })) << "rank " << r.rank;
  a.Signal(SIGTERM);
  ASSERT_TRUE(a.WaitStdout([](const std::string& out) {
    return out.find("rank 0 got TERM") != std::string::npos &&
           out.find("rank 1 got TERM") != std::string::npos;
  })) << a.out();
  for (const RankProc& r : ranks) {
    EXPECT_TRUE(Eventually([&] { return HeldStopped(r.pid); }))
        << "rank " << r.rank << " runs on while status says suspended";
  }
  EXPECT_EQ(SessionOf(alloc.Status(), 1).value("state_detail", ""), "suspended by 2");
  go.Go();
  EXPECT_EQ(b.Wait(), 0) << b.err();
  EXPECT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 1).value("state", "") == "running"; }));
  for (const RankProc& r : ranks)
    EXPECT_TRUE(Eventually([&] { return !HeldStopped(r.pid); })) << "rank " << r.rank;
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, alloc.Env()).code, 0);
  EXPECT_EQ(a.Wait(), 128 + SIGKILL);
}

TEST(CoschedConfigTest, MalformedConfigStopsTheDaemonsWithFileAndLine) {
  auto conf = std::filesystem::temp_directory_path() /
              ("psched-cosched-bad-" + std::to_string(getpid()) + ".toml");
  std::ofstream(conf) << "[policy]\ndefault = \"wait\"\npolcy = 3\n";
  auto r = RunCmd({Bin("psched-alloc"), "-N", "2", "--", "true"}, {"PSCHED_CONF=" + conf.string()});
  std::filesystem::remove(conf);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(conf.filename().string() + ":3"), std::string::npos) << r.err;
}

// A blocker of `blocker_ranks` fills the allocation; `first` and then `second` queue
// behind it. The admin's [priority] module must put `second` ahead (fcfs would not);
// then all three run to the end.
void ExpectLaterSessionQueuedFirst(const EmulatedAlloc& alloc, const std::string& blocker_ranks,
                                   const std::vector<std::string>& first,
                                   const std::vector<std::string>& second) {
  GoFile go;
  auto blocker = alloc.Exec({"-n", blocker_ranks, "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 1).value("state", "") == "running"; }));
  auto early = alloc.Exec(first);
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 2).value("state", "") == "queued"; }));
  auto late = alloc.Exec(second);
  EXPECT_TRUE(Eventually([&] {
    return SessionOf(alloc.Status(), 3).value("state_detail", "") == "queued at position 1";
  })) << alloc.Status().dump();
  EXPECT_EQ(SessionOf(alloc.Status(), 2).value("state_detail", ""), "queued at position 2");
  go.Go();
  EXPECT_EQ(blocker->Wait(), 0);
  EXPECT_EQ(late->Wait(), 0);
  EXPECT_EQ(early->Wait(), 0);
}

// The admin's [priority] module orders the wait queue in the daemon. With psp+aging a
// session with a short estimate ages faster than one with a long estimate, so the later
// arrival goes first (with fcfs it would wait behind the earlier one).
TEST(CoschedPriority, PspAgingOrdersTheQueueInTheDaemon) {
  EmulatedAlloc alloc(1, "core:2", 8,
                      "[policy]\ndefault = \"wait\"\n"
                      "[allocator]\nround_interval_s = 0.2\n"
                      "[priority]\nmodule = \"psp+aging\"\naging_step_s = 0.2\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  ExpectLaterSessionQueuedFirst(alloc, "2", {"-q", "-n", "2", "--time", "100000", "true"},
                                {"-q", "-n", "2", "--time", "1", "true"});
}

// multifactor needs the machine's size: the leader builds it once every node has
// joined. A later, larger session then goes ahead of a smaller one (fcfs: behind it).
TEST(CoschedPriority, MultifactorPutsTheLargerSessionFirstInTheDaemon) {
  EmulatedAlloc alloc(2, "core:2", 8,
                      "[policy]\ndefault = \"wait\"\n"
                      "[allocator]\nround_interval_s = 0.2\n"
                      "[priority]\nmodule = \"multifactor\"\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  ExpectLaterSessionQueuedFirst(alloc, "4", {"-q", "-n", "1", "true"}, {"-q", "-n", "4", "true"});
}

// fcfs (the default module) in the daemon: the earlier queued session has the higher
// priority. Its value is 1e9 minus the submit time: in epoch seconds every session
// would get the floor of 1.0, and the window allocators would see no order at all.
TEST(CoschedPriority, FcfsGivesTheEarlierQueuedSessionTheHigherPriority) {
  EmulatedAlloc alloc(1, "core:2", 8, "[policy]\ndefault = \"wait\"\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  auto blocker = alloc.Exec({"-n", "2", "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 1).value("state", "") == "running"; }));
  auto early = alloc.Exec({"-q", "-n", "1", "true"});
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 2).value("state", "") == "queued"; }));
  auto late = alloc.Exec({"-q", "-n", "1", "true"});
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 3).value("state", "") == "queued"; }));
  const Json status = alloc.Status();
  const double first = SessionOf(status, 2).value("priority", 0.0);
  const double second = SessionOf(status, 3).value("priority", 0.0);
  EXPECT_GT(first, second) << status.dump();
  EXPECT_GT(second, 1.0) << status.dump();
  // The start time shown is still wall-clock (epoch seconds), within a minute of now.
  const double start = SessionOf(status, 1).value("start", 0.0);
  EXPECT_NEAR(start, static_cast<double>(time(nullptr)), 60.0) << status.dump();
  go.Go();
  EXPECT_EQ(blocker->Wait(), 0);
  EXPECT_EQ(early->Wait(), 0);
  EXPECT_EQ(late->Wait(), 0);
}

// The admin's multifactor weights reach the daemon's module: without the age factor a
// queued session's priority is exactly 1 + size weight x its share of the allocation.
TEST(CoschedPriority, MultifactorWeightsComeFromTheConfig) {
  EmulatedAlloc alloc(2, "core:2", 8,
                      "[policy]\ndefault = \"wait\"\n"
                      "[allocator]\nround_interval_s = 0.2\n"
                      "[priority]\nmodule = \"multifactor\"\n"
                      "multifactor_age_weight = 0\nmultifactor_size_weight = 100\n");
  ASSERT_TRUE(alloc.ok()) << alloc.Diagnosis();
  GoFile go;
  auto blocker = alloc.Exec({"-n", "4", "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(
      Eventually([&] { return SessionOf(alloc.Status(), 1).value("state", "") == "running"; }));
  auto half = alloc.Exec({"-q", "-n", "2", "true"});
  EXPECT_TRUE(Eventually([&] {
    return SessionOf(alloc.Status(), 2).value("priority", 0.0) == 1 + 100 * 2 / 4.0;
  })) << alloc.Status().dump();
  EXPECT_FALSE(SessionOf(alloc.Status(), 1).contains("priority")) << "running: not queued";
  go.Go();
  EXPECT_EQ(blocker->Wait(), 0);
  EXPECT_EQ(half->Wait(), 0);
}

}  // namespace
}  // namespace psched::testing
