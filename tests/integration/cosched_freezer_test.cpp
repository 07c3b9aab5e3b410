// Surpass with the cgroup freezer ([policy] suspend = "freezer") on an emulated
// 4-node allocation: every rank runs in its session's cgroup on its node (named
// after node, session and that node's daemon), the surpassed session's cgroups
// report frozen on every node, they thaw when the surpasser ends, and each cgroup is
// gone when its session ends. Frozen tasks are not in state T (v2 shows them
// sleeping, v1 in D), so the cgroup's own report is what is asserted.
//
// Skips (saying why) on machines without a writable cgroup freezer.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "daemon/node/freezer.hpp"
#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"

namespace psched::testing {
namespace {

constexpr int kNodes = 4;
constexpr int kPus = 8;

constexpr const char* kFreezerConf = "[policy]\nsuspend = \"freezer\"\n";

// The psched session cgroup a process is in (full directory), "" when none.
struct SessionCgroup {
  daemon::CgroupVersion version = daemon::CgroupVersion::kV2;
  std::string dir;
};
SessionCgroup CgroupOf(pid_t pid) {
  std::string own = ReadFile("/proc/" + std::to_string(pid) + "/cgroup");
  for (const auto& h : daemon::FreezerHierarchies(ReadFile("/proc/self/mountinfo"))) {
    std::string dir = daemon::CgroupDirIn(h, own);
    if (std::filesystem::path(dir).filename().string().starts_with("psched.n"))
      return {h.version, dir};
  }
  return {};
}

bool Frozen(const SessionCgroup& cg) {
  if (cg.version == daemon::CgroupVersion::kV1)
    return ReadFile(cg.dir + "/freezer.state") == "FROZEN\n";
  return ReadFile(cg.dir + "/cgroup.events").find("frozen 1\n") != std::string::npos;
}
bool Thawed(const SessionCgroup& cg) {
  if (cg.version == daemon::CgroupVersion::kV1)
    return ReadFile(cg.dir + "/freezer.state") == "THAWED\n";
  return ReadFile(cg.dir + "/cgroup.events").find("frozen 0\n") != std::string::npos;
}

// A config file for the allocation's daemons, removed at the end.
class ConfFile {
 public:
  explicit ConfFile(const std::string& toml)
      : path_(std::filesystem::temp_directory_path() /
              ("psched-freezer-" + std::to_string(getpid()) + ".toml")) {
    std::ofstream(path_) << toml;
  }
  ~ConfFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class CoschedFreezerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto where = daemon::FindFreezerPlace(0);
    if (!where) GTEST_SKIP() << "no writable cgroup freezer here: " << where.error().ToString();
  }
  std::unique_ptr<EmulatedAlloc> Start() {
    return std::make_unique<EmulatedAlloc>(kNodes, "core:" + std::to_string(kPus), 8, kFreezerConf);
  }
  // Waits for `n` ranks of `session`, each in its session cgroup.
  std::vector<RankProc> WaitRanks(const EmulatedAlloc& alloc, int session, size_t n) {
    std::vector<RankProc> ranks;
    EXPECT_TRUE(Eventually(
        [&] {
          ranks.clear();
          for (RankProc& r : AllocationRanks(alloc.dir(), "cosched_threads"))
            if (r.session == session) ranks.push_back(std::move(r));
          return ranks.size() == n;
        },
        60))
        << "session " << session << ": " << ranks.size() << " of " << n << " ranks";
    return ranks;
  }
};

TEST_F(CoschedFreezerTest, SurpassFreezesTheSimulationCgroupsOnEveryNodeAndThawsThem) {
  auto alloc = Start();
  ASSERT_TRUE(alloc->ok());
  auto env = alloc->Env();
  Proc sim({Bin("psched-exec"), "-n", std::to_string(kNodes * kPus), Bin("cosched_threads"), "1"},
           env);
  auto sim_ranks = WaitRanks(*alloc, 1, size_t{kNodes} * kPus);
  ASSERT_EQ(sim_ranks.size(), static_cast<size_t>(kNodes * kPus));

  // Every rank in its node's cgroup of session 1, named after node, session, daemon.
  std::map<int, SessionCgroup> sim_cgroups;  // node -> cgroup
  for (const RankProc& r : sim_ranks) {
    SessionCgroup cg = CgroupOf(r.pid);
    ASSERT_FALSE(cg.dir.empty()) << "rank pid " << r.pid << " is in no psched cgroup: "
                                 << ReadFile("/proc/" + std::to_string(r.pid) + "/cgroup");
    std::string name =
        "psched.n" + std::to_string(r.node) + ".s1.p" + std::to_string(alloc->DaemonPid(r.node));
    EXPECT_EQ(std::filesystem::path(cg.dir).filename(), name) << cg.dir;
    if (sim_cgroups.contains(r.node)) {
      EXPECT_EQ(sim_cgroups[r.node].dir, cg.dir);
    }
    sim_cgroups[r.node] = cg;
    EXPECT_FALSE(Frozen(cg));
  }
  ASSERT_EQ(sim_cgroups.size(), static_cast<size_t>(kNodes));

  // The analysis surpasses it: spread, so every node has a share of it.
  Proc analysis({Bin("psched-exec"), "--policy", "surpass", "--spread", "-n", "8",
                 Bin("cosched_threads"), "1"},
                env);
  auto analysis_ranks = WaitRanks(*alloc, 2, 8);
  for (const auto& [node, cg] : sim_cgroups)
    EXPECT_TRUE(Eventually([&] { return Frozen(cg); })) << cg.dir << " never reported frozen";
  for (const RankProc& r : sim_ranks) {
    char st = ProcessState(r.pid);
    // The freezer's states, not SIGSTOP's: v2 shows frozen tasks sleeping, v1 in D.
    EXPECT_NE(st, 'T') << "pid " << r.pid;
    EXPECT_EQ(st, sim_cgroups[r.node].version == daemon::CgroupVersion::kV1 ? 'D' : 'S')
        << "pid " << r.pid;
  }
  std::set<std::string> analysis_dirs;
  for (const RankProc& r : analysis_ranks) {
    SessionCgroup cg = CgroupOf(r.pid);
    EXPECT_NE(cg.dir.find(".s2.p"), std::string::npos) << cg.dir;
    EXPECT_FALSE(Frozen(cg)) << cg.dir;
    analysis_dirs.insert(cg.dir);
  }

  // The analysis ends: the simulation thaws; the analysis's cgroups are gone.
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "2"}, env).code, 0);
  EXPECT_EQ(analysis.Wait(), 128 + SIGKILL) << analysis.err();
  for (const auto& [node, cg] : sim_cgroups)
    EXPECT_TRUE(Eventually([&] { return Thawed(cg); })) << cg.dir << " still frozen";
  for (const std::string& dir : analysis_dirs)
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(dir); })) << dir;
  // Running again: a thawed rank is scheduled (it blocks in pause(): state S).
  for (const RankProc& r : sim_ranks)
    EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == 'S'; })) << "pid " << r.pid;

  // The simulation ends: its cgroups go too.
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, env).code, 0);
  EXPECT_EQ(sim.Wait(), 128 + SIGKILL) << sim.err();
  for (const auto& [node, cg] : sim_cgroups)
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(cg.dir); })) << cg.dir;
  EXPECT_EQ(alloc->Stop(), 0);
}

