#include "launcher/slurm/slurm_daemons.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

namespace psched::slurm {
namespace {

Environment SallocEnv() {
  return {{"SLURM_JOB_ID", "42"},
          {"SLURM_JOB_NODELIST", "n[1-4]"},
          {"SLURM_JOB_CPUS_PER_NODE", "2(x4)"}};
}

TEST(FindSlurmLeader, OutsideSlurmThereIsNone) {
  auto leader = FindSlurmLeader({{"PATH", "/bin"}}, false, {.pschedd = "pschedd"});
  ASSERT_TRUE(leader.has_value()) << leader.error().ToString();
  EXPECT_FALSE(leader->has_value());
}

TEST(FindSlurmLeader, ARankOfANonSlurmSessionIsNotInSlurm) {
  // What the PMIx host gives every rank for Open MPI's sake, outside Slurm.
  Environment env = {{"SLURM_JOBID", "psched"},
                     {"SLURM_NODELIST", "node0,node1"},
                     {"SLURM_STEP_ID", "3"},
                     {"PSCHED_SESSION", "3"}};
  auto leader = FindSlurmLeader(env, true, {.pschedd = "pschedd"});
  ASSERT_TRUE(leader.has_value()) << leader.error().ToString();
  EXPECT_FALSE(leader->has_value());
}

TEST(FindSlurmLeader, WithoutStartOnlySaysWhere) {
  auto leader = FindSlurmLeader(SallocEnv(), false, {.pschedd = "pschedd"});
  ASSERT_TRUE(leader.has_value()) << leader.error().ToString();
  ASSERT_TRUE(leader->has_value());
  EXPECT_EQ((*leader)->job_id, "42");
  EXPECT_EQ((*leader)->socket,
            "/tmp/psched-" + std::to_string(geteuid()) + "-slurm-42/pschedd.sock");
}

TEST(FindSlurmLeader, MalformedSlurmVariablesAreAnError) {
  Environment env = SallocEnv();
  env["SLURM_JOB_CPUS_PER_NODE"] = "2(x";
  auto leader = FindSlurmLeader(env, false, {.pschedd = "pschedd"});
  ASSERT_FALSE(leader.has_value());
  EXPECT_NE(leader.error().message().find("SLURM_JOB_CPUS_PER_NODE"), std::string::npos);
}

TEST(FindSlurmLeader, AMalformedFanoutIsAnError) {
  for (const char* bad : {"0", "-1", "two", "", "3x"}) {
    Environment env = SallocEnv();
    env["PSCHED_SLURM_FANOUT"] = bad;
    auto leader = FindSlurmLeader(env, false, {.pschedd = "pschedd"});
    ASSERT_FALSE(leader.has_value()) << bad;
    EXPECT_EQ(leader.error().message(),
              "PSCHED_SLURM_FANOUT='" + std::string(bad) + "' is not a positive integer");
  }
}

TEST(EnsureSlurmDaemons, RefusesBadOptionsBeforeStartingAnything) {
  SlurmAllocation alloc{.job_id = "42", .nodes = {"n1"}, .cpus_per_node = {2}};
  auto no_daemon = EnsureSlurmDaemons(alloc, {});
  ASSERT_FALSE(no_daemon.has_value());
  EXPECT_EQ(no_daemon.error().message(), "starting the Slurm daemons: no pschedd given");
  auto bad_fanout = EnsureSlurmDaemons(alloc, {.pschedd = "pschedd", .fanout = 0});
  ASSERT_FALSE(bad_fanout.has_value());
  EXPECT_EQ(bad_fanout.error().code(), ErrorCode::kInvalidArgument);
}

// Run directories left by ended jobs go; those of live jobs, of jobs whose launcher is
// starting daemons right now, and files psched did not make stay.
TEST(SweepEndedJobRunDirs, RemovesOnlyTheDirectoriesOfEndedJobs) {
  char tmpl[] = "/tmp/psched-sweep-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string parent = tmpl;
  const std::string prefix = parent + "/psched-" + std::to_string(geteuid()) + "-slurm-";
  auto make = [&](const std::string& job, const std::vector<std::string>& files) {
    std::filesystem::create_directory(prefix + job);
    for (const auto& f : files) std::ofstream(prefix + job + "/" + f) << "x";
  };
  make("7", {"start.lock", "srun-level-0.out", "srun-level-0.err", "pschedd.sock"});  // ended
  make("8", {"start.lock"});                                                          // running
  make("9", {"start.lock", "srun-level-0.out", "notes.txt"});  // ended, a file not ours
  make("10", {"start.lock"});                                  // ended, but a launcher starts
  make("11", {});                                              // the current job
  std::filesystem::create_directory(parent + "/psched-" + std::to_string(geteuid()) + "-x");
  int held = open((prefix + "10/start.lock").c_str(), O_RDWR);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  std::vector<std::string> asked;
  int removed = SweepEndedJobRunDirs(parent, "11", [&](const std::string& job) {
    asked.push_back(job);
    return job == "8";
  });
  close(held);
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(std::filesystem::exists(prefix + "7"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "8/start.lock"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "9/notes.txt"));
  EXPECT_FALSE(std::filesystem::exists(prefix + "9/srun-level-0.out"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "10/start.lock"));
  EXPECT_TRUE(std::filesystem::exists(prefix + "11"));
  EXPECT_TRUE(std::filesystem::exists(parent + "/psched-" + std::to_string(geteuid()) + "-x"));
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<std::string>{"10", "7", "8", "9"}));
  std::filesystem::remove_all(parent);
}

TEST(SweepEndedJobRunDirs, MissingParentRemovesNothing) {
  EXPECT_EQ(
      SweepEndedJobRunDirs("/nonexistent/psched", "1", [](const std::string&) { return false; }),
      0);
}

}  // namespace
}  // namespace psched::slurm
