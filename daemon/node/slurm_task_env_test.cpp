#include "daemon/node/slurm_task_env.hpp"

#include <gtest/gtest.h>

#include <map>

namespace psched::daemon {
namespace {

std::map<std::string, std::string> AsMap(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    auto eq = e.find('=');
    out[e.substr(0, eq)] = e.substr(eq + 1);
  }
  return out;
}

// 5 ranks on nodes 1, 2 and 3 of n1..n4 (node 0 unused): 2, 2 and 1 ranks.
proto::StartRanksOrder FiveRanks() {
  proto::StartRanksOrder order;
  order.size = 5;
  order.hostnames = {"n1", "n2", "n3", "n4"};
  order.ranks = {{0, 1, 0, {}}, {1, 1, 1, {}}, {2, 2, 0, {}}, {3, 3, 0, {}}, {4, 2, 1, {}}};
  return order;
}

TEST(SlurmTaskEnvironment, AsSrunWouldHavePlacedTheSessionsRanks) {
  const proto::StartRanksOrder order = FiveRanks();
  auto env = AsMap(SlurmTaskEnvironment(order, order.ranks[4]));
  EXPECT_EQ(env["SLURM_PROCID"], "4");
  EXPECT_EQ(env["SLURM_LOCALID"], "1");
  EXPECT_EQ(env["SLURM_NODEID"], "1");  // node 2 is the session's second node
  EXPECT_EQ(env["SLURMD_NODENAME"], "n3");
  EXPECT_EQ(env["SLURM_NTASKS"], "5");
  EXPECT_EQ(env["SLURM_NPROCS"], "5");
  EXPECT_EQ(env["SLURM_STEP_NUM_TASKS"], "5");
  EXPECT_EQ(env["SLURM_NNODES"], "3");
  EXPECT_EQ(env["SLURM_STEP_NUM_NODES"], "3");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_EQ(env["SLURM_STEP_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_EQ(env["SLURM_STEP_NODELIST"], "n2,n3,n4");
  EXPECT_EQ(env["SLURM_GTIDS"], "2,4");

  auto first = AsMap(SlurmTaskEnvironment(order, order.ranks[0]));
  EXPECT_EQ(first["SLURM_NODEID"], "0");
  EXPECT_EQ(first["SLURMD_NODENAME"], "n2");
  EXPECT_EQ(first["SLURM_GTIDS"], "0,1");
}

// pmix/ sets these for Open MPI's direct launch; they are not this function's to change.
TEST(SlurmTaskEnvironment, LeavesTheJobAndOpenMpisVariablesAlone) {
  const proto::StartRanksOrder order = FiveRanks();
  auto env = AsMap(SlurmTaskEnvironment(order, order.ranks[0]));
  for (const char* name :
       {"SLURM_JOBID", "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_NODELIST", "SLURM_JOB_NODELIST"}) {
    EXPECT_EQ(env.count(name), 0u) << name;
  }
}

TEST(SlurmTaskEnvironment, OneCountWhenEveryNodeHasAsMany) {
  proto::StartRanksOrder order;
  order.size = 2;
  order.hostnames = {"c01"};
  order.ranks = {{0, 0, 0, {}}, {1, 0, 1, {}}};
  auto env = AsMap(SlurmTaskEnvironment(order, order.ranks[1]));
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2");
  EXPECT_EQ(env["SLURM_STEP_NODELIST"], "c01");
  EXPECT_EQ(env["SLURM_NODEID"], "0");
  EXPECT_EQ(env["SLURM_LOCALID"], "1");
}

}  // namespace
}  // namespace psched::daemon
