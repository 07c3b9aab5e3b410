// psched-sim's allocation mode: a stream of sessions in one allocation, decided by the
// leader's step function, on a simulated clock. Worked by hand on one 4-PU node: a
// 4-rank session of 100 s at t=0 and a 2-rank session of 10 s at t=10.
#include "scheduler/sim/allocation_mode.hpp"

#include <gtest/gtest.h>

namespace psched::sim {
namespace {

AllocationSpec TwoSessions(const std::string& policy) {
  AllocationSpec spec;
  spec.nodes = 1;
  spec.pus_per_node = 4;
  spec.policies = {policy};
  spec.sessions = {{0, 4, 100, 0, "ann"}, {10, 2, 10, 0, "bob"}};
  return spec;
}

AllocationRun RunOne(const AllocationSpec& spec) {
  auto runs = RunAllocation(spec);
  EXPECT_TRUE(runs) << runs.error().ToString();
  return runs && !runs->empty() ? runs->front() : AllocationRun{};
}

TEST(AllocationMode, WaitStartsTheSecondWhenTheFirstEnds) {
  AllocationRun run = RunOne(TwoSessions("wait"));
  ASSERT_EQ(run.sessions.size(), 2u);
  EXPECT_DOUBLE_EQ(run.sessions[1].start_s, 100);
  EXPECT_DOUBLE_EQ(run.sessions[1].end_s, 110);
  EXPECT_DOUBLE_EQ(run.max_wait_s, 90);
  EXPECT_DOUBLE_EQ(run.mean_wait_s, 45);
  EXPECT_EQ(run.displacements, 0);
  EXPECT_DOUBLE_EQ(run.makespan_s, 110);
}

TEST(AllocationMode, SurpassSuspendsTheFirstWhileTheSecondRuns) {
  AllocationRun run = RunOne(TwoSessions("surpass"));
  EXPECT_DOUBLE_EQ(run.sessions[1].start_s, 10);
  EXPECT_DOUBLE_EQ(run.sessions[1].end_s, 20);
  EXPECT_EQ(run.sessions[0].displaced, 1);
  EXPECT_DOUBLE_EQ(run.sessions[0].end_s, 110) << "10 s suspended";
  EXPECT_EQ(run.displacements, 1);
}

TEST(AllocationMode, OverbookRunsBothAtHalfSpeedOnTheSharedSlots) {
  AllocationRun run = RunOne(TwoSessions("overbook"));
  EXPECT_DOUBLE_EQ(run.sessions[1].start_s, 10);
  EXPECT_NEAR(run.sessions[1].end_s, 30, 1e-9);
  EXPECT_NEAR(run.sessions[0].end_s, 110, 1e-9);
  EXPECT_EQ(run.displacements, 0);
}

TEST(AllocationMode, EveryPolicyRunsTheWholeStreamAndRefusalsAreCounted) {
  AllocationSpec spec = TwoSessions("wait");
  spec.policies = {"wait", "surpass", "overbook", "sidestep"};
  spec.sessions.push_back({20, 5, 10, 0, "cy"});  // wider than the allocation
  auto runs = RunAllocation(spec);
  ASSERT_TRUE(runs) << runs.error().ToString();
  ASSERT_EQ(runs->size(), 4u);
  for (const AllocationRun& run : *runs) {
    EXPECT_EQ(run.sessions.size(), 3u) << run.policy;
    EXPECT_GE(run.sessions[1].start_s, 10) << run.policy;
    EXPECT_GT(run.sessions[0].end_s, 0) << run.policy << ": the first never ended";
  }
  EXPECT_EQ((*runs)[0].refused, 1);
  EXPECT_NE((*runs)[0].sessions[2].refusal.find("4 slots"), std::string::npos)
      << (*runs)[0].sessions[2].refusal;
  EXPECT_EQ((*runs)[2].refused, 0) << "overbook runs it on shared slots";
  const std::string report = AllocationReport(*runs);
  EXPECT_NE(report.find("policy,sessions,refused,mean_wait_s,max_wait_s,displacements,makespan_s\n"
                        "wait,3,1,45.000,90.000,0,110.000\n"),
            std::string::npos)
      << report;
}

TEST(AllocationMode, SpecErrorsNameTheField) {
  EXPECT_FALSE(ParseAllocationSpec("[1]"));
  auto no_sessions = ParseAllocationSpec(R"({"nodes": 2})");
  ASSERT_FALSE(no_sessions);
  EXPECT_EQ(no_sessions.error().message(), "allocation spec: sessions: missing (required)");
  auto bad = ParseAllocationSpec(R"({"sessions": [{"ranks": 2, "runtime_s": 5}, {"ranks": 0}]})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "allocation spec: sessions[1].ranks: expected an integer in [1, 1048576], got 0");
  auto type = ParseAllocationSpec(R"({"nodes": "four", "sessions": []})");
  ASSERT_FALSE(type);
  EXPECT_EQ(type.error().message(),
            "allocation spec: nodes: expected an integer, got string \"four\"");
  auto policy = RunAllocation(*ParseAllocationSpec(
      R"({"policies": ["patience"], "sessions": [{"ranks": 1, "runtime_s": 1}]})"));
  ASSERT_FALSE(policy);
  EXPECT_NE(policy.error().message().find("patience"), std::string::npos);
}

TEST(AllocationMode, RepeatExpandsASessionEveryInterval) {
  auto spec = ParseAllocationSpec(
      R"({"nodes": 4, "pus_per_node": 40, "sessions": [
           {"ranks": 160, "runtime_s": 200},
           {"submit_s": 20, "ranks": 32, "runtime_s": 40, "repeat": 3, "every_s": 20}]})");
  ASSERT_TRUE(spec) << spec.error().ToString();
  ASSERT_EQ(spec->sessions.size(), 4u);
  EXPECT_DOUBLE_EQ(spec->sessions[3].submit_s, 60);
  EXPECT_EQ(spec->sessions[3].ranks, 32);
}

}  // namespace
}  // namespace psched::sim