// Killing a frozen session works (a v1-frozen task cannot even die until thawed) and
// removes its cgroups; the surpasser runs on.
TEST_F(CoschedFreezerTest, AFrozenSessionCanBeKilled) {
  auto alloc = Start();
  ASSERT_TRUE(alloc->ok());
  auto env = alloc->Env();
  Proc sim({Bin("psched-exec"), "-n", std::to_string(kNodes * kPus), Bin("cosched_threads"), "1"},
           env);
  auto sim_ranks = WaitRanks(*alloc, 1, size_t{kNodes} * kPus);
  ASSERT_FALSE(sim_ranks.empty());
  Proc analysis({Bin("psched-exec"), "--policy", "surpass", "-n", "4", Bin("cosched_threads"), "1"},
                env);
  auto analysis_ranks = WaitRanks(*alloc, 2, 4);
  std::set<std::string> dirs;
  for (const RankProc& r : sim_ranks) dirs.insert(CgroupOf(r.pid).dir);
  for (const std::string& dir : dirs) {
    SessionCgroup cg{CgroupOf(sim_ranks[0].pid).version, dir};
    ASSERT_TRUE(Eventually([&] { return Frozen(cg); })) << dir;
  }
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "1"}, env).code, 0);
  EXPECT_EQ(sim.Wait(), 128 + SIGKILL) << sim.err();
  for (const RankProc& r : sim_ranks)
    EXPECT_TRUE(Eventually([&] { return ProcessGone(r.pid); })) << "pid " << r.pid;
  for (const std::string& dir : dirs)
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(dir); })) << dir;
  for (const RankProc& r : analysis_ranks) EXPECT_EQ(ProcessState(r.pid), 'S') << "pid " << r.pid;
  ASSERT_EQ(RunCmd({Bin("psched-ctl"), "kill", "2"}, env).code, 0);
  EXPECT_EQ(analysis.Wait(), 128 + SIGKILL) << analysis.err();
}

