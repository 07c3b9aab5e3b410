// The cgroup freezer: parsing (pure) and freezing real processes in real cgroups.
// The real-cgroup tests run once per cgroup version and skip, saying why, where this
// machine has no writable freezer of that version.
#include "daemon/node/freezer.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "daemon/node/rank_exec.hpp"
#include "daemon/node/suspend.hpp"

namespace psched::daemon {
namespace {

constexpr const char* kMountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "37 31 0:34 /job42 /sys/fs/cgroup/free\\040zer rw,relatime shared:9 - cgroup cgroup "
    "rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/cpu,freezer rw - cgroup cgroup rw,cpu,freezer\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(FreezerHierarchies, CgroupTwoFirstThenVersionOneFreezers) {
  auto h = FreezerHierarchies(kMountinfo);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].version, CgroupVersion::kV2);
  EXPECT_EQ(h[0].mount, "/sys/fs/cgroup/unified");
  EXPECT_EQ(h[1].version, CgroupVersion::kV1);
  EXPECT_EQ(h[1].mount, "/sys/fs/cgroup/free zer");  // \040 unescaped
  EXPECT_EQ(h[1].root, "/job42");
  EXPECT_EQ(h[2].mount, "/sys/fs/cgroup/cpu,freezer");
}

TEST(FreezerHierarchies, NoneWithoutCgroupMounts) {
  EXPECT_TRUE(FreezerHierarchies("22 1 0:21 / /proc rw - proc proc rw\n").empty());
  EXPECT_TRUE(FreezerHierarchies("").empty());
}

TEST(CgroupDirIn, FindsTheProcessCgroupUnderTheMount) {
  const char* own = "6:freezer:/job42/step0\n4:memory:/x\n0::/user.slice/a:b\n";
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV2, "/u", "/"}, own), "/u/user.slice/a:b");
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV1, "/f", "/"}, own), "/f/job42/step0");
  // A mount of a sub-tree shows paths relative to its root.
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV1, "/f", "/job42"}, own), "/f/step0");
  // Outside the mounted sub-tree, or not listed: the mount point itself.
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV1, "/f", "/job4"}, own), "/f");
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV2, "/u", "/"}, "6:freezer:/\n"), "/u");
  EXPECT_EQ(CgroupDirIn({CgroupVersion::kV2, "/u", "/"}, "0::/\n"), "/u");
}

// Polls `done` until it holds or a generous deadline (a loaded machine) passes.
bool Eventually(const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
  return done();
}

std::string CgroupLine(pid_t pid, CgroupVersion v) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (v == CgroupVersion::kV2 && line.starts_with("0::")) return line.substr(3);
    if (v == CgroupVersion::kV1 && line.find(":freezer:") != std::string::npos)
      return line.substr(line.find(":freezer:") + 9);
  }
  return "";
}

