#include "djsb/demo_plan.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

// Every emulated PU has a real core of its own, and the analysis takes a fifth of them.
void ExpectPlan(int cores, int nodes, int pus, int ana_ranks, int ana_threads, double target) {
  DemoPlan p = PlanDemo(cores);
  EXPECT_EQ(p.nodes, nodes) << cores;
  EXPECT_EQ(p.pus_per_node, pus) << cores;
  EXPECT_LE(p.nodes * p.pus_per_node, cores);
  EXPECT_EQ(p.Topology(), "pack:1 core:" + std::to_string(pus) + " pu:1");
  EXPECT_EQ(p.simulation.ranks, nodes) << cores;
  EXPECT_EQ(p.simulation.threads, pus) << cores;
  EXPECT_EQ(p.analysis.ranks, ana_ranks) << cores;
  EXPECT_EQ(p.analysis.threads, ana_threads) << cores;
  // The same data per slot: the analysis's array is its share of the simulation's.
  EXPECT_EQ(p.analysis.array_size * p.simulation.Slots(),
            p.simulation.array_size * p.analysis.Slots());
  EXPECT_DOUBLE_EQ(p.sim_target_s, target);
}

TEST(DjsbDemoPlan, TwoCoresGiveTwoOnePuNodesAndAOneSlotAnalysis) {
  ExpectPlan(2, 2, 1, 1, 1, 6);
}

TEST(DjsbDemoPlan, SixteenCoresGiveFourNodesOfFour) {
  ExpectPlan(16, 4, 4, 3, 1, 20);
}

TEST(DjsbDemoPlan, HundredSixtyCoresGiveThePapersFourNodesOfForty) {
  ExpectPlan(160, 4, 40, 4, 8, 20);  // 32 of 160 slots, as in the paper
}

TEST(DjsbDemoPlan, OddCountsLeaveCoresUnusedRatherThanFold) {
  ExpectPlan(6, 4, 1, 1, 1, 6);
  ExpectPlan(1, 1, 1, 1, 1, 6);
}

TEST(DjsbDemoPlan, SidestepIsLeftOutOnOnePuNodes) {
  DjsbConfig c;
  ApplyDemoPlan(PlanDemo(2), &c);
  EXPECT_EQ(c.policies, (std::vector<std::string>{"wait", "surpass", "overbook"}));
  EXPECT_NE(PlanDemo(2).note.find("sidestep is left out"), std::string::npos);
  DjsbConfig big;
  ApplyDemoPlan(PlanDemo(16), &big);
  EXPECT_EQ(big.policies.size(), 4u);
  EXPECT_TRUE(PlanDemo(16).note.empty());
}

TEST(DjsbDemoPlan, AppliedPlanKeepsTheConfiguredIterationsAndSetsTheTarget) {
  DjsbConfig c;
  c.simulation.iterations = 9;
  ApplyDemoPlan(PlanDemo(16), &c);
  EXPECT_EQ(c.simulation.ranks, 4);
  EXPECT_EQ(c.simulation.threads, 4);
  EXPECT_EQ(c.simulation.iterations, 9);
  EXPECT_DOUBLE_EQ(c.sim_target_s, 20);
  EXPECT_TRUE(ValidateConfig(c).has_value());
}

}  // namespace
}  // namespace psched::djsb
