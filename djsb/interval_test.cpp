#include "djsb/interval.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace psched::djsb {
namespace {

// t(0.975, 2) = 4.302653 (any table of Student's t): mean 2, s 1, n 3.
TEST(DjsbInterval, StudentsTIntervalOfTheMean) {
  Interval i = ConfidenceInterval({3.0, 1.0, 2.0});
  EXPECT_EQ(i.n, 3);
  EXPECT_DOUBLE_EQ(i.median, 2.0);
  EXPECT_NEAR(i.lo, 2.0 - 4.302653 / std::sqrt(3.0), 1e-5);
  EXPECT_NEAR(i.hi, 2.0 + 4.302653 / std::sqrt(3.0), 1e-5);
  // t(0.975, 6) = 2.446912: seven repeats narrow it.
  Interval seven = ConfidenceInterval({1, 2, 3, 2, 1, 3, 2});
  EXPECT_NEAR(seven.hi - 2.0, 2.446912 * std::sqrt(4.0 / 6.0) / std::sqrt(7.0), 1e-5);
}

TEST(DjsbInterval, OneValueHasNoInterval) {
  Interval i = ConfidenceInterval({1.5});
  EXPECT_FALSE(i.Known());
  EXPECT_DOUBLE_EQ(i.lo, 1.5);
  EXPECT_DOUBLE_EQ(i.hi, 1.5);
  EXPECT_FALSE(TightEnough(i, 0.1));
  EXPECT_FALSE(Apart(i, ConfidenceInterval({3.0, 3.0})));
}

TEST(DjsbInterval, StopsWhenWithinTenPercentOfTheMedianOnBothSides) {
  EXPECT_TRUE(TightEnough(ConfidenceInterval({1.0, 1.0, 1.0}), 0.1));
  // mean 1.0, s 0.01, n 3: half width 0.0248 < 0.1.
  EXPECT_TRUE(TightEnough(ConfidenceInterval({0.99, 1.0, 1.01}), 0.1));
  // half width 2.48 for a median of 2: far too wide.
  EXPECT_FALSE(TightEnough(ConfidenceInterval({1.0, 2.0, 3.0}), 0.1));
  // Skewed: the median sits at the interval's edge, one side is too far.
  Interval skew = ConfidenceInterval({1.0, 1.0, 1.3});
  EXPECT_FALSE(TightEnough(skew, 0.1)) << skew.lo << " " << skew.median << " " << skew.hi;
}

TEST(DjsbInterval, ApartOnlyWhenTheIntervalsDoNotOverlap) {
  Interval low = ConfidenceInterval({1.0, 1.1, 0.9});
  Interval high = ConfidenceInterval({2.0, 2.1, 1.9});
  Interval wide = ConfidenceInterval({1.0, 2.0, 3.0});
  EXPECT_TRUE(Apart(low, high));
  EXPECT_TRUE(Apart(high, low));
  EXPECT_FALSE(Apart(low, wide));
  EXPECT_FALSE(Apart(wide, high));
}

}  // namespace
}  // namespace psched::djsb