class RealFreezer : public ::testing::TestWithParam<CgroupVersion> {
 protected:
  void SetUp() override {
    auto where = FindFreezerPlace(kNode, GetParam());
    if (!where) GTEST_SKIP() << "no writable freezer here: " << where.error().ToString();
    freezer_ = SessionFreezer::CreateIn(kNode, *where);
  }
  void TearDown() override {
    for (pid_t pid : children_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  // A rank spawned the daemon's way: joining the session's cgroup before exec.
  pid_t Spawn(int64_t session, std::vector<std::string> argv) {
    auto fd = freezer_->JoinFd(session);
    EXPECT_TRUE(fd) << fd.error().ToString();
    RankExecSpec spec;
    spec.argv = std::move(argv);
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.bind = false;
    spec.cgroup_procs_fd = *fd;
    auto r = ExecRank(spec);
    EXPECT_TRUE(r) << r.error().ToString();
    close(r->out_fd);
    close(r->err_fd);
    children_.push_back(r->pid);
    return r->pid;
  }
  bool FrozenNow(int64_t session) {
    auto f = freezer_->Frozen(session);
    EXPECT_TRUE(f) << f.error().ToString();
    return f && *f;
  }

  static constexpr int kNode = 7;
  std::unique_ptr<SessionFreezer> freezer_;
  std::vector<pid_t> children_;
};

TEST_P(RealFreezer, RanksJoinTheSessionCgroupBeforeExec) {
  pid_t pid = Spawn(11, {"sleep", "60"});
  std::string dir = freezer_->PathOf(11);
  EXPECT_TRUE(std::filesystem::is_directory(dir)) << dir;
  EXPECT_NE(dir.find(".n7.s11.p" + std::to_string(getpid())), std::string::npos) << dir;
  EXPECT_TRUE(dir.ends_with(CgroupLine(pid, GetParam())))
      << dir << " vs " << CgroupLine(pid, GetParam());
  EXPECT_EQ(freezer_->Processes(11), std::vector<pid_t>{pid});
  // Another session gets another cgroup; the same session the same one.
  pid_t other = Spawn(12, {"sleep", "60"});
  pid_t again = Spawn(11, {"sleep", "60"});
  EXPECT_NE(freezer_->PathOf(12), dir);
  EXPECT_TRUE(dir.ends_with(CgroupLine(again, GetParam())));
  EXPECT_FALSE(dir.ends_with(CgroupLine(other, GetParam())));
}

TEST_P(RealFreezer, FreezesEveryProcessIncludingForkedOnesAndThaws) {
  // A busy rank that forks a busy child: both must stop running.
  pid_t rank = Spawn(21, {"sh", "-c", "(while :; do :; done) & while :; do :; done"});
  ASSERT_TRUE(Eventually([&] { return freezer_->Processes(21).size() == 2; }));
  ASSERT_TRUE(freezer_->Freeze(21));
  ASSERT_TRUE(Eventually([&] { return FrozenNow(21); })) << "cgroup never reported frozen";
  auto cpu_ticks = [](pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    long ticks = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i)
      if (i >= 14) ticks += std::stol(field);  // utime + stime
    return ticks;
  };
  for (pid_t pid : freezer_->Processes(21)) {
    char st = ProcState(pid);
    // Frozen tasks: v1 shows D, v2 S (neither is T: the freezer is not a stop signal).
    EXPECT_TRUE(st == 'D' || st == 'S') << "pid " << pid << " state " << st;
    long before = cpu_ticks(pid);
    timespec pause{0, 50'000'000};
    nanosleep(&pause, nullptr);
    EXPECT_EQ(cpu_ticks(pid), before) << "frozen pid " << pid << " still used CPU";
  }
  ASSERT_TRUE(freezer_->Thaw(21));
  ASSERT_TRUE(Eventually([&] { return !FrozenNow(21); }));
  for (pid_t pid : freezer_->Processes(21)) {
    long before = cpu_ticks(pid);
    EXPECT_TRUE(Eventually([&] { return cpu_ticks(pid) > before; })) << "pid " << pid;
  }
  EXPECT_NE(ProcState(rank), 'T');
}

TEST_P(RealFreezer, RemoveKillsLeftoversAndDeletesTheCgroup) {
  // The rank exits at once, leaving a forked process behind in its cgroup.
  pid_t rank = Spawn(31, {"sh", "-c", "sleep 60 & echo started"});
  waitpid(rank, nullptr, 0);
  children_.clear();
  std::vector<pid_t> left = freezer_->Processes(31);
  ASSERT_EQ(left.size(), 1u);
  ASSERT_TRUE(freezer_->Freeze(31));  // even frozen (v1 could not kill it then)
  ASSERT_TRUE(Eventually([&] { return FrozenNow(31); }));
  std::string dir = freezer_->PathOf(31);
  freezer_->Remove(31);
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(dir); })) << dir;
  char st = ProcState(left[0]);
  EXPECT_TRUE(st == 0 || st == 'Z') << "leftover " << left[0] << " state " << st;
  // A removed session has no cgroup: freezing it is a no-op, Frozen() trivially true.
  EXPECT_TRUE(freezer_->Freeze(31));
  EXPECT_TRUE(FrozenNow(31));
}

TEST_P(RealFreezer, DestructorRemovesEverySessionCgroup) {
  Spawn(41, {"sleep", "60"});
  Spawn(42, {"sleep", "60"});
  ASSERT_TRUE(freezer_->Freeze(42));
  std::string a = freezer_->PathOf(41), b = freezer_->PathOf(42);
  freezer_.reset();  // kills the sleeps (still our children: TearDown reaps them)
  EXPECT_FALSE(std::filesystem::exists(a)) << a;
  EXPECT_FALSE(std::filesystem::exists(b)) << b;
}

TEST_P(RealFreezer, TwoDaemonsOnOneHostNeverShareACgroup) {
  auto where = FindFreezerPlace(8, GetParam());
  ASSERT_TRUE(where);
  auto other = SessionFreezer::CreateIn(8, *where);
  EXPECT_NE(other->PathOf(11), freezer_->PathOf(11));
}

INSTANTIATE_TEST_SUITE_P(Versions, RealFreezer,
                         ::testing::Values(CgroupVersion::kV2, CgroupVersion::kV1),
                         [](const auto& info) {
                           return info.param == CgroupVersion::kV2 ? "v2" : "v1";
                         });

TEST(FindFreezerPlace, ErrorNamesWhatWasTried) {
  auto where = FindFreezerPlace(0);
  if (where) {
    EXPECT_TRUE(std::filesystem::is_directory(where->parent)) << where->parent;
    return;
  }
  // On a machine without a writable freezer the message must say where it looked.
  std::string e = where.error().ToString();
  EXPECT_TRUE(e.find("no writable") != std::string::npos ||
              e.find("is mounted") != std::string::npos)
      << e;
}

}  // namespace
}  // namespace psched::daemon