// A session still running when the allocation ends: its cgroups go with the daemons.
TEST_F(CoschedFreezerTest, CgroupsOfRunningSessionsGoWithTheDaemons) {
  auto alloc = Start();
  ASSERT_TRUE(alloc->ok());
  Proc sim({Bin("psched-exec"), "-n", "8", Bin("cosched_threads"), "1"}, alloc->Env());
  auto ranks = WaitRanks(*alloc, 1, 8);
  std::set<std::string> dirs;
  for (const RankProc& r : ranks) dirs.insert(CgroupOf(r.pid).dir);
  ASSERT_FALSE(dirs.empty());
  ASSERT_FALSE(dirs.contains(""));
  alloc->Stop();
  for (const std::string& dir : dirs)
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(dir); })) << dir;
}

TEST(CoschedFreezerConfigTest, BadSuspendValueIsAClearError) {
  ConfFile conf("[policy]\ndefault = \"surpass\"\nsuspend = \"cgroups\"\n");
  auto r = RunCmd({Bin("psched-alloc"), "-N", "2", "--", "true"}, {"PSCHED_CONF=" + conf.path()});
  EXPECT_NE(r.code, 0);
  std::string where = std::filesystem::path(conf.path()).filename().string() + ":3:11";
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("policy.suspend: expected \"signal\" or \"freezer\""), std::string::npos)
      << r.err;
}

// Freezer configured but no writable freezer on the nodes (here: every cgroup mount
// read-only in a private mount namespace): the daemons refuse to start and say why.
TEST(CoschedFreezerConfigTest, NoWritableFreezerStopsTheDaemonsSayingWhy) {
  if (RunCmd({"unshare", "-m", "true"}).code != 0)
    GTEST_SKIP() << "cannot make a mount namespace (unshare -m) here";
  ConfFile conf(kFreezerConf);
  std::string remount;
  for (const auto& h : daemon::FreezerHierarchies(ReadFile("/proc/self/mountinfo")))
    remount += "mount -o remount,ro,bind '" + h.mount + "' && ";
  auto r = RunCmd({"unshare", "-m", "--propagation", "private", "sh", "-c",
                   remount + "exec \"$0\" -N 2 -- true", Bin("psched-alloc")},
                  {"PSCHED_CONF=" + conf.path()});
  EXPECT_NE(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("[policy] suspend = \"freezer\", but this node cannot freeze sessions"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace psched::testing
