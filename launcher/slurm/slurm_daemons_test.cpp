#include "launcher/slurm/slurm_daemons.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace psched::slurm
