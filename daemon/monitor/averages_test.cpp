#include "daemon/monitor/averages.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace psched::daemon::monitor {
namespace {

TEST(Averages, FirstSampleSetsAllThree) {
  Averages a = Advance({}, 2.5, 5);
  EXPECT_TRUE(a.primed);
  EXPECT_DOUBLE_EQ(a.m1, 2.5);
  EXPECT_DOUBLE_EQ(a.m5, 2.5);
  EXPECT_DOUBLE_EQ(a.m15, 2.5);
}

TEST(Averages, StepMovesByOneMinusExpOfDtOverPeriod) {
  Averages a = Advance({}, 0, 5);
  a = Advance(a, 1, 5);
  EXPECT_NEAR(a.m1, 1 - std::exp(-5.0 / 60), 1e-12);
  EXPECT_NEAR(a.m5, 1 - std::exp(-5.0 / 300), 1e-12);
  EXPECT_NEAR(a.m15, 1 - std::exp(-5.0 / 900), 1e-12);
}

TEST(Averages, OneMinuteOfConstantLoadReachesOneMinusOneOverE) {
  // The kernel's definition: after one period of a constant load from zero the
  // average is at 1 - 1/e of it, whatever the sample spacing.
  for (double dt : {0.5, 5.0, 60.0}) {
    Averages a = Advance({}, 0, dt);
    for (double t = 0; t < 60 - 1e-9; t += dt) a = Advance(a, 4, dt);
    EXPECT_NEAR(a.m1, 4 * (1 - std::exp(-1.0)), 1e-9) << "dt " << dt;
    EXPECT_NEAR(a.m15, 4 * (1 - std::exp(-60.0 / 900)), 1e-9) << "dt " << dt;
  }
}

TEST(Averages, DecaysTowardsZeroAndShorterPeriodsFaster) {
  Averages a = Advance({}, 8, 1);
  for (int i = 0; i < 120; ++i) a = Advance(a, 0, 1);
  EXPECT_NEAR(a.m1, 8 * std::exp(-2.0), 1e-9);
  EXPECT_LT(a.m1, a.m5);
  EXPECT_LT(a.m5, a.m15);
}

TEST(Averages, NonPositiveIntervalKeepsTheAverages) {
  Averages a = Advance(Advance({}, 1, 1), 3, 1);
  Averages b = Advance(a, 100, 0);
  EXPECT_DOUBLE_EQ(b.m1, a.m1);
  b = Advance(a, 100, -2);
  EXPECT_DOUBLE_EQ(b.m15, a.m15);
}

}  // namespace
}  // namespace psched::daemon::monitor
