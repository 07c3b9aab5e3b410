#include "common/timeval.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace psched {
namespace {

TEST(TimevalFromSeconds, SplitsWholeAndMicroseconds) {
  timeval t = TimevalFromSeconds(2.25);
  EXPECT_EQ(t.tv_sec, 2);
  EXPECT_EQ(t.tv_usec, 250000);
  t = TimevalFromSeconds(0.001);
  EXPECT_EQ(t.tv_sec, 0);
  EXPECT_EQ(t.tv_usec, 1000);
  t = TimevalFromSeconds(0.9999997);
  EXPECT_EQ(t.tv_sec, 1);
  EXPECT_EQ(t.tv_usec, 0);
}

TEST(TimevalFromSeconds, NonsenseIsClampedNotUndefined) {
  for (double bad :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
    timeval t = TimevalFromSeconds(bad);
    EXPECT_EQ(t.tv_sec, 0) << bad;
    EXPECT_EQ(t.tv_usec, 0) << bad;
  }
  for (double huge : {1e300, std::numeric_limits<double>::infinity()}) {
    timeval t = TimevalFromSeconds(huge);
    EXPECT_EQ(t.tv_sec, 365 * 24 * 3600) << huge;
    EXPECT_EQ(t.tv_usec, 0) << huge;
  }
}

}  // namespace
}  // namespace psched
