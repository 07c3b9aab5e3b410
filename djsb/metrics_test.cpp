// Hand-worked examples for the djsb reconstruction, including the paper's rows.
//
// The paper's configuration: simulation 160 slots, analysis 32 slots (overlap 0.2).
// Take X_sim alone = 100 s and X_ana alone = 21.2 s (what makes both rows fit):
//   ES_sim = (100 + 0.2 * 21.2) / 100 = 1.0424; ES_ana = 1 / 0.5 = 2.
// Wait: the simulation runs alone (RS 1): E_sim = 1.04. The analysis, submitted at
//   59 s, starts when the simulation ends at 100 s (wait 41 s) and runs alone (RS 1):
//   E_ana = 2.0; C = 0.5 * 100 = 50: W = 50 / (41 + 50) = 0.549; D = 1.0424*2*0.549 = 1.15.
// Surpass: the simulation is stopped for the analysis's 21.2 s: RS_sim = 1.212,
//   E_sim = 1.0424 / 1.212 = 0.86; the analysis starts at once: W = 1, E_ana = 2.0;
//   D = 0.86 * 2 = 1.72.
#include "djsb/metrics.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

References PaperRefs() {
  References r;
  r.sim_alone_execution = 100;
  r.ana_alone_execution = 21.2;
  r.ana_static_wait = 0;
  r.sim_slots = 160;
  r.ana_slots = 32;
  return r;
}

ResolvedConstants PaperConstants() {
  auto c = ResolveConstants(MetricConstants{}, PaperRefs());
  EXPECT_TRUE(c.has_value());
  return *c;
}

TEST(DjsbMetrics, RunTimesGiveWaitExecutionResponse) {
  RunTimes t{10, 12.5, 20};
  EXPECT_DOUBLE_EQ(t.Wait(), 2.5);
  EXPECT_DOUBLE_EQ(t.Execution(), 7.5);
  EXPECT_DOUBLE_EQ(t.Response(), 10);
}

TEST(DjsbMetrics, DefaultConstantsDeriveFromTheReferences) {
  ResolvedConstants c = PaperConstants();
  EXPECT_DOUBLE_EQ(c.wait_constant_s, 50);
  EXPECT_TRUE(c.wait_constant_derived);
  EXPECT_DOUBLE_EQ(c.slot_overlap, 0.2);
  EXPECT_TRUE(c.slot_overlap_derived);
  EXPECT_DOUBLE_EQ(c.analysis_share, 0.5);
}

TEST(DjsbMetrics, PaperWaitPolicyRow) {
  // Simulation 0..100 s alone; analysis submitted at 59 s, runs 100..121.2 s.
  auto m = ComputeRun({0, 0, 100}, {{59, 100, 121.2}}, PaperRefs(), PaperConstants());
  ASSERT_TRUE(m.has_value()) << m.error().ToString();
  EXPECT_NEAR(m->sim_expected_slowdown, 1.0424, 1e-9);
  EXPECT_NEAR(m->sim_real_slowdown, 1.0, 1e-9);
  EXPECT_NEAR(m->e_sim, 1.04, 0.005);
  EXPECT_NEAR(m->e_ana, 2.0, 1e-9);    // E_ana 2.0 when the analysis runs alone
  EXPECT_NEAR(m->w_ana, 0.55, 0.005);  // W < 1 because it waited
  EXPECT_LT(m->w_ana, 1.0);
  EXPECT_NEAR(m->d, 1.15, 0.005);
  ASSERT_EQ(m->analyses.size(), 1u);
  EXPECT_NEAR(m->analyses[0].wait, 41, 1e-9);
  EXPECT_NEAR(m->analyses[0].response, 62.2, 1e-9);
  EXPECT_NEAR(m->analyses[0].slowdown, 62.2 / 21.2, 1e-9);
}

TEST(DjsbMetrics, PaperSurpassPolicyRow) {
  // Analysis submitted at 59 s starts at once; the simulation is stopped meanwhile.
  auto m = ComputeRun({0, 0, 121.2}, {{59, 59, 80.2}}, PaperRefs(), PaperConstants());
  ASSERT_TRUE(m.has_value()) << m.error().ToString();
  EXPECT_NEAR(m->sim_real_slowdown, 1.212, 1e-9);
  EXPECT_NEAR(m->e_sim, 0.86, 0.005);
  EXPECT_NEAR(m->e_ana, 2.0, 1e-9);
  EXPECT_NEAR(m->w_ana, 1.0, 1e-12);
  EXPECT_NEAR(m->d, 1.72, 0.005);
}

TEST(DjsbMetrics, OverbookedAnalysisHalfSpeedHasEfficiencyOne) {
  // Two sessions sharing slots: the analysis runs at half speed, exactly as expected.
  auto m = ComputeRun({0, 0, 110}, {{50, 50, 92.4}}, PaperRefs(), PaperConstants());
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->analyses[0].real_slowdown, 2.0, 1e-9);
  EXPECT_NEAR(m->e_ana, 1.0, 1e-9);
  EXPECT_NEAR(m->e_sim, 1.0424 / 1.1, 1e-9);
}

