#include "djsb/paired_metrics.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

// A run of `round` whose sessions began at 0 and took these times (sim first).
ScenarioRun RunOf(int round, const std::vector<double>& executions, double wait = 0) {
  ScenarioRun run;
  run.repeat = round;
  for (double x : executions) {
    SessionRecord s;
    s.times = {0, wait, wait + x};
    run.sessions.push_back(s);
  }
  return run;
}

DjsbConfig Config() {
  DjsbConfig c;
  c.simulation.ranks = 2;
  c.analysis.ranks = 1;
  return c;
}

// The machine ran at two speeds: round 0 slow (simulation alone 6 s), round 1 fast (4 s).
// In both rounds the scenario slowed the simulation by the same 1.25 and the analysis by
// 2, and the analysis waited its launch overhead: compared with its own round's references, both
// runs give the same D; compared with the median of both rounds (5 s), the fast round's E_sim came
// out 1.5x the slow one's.
TEST(DjsbPairedMetrics, EachRunIsComparedWithItsOwnRoundsReferences) {
  FamilyReferences fam;
  fam.sim_alone = {RunOf(0, {6.0}), RunOf(1, {4.0})};
  fam.ana_alone = {RunOf(0, {2.0}, 0.25), RunOf(1, {4.0 / 3}, 0.25)};
  const std::vector<ScenarioRun> runs = {RunOf(0, {7.5, 4.0}, 0.25),
                                         RunOf(1, {5.0, 8.0 / 3}, 0.25)};
  auto m = PairedMetrics(runs, fam, Config());
  ASSERT_TRUE(m) << m.error().ToString();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_NEAR((*m)[0].sim_real_slowdown, 1.25, 1e-9);
  EXPECT_NEAR((*m)[1].sim_real_slowdown, 1.25, 1e-9);
  EXPECT_NEAR((*m)[0].e_sim, (*m)[1].e_sim, 1e-9);
  EXPECT_NEAR((*m)[0].d, (*m)[1].d, 1e-9);
  // The medians of every round are what the table shows.
  const References all = ReferencesOf(fam, Config(), -1);
  EXPECT_DOUBLE_EQ(all.sim_alone_execution, 5.0);
  EXPECT_DOUBLE_EQ(all.ana_static_wait, 0.25);
}

// A round whose reference runs failed: its run falls back to every round's medians.
TEST(DjsbPairedMetrics, ARoundWithoutReferencesUsesTheMediansOfAll) {
  FamilyReferences fam;
  fam.sim_alone = {RunOf(0, {6.0}), RunOf(1, {4.0})};
  fam.ana_alone = {RunOf(0, {2.0}, 0.25), RunOf(1, {2.0}, 0.25)};
  auto m = PairedMetrics({RunOf(2, {6.0, 4.0})}, fam, Config());
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_NEAR((*m)[0].sim_real_slowdown, 6.0 / 5.0, 1e-9);
  // No references at all: an error, not a division by zero.
  EXPECT_FALSE(PairedMetrics({RunOf(0, {6.0, 4.0})}, FamilyReferences{}, Config()));
}

}  // namespace
}  // namespace psched::djsb
