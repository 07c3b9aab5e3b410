#include "launcher/slurm/slurm_environment.hpp"

#include <stdlib.h>

#include <gtest/gtest.h>

namespace psched::slurm {
namespace {

// The wrapper must see exactly what is in this process's environ.
TEST(SlurmEnvironment, ReadsTheProcessEnvironment) {
  ASSERT_EQ(setenv("PSCHED_SLURM_TEST_VALUE", "a=b", 1), 0);
  Environment env = CurrentEnvironment();
  EXPECT_EQ(env.at("PSCHED_SLURM_TEST_VALUE"), "a=b");
  unsetenv("PSCHED_SLURM_TEST_VALUE");
  EXPECT_EQ(CurrentEnvironment().count("PSCHED_SLURM_TEST_VALUE"), 0u);
}

TEST(SlurmEnvironment, DetectsAnAllocationFromEnviron) {
  // Whatever the test runs under, pin down the variables the parser reads.
  for (const char* name : {"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                           "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_NUM_NODES", "SLURM_NNODES",
                           "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_CLUSTER_NAME"}) {
    unsetenv(name);
  }
  auto none = DetectAllocation();
  ASSERT_TRUE(none.has_value()) << none.error().ToString();
  EXPECT_FALSE(none->has_value());

  setenv("SLURM_JOB_ID", "99", 1);
  setenv("SLURM_JOB_NODELIST", "c[1-2]", 1);
  setenv("SLURM_JOB_CPUS_PER_NODE", "4(x2)", 1);
  auto found = DetectAllocation();
  ASSERT_TRUE(found.has_value()) << found.error().ToString();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->job_id, "99");
  EXPECT_EQ((*found)->nodes, (std::vector<std::string>{"c1", "c2"}));

  setenv("SLURM_JOB_CPUS_PER_NODE", "4(x", 1);
  EXPECT_FALSE(DetectAllocation().has_value());
  for (const char* name : {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_CPUS_PER_NODE"}) {
    unsetenv(name);
  }
}

}  // namespace
}  // namespace psched::slurm
