#include "scheduler/sim/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace psched::sim {
namespace {

TEST(MetricsTest, ShapeCountsBlocksAndSpread) {
  // Nodes 3,4,5 and 9: two blocks; (9 - 3 + 1) / 4 = 1.75.
  NodeShape s = ShapeOf({9, 4, 3, 5, 4});
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_DOUBLE_EQ(s.spread, 1.75);
  s = ShapeOf({7});
  EXPECT_EQ(s.blocks, 1);
  EXPECT_DOUBLE_EQ(s.spread, 1.0);
}

TEST(MetricsTest, StatMeanStddevMedian) {
  Stat s = StatOf({1, 2, 3, 6});
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 6);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt((4 + 1 + 0 + 9) / 4.0));
}

TEST(MetricsTest, SlowdownsByHand) {
  JobRecord r;
  r.submit = 10;
  r.start = 40;
  r.end = 45;
  r.runtime = 5;
  EXPECT_DOUBLE_EQ(r.Wait(), 30);
  EXPECT_DOUBLE_EQ(r.Slowdown(), 35.0 / 5);
  EXPECT_DOUBLE_EQ(r.BoundedSlowdown(), 35.0 / 10);  // runtime below tau = 10 s
  r.start = 10;
  r.end = 15;
  EXPECT_DOUBLE_EQ(r.BoundedSlowdown(), 1.0);  // never below 1
}

TEST(MetricsTest, SummaryUtilisationIsTheoreticalOverRuntime) {
  // 2 nodes x 2 cores. Job a: 4 cores x 100 s from 0; job b: 2 cores x 50 s, waits 100 s.
  Machine m{2, 2, 0};
  std::vector<JobRecord> rs(3);
  rs[0].cores = 4, rs[0].submit = 0, rs[0].start = 0, rs[0].end = 100, rs[0].runtime = 100;
  rs[1].cores = 2, rs[1].submit = 0, rs[1].start = 100, rs[1].end = 150, rs[1].runtime = 50;
  rs[2].cores = 2, rs[2].submit = 0;  // rejected: never ran
  rs[0].fragmentation = 1, rs[1].fragmentation = 1;
  rs[0].packing = 1, rs[1].packing = 2;
  Summary s = Summarise(rs, m);
  EXPECT_EQ(s.jobs, 2);
  EXPECT_EQ(s.rejected, 1);
  // Theoretical runtime (400 + 100) / 4 = 125 s; runtime 150 s; utilisation 5/6.
  EXPECT_DOUBLE_EQ(s.theoretical_runtime_s, 125);
  EXPECT_DOUBLE_EQ(s.makespan_s, 150);
  EXPECT_DOUBLE_EQ(s.utilisation, 125.0 / 150);
  EXPECT_DOUBLE_EQ(s.wait_s.mean, 50);
  EXPECT_DOUBLE_EQ(s.slowdown.mean, (1 + 3) / 2.0);
  EXPECT_DOUBLE_EQ(s.packing.mean, 1.5);
  auto busy = BusyCoresOverTime(rs);
  ASSERT_EQ(busy.size(), 3u);
  EXPECT_EQ(busy[0], std::make_pair(0.0, 4));
  EXPECT_EQ(busy[1], std::make_pair(100.0, 2));
  EXPECT_EQ(busy[2], std::make_pair(150.0, 0));
}

}  // namespace
}  // namespace psched::sim