TEST(DjsbMetrics, StaticWaitIsTheLaunchOverheadSoWaitingOnlyThatGivesOne) {
  References refs = PaperRefs();
  refs.ana_static_wait = 0.3;
  auto c = ResolveConstants(MetricConstants{}, refs);
  ASSERT_TRUE(c.has_value());
  auto m = ComputeRun({0, 0, 121.2}, {{59, 59.3, 80.5}}, refs, *c);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->w_ana, 1.0, 1e-12);
  // Faster than the static case gives W > 1, as the paper allows.
  auto faster = ComputeRun({0, 0, 121.2}, {{59, 59.1, 80.3}}, refs, *c);
  EXPECT_GT(faster->w_ana, 1.0);
}

TEST(DjsbMetrics, SeveralAnalysesAddToTheSimulationsExpectedSlowdownAndAverage) {
  // Two analyses: ES_sim = (100 + 2 * 0.2 * 21.2) / 100; one waits 41 s, one none.
  auto m =
      ComputeRun({0, 0, 100}, {{59, 100, 121.2}, {10, 10, 31.2}}, PaperRefs(), PaperConstants());
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->sim_expected_slowdown, 1.0848, 1e-9);
  EXPECT_NEAR(m->w_ana, 0.5 * (50.0 / 91.0 + 1.0), 1e-9);
  EXPECT_NEAR(m->e_ana, 2.0, 1e-9);
}

TEST(DjsbMetrics, ExplicitConstantsOverrideTheDerivedOnes) {
  MetricConstants mc;
  mc.wait_constant_s = 10;
  mc.analysis_share = 0.25;
  mc.slot_overlap = 1.0;
  auto c = ResolveConstants(mc, PaperRefs());
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->wait_constant_derived);
  EXPECT_FALSE(c->slot_overlap_derived);
  auto m = ComputeRun({0, 0, 100}, {{0, 10, 31.2}}, PaperRefs(), *c);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->sim_expected_slowdown, 1.212, 1e-9);
  EXPECT_NEAR(m->e_ana, 4.0, 1e-9);
  EXPECT_NEAR(m->w_ana, 10.0 / 20.0, 1e-9);
  std::string text = DescribeConstants(*c);
  EXPECT_NE(text.find("RECONSTRUCTION"), std::string::npos);
  EXPECT_NE(text.find("C = 10.000 s"), std::string::npos) << text;
  EXPECT_NE(text.find("sigma (analysis share) = 0.250"), std::string::npos) << text;
}

TEST(DjsbMetrics, DescribeConstantsSaysWhatWasDerived) {
  std::string text = DescribeConstants(PaperConstants());
  EXPECT_NE(text.find("C = 50.000 s (0.500 x X_sim alone)"), std::string::npos) << text;
  EXPECT_NE(text.find("slot overlap = 0.200 (analysis slots / simulation slots)"),
            std::string::npos)
      << text;
}

TEST(DjsbMetrics, BadReferencesAndConstantsAreErrors) {
  References refs = PaperRefs();
  refs.sim_alone_execution = 0;
  EXPECT_FALSE(ResolveConstants({}, refs).has_value());
  refs = PaperRefs();
  refs.ana_alone_execution = -1;
  EXPECT_FALSE(ResolveConstants({}, refs).has_value());
  MetricConstants mc;
  mc.analysis_share = 0;
  auto bad = ResolveConstants(mc, PaperRefs());
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("analysis_share"), std::string::npos);
  mc = {};
  mc.slot_overlap = 1.5;
  EXPECT_FALSE(ResolveConstants(mc, PaperRefs()).has_value());
  mc = {};
  mc.wait_constant_s = 0;
  EXPECT_FALSE(ResolveConstants(mc, PaperRefs()).has_value());
}

TEST(DjsbMetrics, BadRunTimesAreErrors) {
  ResolvedConstants c = PaperConstants();
  EXPECT_FALSE(ComputeRun({0, 10, 5}, {{0, 0, 1}}, PaperRefs(), c).has_value());
  EXPECT_FALSE(ComputeRun({0, 0, 10}, {}, PaperRefs(), c).has_value());
  auto zero = ComputeRun({0, 0, 10}, {{0, 1, 1}}, PaperRefs(), c);
  ASSERT_FALSE(zero.has_value());
  EXPECT_NE(zero.error().message().find("analysis 0"), std::string::npos);
}

TEST(DjsbMetrics, MedianOverRepeats) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 2, 3}), 2.5);
  ResolvedConstants c = PaperConstants();
  std::vector<RunMetrics> runs;
  for (double sim_end : {100.0, 121.2, 110.0}) {
    auto m = ComputeRun({0, 0, sim_end}, {{59, 59, 80.2}}, PaperRefs(), c);
    ASSERT_TRUE(m.has_value());
    runs.push_back(*m);
  }
  auto s = Summarize(runs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->repeats, 3);
  EXPECT_NEAR(s->sim_execution, 110, 1e-9);
  EXPECT_NEAR(s->e_sim, 1.0424 / 1.1, 1e-9);
  EXPECT_NEAR(s->d, 2 * 1.0424 / 1.1, 1e-9);
  EXPECT_FALSE(Summarize({}).has_value());
}

}  // namespace
}  // namespace psched::djsb
