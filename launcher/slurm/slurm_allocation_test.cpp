#include "launcher/slurm/slurm_allocation.hpp"

#include <gtest/gtest.h>

namespace psched::slurm {
namespace {

// What salloc -N4 on the test cluster puts into the environment (taken from a real run).
Environment SallocEnv() {
  return {
      {"SLURM_CLUSTER_NAME", "psched"},
      {"SLURM_JOBID", "12"},
      {"SLURM_JOB_ID", "12"},
      {"SLURM_JOB_CPUS_PER_NODE", "2(x4)"},
      {"SLURM_JOB_NODELIST", "n[1-4]"},
      {"SLURM_JOB_NUM_NODES", "4"},
      {"SLURM_NNODES", "4"},
      {"SLURM_NODELIST", "n[1-4]"},
      {"SLURM_TASKS_PER_NODE", "1(x4)"},
      {"PATH", "/usr/bin"},
  };
}

std::string ErrorOf(const Environment& env) {
  auto a = ParseAllocation(env);
  if (a) return "";
  EXPECT_EQ(a.error().code(), ErrorCode::kInvalidArgument);
  return a.error().message();
}

TEST(ParseAllocation, NoSlurmIsNotAnError) {
  auto a = ParseAllocation({{"PATH", "/usr/bin"}, {"HOME", "/root"}});
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_FALSE(a->has_value());
}

TEST(ParseAllocation, ReadsASallocEnvironment) {
  auto a = ParseAllocation(SallocEnv());
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_TRUE(a->has_value());
  const SlurmAllocation& alloc = **a;
  EXPECT_EQ(alloc.job_id, "12");
  EXPECT_EQ(alloc.cluster_name, "psched");
  EXPECT_EQ(alloc.nodes, (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(alloc.cpus_per_node, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(alloc.NumNodes(), 4);
  EXPECT_EQ(alloc.TotalCpus(), 8);
  EXPECT_FALSE(alloc.step_id.has_value());
}

TEST(ParseAllocation, MixedCpuCountsAndOldVariableNames) {
  Environment env = {
      {"SLURM_JOBID", "7"},
      {"SLURM_NODELIST", "big[01-02],small1"},
      {"SLURM_JOB_CPUS_PER_NODE", "40(x2),20"},
      {"SLURM_STEP_ID", "3"},
  };
  auto a = ParseAllocation(env);
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->job_id, "7");
  EXPECT_EQ((*a)->nodes, (std::vector<std::string>{"big01", "big02", "small1"}));
  EXPECT_EQ((*a)->cpus_per_node, (std::vector<int>{40, 40, 20}));
  EXPECT_EQ((*a)->step_id, "3");
  EXPECT_EQ((*a)->cluster_name, "");
}

TEST(ParseAllocation, JobNodelistWinsOverTheStepsNodelist) {
  // Inside a one-node step, SLURM_NODELIST is the step's; the allocation is the job's.
  Environment env = SallocEnv();
  env["SLURM_NODELIST"] = "n2";
  env["SLURM_NNODES"] = "1";
  env.erase("SLURM_JOB_NUM_NODES");
  env["SLURM_JOB_NUM_NODES"] = "4";
  auto a = ParseAllocation(env);
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  EXPECT_EQ((*a)->NumNodes(), 4);
}

TEST(ParseAllocation, MalformedValuesAreNamed) {
  Environment env = SallocEnv();
  env["SLURM_JOB_ID"] = "12abc";
  EXPECT_EQ(ErrorOf(env), "SLURM_JOB_ID='12abc' is not a decimal job id");

  env = SallocEnv();
  env["SLURM_JOB_ID"] = "";
  EXPECT_NE(ErrorOf(env).find("not a decimal job id"), std::string::npos);

  env = SallocEnv();
  env.erase("SLURM_JOB_NODELIST");
  env.erase("SLURM_NODELIST");
  EXPECT_NE(ErrorOf(env).find("SLURM_JOB_NODELIST is not"), std::string::npos);

  env = SallocEnv();
  env["SLURM_JOB_NODELIST"] = "n[4-1]";
  EXPECT_EQ(ErrorOf(env), "SLURM_JOB_NODELIST: hostlist 'n[4-1]': range '4-1' is descending");

  env = SallocEnv();
  env.erase("SLURM_JOB_CPUS_PER_NODE");
  EXPECT_NE(ErrorOf(env).find("SLURM_JOB_CPUS_PER_NODE is not"), std::string::npos);

  env = SallocEnv();
  env["SLURM_JOB_CPUS_PER_NODE"] = "2(x3)";
  EXPECT_EQ(
      ErrorOf(env),
      "SLURM_JOB_CPUS_PER_NODE='2(x3)' describes 3 nodes but SLURM_JOB_NODELIST='n[1-4]' has 4");

  env = SallocEnv();
  env["SLURM_JOB_CPUS_PER_NODE"] = "two";
  EXPECT_NE(ErrorOf(env).find("SLURM_JOB_CPUS_PER_NODE: CPUs per node 'two'"), std::string::npos);

  env = SallocEnv();
  env["SLURM_JOB_NUM_NODES"] = "5";
  EXPECT_NE(ErrorOf(env).find("SLURM_JOB_NUM_NODES='5' disagrees"), std::string::npos);

  env = SallocEnv();
  env["SLURM_JOB_NUM_NODES"] = "four";
  EXPECT_NE(ErrorOf(env).find("SLURM_JOB_NUM_NODES='four' is not a positive integer"),
            std::string::npos);
}

TEST(ExpandCpusPerNode, Syntax) {
  EXPECT_EQ(ExpandCpusPerNode("40(x4),20").value(), (std::vector<int>{40, 40, 40, 40, 20}));
  EXPECT_EQ(ExpandCpusPerNode("2").value(), (std::vector<int>{2}));
  EXPECT_EQ(ExpandCpusPerNode("1,2,3").value(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ExpandCpusPerNode("8(x1)").value(), (std::vector<int>{8}));
}

TEST(ExpandCpusPerNode, MalformedCountsAreRejected) {
  for (const char* bad : {"", "0", "-2", "2(x0)", "2(x)", "2(4)", "2(x4", "2x4", "(x4)", "2(x4),",
                          ",2", "2,,3", "2(x4)5", "99999999999", "2(x99999999)"}) {
    auto counts = ExpandCpusPerNode(bad);
    EXPECT_FALSE(counts.has_value()) << "'" << bad << "' was accepted";
    if (!counts) {
      EXPECT_EQ(counts.error().code(), ErrorCode::kInvalidArgument);
    }
  }
}

TEST(DaemonLaunchArgv, OneOverlappingTaskPerNodeWithoutBindingOrMpi) {
  SlurmAllocation alloc = **ParseAllocation(SallocEnv());
  auto argv = DaemonLaunchArgv(
      alloc, {.pschedd = "/opt/psched/bin/pschedd", .pschedd_args = {"--slurm", "--fanout=2"}});
  ASSERT_TRUE(argv.has_value()) << argv.error().ToString();
  EXPECT_EQ(*argv, (std::vector<std::string>{"srun", "--overlap", "--relative=0", "--nodes=4",
                                             "--ntasks=4", "--ntasks-per-node=1", "--mpi=none",
                                             "--cpu-bind=none", "--jobid=12", "--job-name=pschedd",
                                             "--kill-on-bad-exit=0", "--quiet",
                                             "/opt/psched/bin/pschedd", "--slurm", "--fanout=2"}));
}

TEST(DaemonLaunchArgv, CustomSrunAndStepName) {
  SlurmAllocation alloc{.job_id = "5", .nodes = {"a"}, .cpus_per_node = {1}};
  auto argv = DaemonLaunchArgv(alloc, {.srun = "/usr/bin/srun",
                                       .pschedd = "pschedd",
                                       .step_name = "psched-daemons",
                                       .srun_args = {"--label"}});
  ASSERT_TRUE(argv.has_value());
  EXPECT_EQ(argv->front(), "/usr/bin/srun");
  EXPECT_EQ((*argv)[3], "--nodes=1");
  EXPECT_EQ((*argv)[9], "--job-name=psched-daemons");
  EXPECT_EQ(argv->back(), "pschedd");
  EXPECT_EQ((*argv)[argv->size() - 2], "--label");
}

TEST(DaemonLaunchArgv, LeaderAloneThenTheRest) {
  SlurmAllocation alloc = **ParseAllocation(SallocEnv());
  auto leader = DaemonLaunchArgv(alloc, {.pschedd = "pschedd", .first_node = 0, .num_nodes = 1});
  ASSERT_TRUE(leader.has_value()) << leader.error().ToString();
  EXPECT_EQ((*leader)[1], "--overlap");
  EXPECT_EQ((*leader)[2], "--relative=0");  // the first node even from a step shell elsewhere
  EXPECT_EQ((*leader)[3], "--nodes=1");
  EXPECT_EQ((*leader)[4], "--ntasks=1");

  auto rest = DaemonLaunchArgv(alloc, {.pschedd = "pschedd", .first_node = 1});
  ASSERT_TRUE(rest.has_value()) << rest.error().ToString();
  EXPECT_EQ((*rest)[2], "--relative=1");
  EXPECT_EQ((*rest)[3], "--nodes=3");
  EXPECT_EQ((*rest)[4], "--ntasks=3");

  auto middle = DaemonLaunchArgv(alloc, {.pschedd = "pschedd", .first_node = 2, .num_nodes = 2});
  ASSERT_TRUE(middle.has_value());
  EXPECT_EQ((*middle)[2], "--relative=2");
  EXPECT_EQ((*middle)[3], "--nodes=2");
}

TEST(DaemonLaunchArgv, NodesOutsideTheAllocationAreRefused) {
  SlurmAllocation alloc = **ParseAllocation(SallocEnv());
  auto error_of = [&](int first, int count) {
    auto argv = DaemonLaunchArgv(alloc, {.pschedd = "p", .first_node = first, .num_nodes = count});
    EXPECT_FALSE(argv.has_value()) << first << "+" << count;
    return argv ? std::string() : argv.error().message();
  };
  EXPECT_EQ(error_of(4, 0), "daemon launch: first node 4 is not in allocation 12 of 4 nodes");
  EXPECT_NE(error_of(-1, 0).find("first node -1"), std::string::npos);
  EXPECT_EQ(error_of(2, 3),
            "daemon launch: 3 nodes from node 2 do not fit in allocation 12 of 4 nodes");
  EXPECT_NE(error_of(0, -2).find("do not fit"), std::string::npos);
}

TEST(DaemonLaunchArgv, RefusesMissingPiecesClearly) {
  SlurmAllocation alloc{.job_id = "5", .nodes = {"a"}, .cpus_per_node = {1}};
  auto no_daemon = DaemonLaunchArgv(alloc, {});
  ASSERT_FALSE(no_daemon.has_value());
  EXPECT_EQ(no_daemon.error().message(), "daemon launch: no pschedd binary given");

  auto no_srun = DaemonLaunchArgv(alloc, {.srun = "", .pschedd = "pschedd"});
  ASSERT_FALSE(no_srun.has_value());

  SlurmAllocation empty{.job_id = "5"};
  auto no_nodes = DaemonLaunchArgv(empty, {.pschedd = "pschedd"});
  ASSERT_FALSE(no_nodes.has_value());
  EXPECT_EQ(no_nodes.error().message(), "daemon launch: allocation 5 has no nodes");
}

// What srun puts into the environment of the second task of a 4-node step.
Environment StepEnv() {
  return {
      {"SLURM_JOB_ID", "12"},        {"SLURM_STEP_ID", "0"}, {"SLURMD_NODENAME", "n2"},
      {"SLURM_STEP_NUM_NODES", "4"}, {"SLURM_NNODES", "4"},  {"SLURM_NODEID", "1"},
      {"SLURM_PROCID", "1"},         {"SLURM_LOCALID", "0"},
  };
}

TEST(ParseDaemonStep, ReadsWhereTheTaskRuns) {
  auto step = ParseDaemonStep(StepEnv());
  ASSERT_TRUE(step.has_value()) << step.error().ToString();
  EXPECT_EQ(step->job_id, "12");
  EXPECT_EQ(step->step_id, "0");
  EXPECT_EQ(step->node_index, 1);
  EXPECT_EQ(step->node_name, "n2");
  EXPECT_EQ(step->num_nodes, 4);
}

TEST(ParseDaemonStep, MissingOrMalformedVariablesAreNamed) {
  auto error_of = [](const Environment& env) {
    auto step = ParseDaemonStep(env);
    EXPECT_FALSE(step.has_value());
    return step ? std::string() : step.error().message();
  };
  Environment env = StepEnv();
  env.erase("SLURM_STEP_ID");
  EXPECT_EQ(error_of(env),
            "SLURM_STEP_ID is not set: not a task started by srun inside an allocation");

  env = StepEnv();
  env.erase("SLURMD_NODENAME");
  EXPECT_NE(error_of(env).find("SLURMD_NODENAME is not set"), std::string::npos);

  env = StepEnv();
  env["SLURMD_NODENAME"] = "";
  EXPECT_EQ(error_of(env), "SLURMD_NODENAME is empty");

  env = StepEnv();
  env["SLURM_NODEID"] = "4";
  EXPECT_EQ(error_of(env), "SLURM_NODEID='4' is not a node index below SLURM_STEP_NUM_NODES='4'");

  env = StepEnv();
  env["SLURM_NODEID"] = "x";
  EXPECT_NE(error_of(env).find("SLURM_NODEID='x'"), std::string::npos);

  env = StepEnv();
  env["SLURM_STEP_NUM_NODES"] = "0";
  EXPECT_NE(error_of(env).find("not a positive integer"), std::string::npos);

  EXPECT_NE(error_of({}).find("SLURM_JOB_ID is not set"), std::string::npos);
}

}  // namespace
}  // namespace psched::slurm
