// Samples to state intervals: the timeline the SVG draws.
#include "djsb/timeline.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

StateSample Running(const std::string& cpus, int procs = 2) {
  return {procs, 0, cpus, ""};
}
StateSample Stopped(const std::string& cpus, int procs = 2) {
  return {procs, procs, cpus, ""};
}
StateSample Absent() {
  return {};
}

TEST(DjsbTimeline, ParsesCpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11"), (std::set<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList(""), std::set<int>{});
  EXPECT_EQ(ParseCpuList("x,2"), std::set<int>{2});
}

TEST(DjsbTimeline, NoSamplesMeansWaitingThenRunning) {
  auto t = BuildTimelines({{0, 1, 5}}, {});
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t[0].size(), 2u);
  EXPECT_EQ(t[0][0].state, "waiting");
  EXPECT_DOUBLE_EQ(t[0][0].t1, 1);
  EXPECT_EQ(t[0][1].state, "running");
  EXPECT_DOUBLE_EQ(t[0][1].t0, 1);
  EXPECT_DOUBLE_EQ(t[0][1].t1, 5);
}

TEST(DjsbTimeline, SurpassShowsTheSimulationSuspendedWhileTheAnalysisRuns) {
  // sim runs 0..10; ana submitted at 3, runs 3..6 on disjoint cpus while sim is stopped.
  std::vector<SampleTick> ticks;
  for (int t = 0; t <= 10; ++t) {
    bool ana_on = t >= 3 && t < 6;
    ticks.push_back(
        {double(t),
         {ana_on ? Stopped("0-1") : Running("0-1"), ana_on ? Running("2-3") : Absent()}});
  }
  auto tl = BuildTimelines({{0, 0, 10}, {3, 3, 6}}, ticks);
  ASSERT_EQ(tl[0].size(), 3u);
  EXPECT_EQ(tl[0][0].state, "running");
  EXPECT_EQ(tl[0][1].state, "suspended");
  EXPECT_DOUBLE_EQ(tl[0][1].t0, 3);
  EXPECT_DOUBLE_EQ(tl[0][1].t1, 6);
  EXPECT_EQ(tl[0][2].state, "running");
  ASSERT_EQ(tl[1].size(), 1u);
  EXPECT_EQ(tl[1][0].state, "running");  // the stopped simulation does not count as sharing
}

TEST(DjsbTimeline, SharedCpusAreOverbookedAndMovedCpusAreSidestepped) {
  std::vector<SampleTick> ticks = {
      {0, {Running("0-3"), Absent()}},
      {2, {Running("0-3"), Running("3")}},  // analysis on cpu 3 beside the simulation
      {4, {Running("0-2"), Running("3")}},  // simulation re-pinned away
      {6, {Running("0-3"), Absent()}},
  };
  auto tl = BuildTimelines({{0, 0, 8}, {2, 2, 5}}, ticks);
  std::vector<std::string> sim;
  for (const auto& iv : tl[0]) sim.push_back(iv.state);
  EXPECT_EQ(sim, (std::vector<std::string>{"running", "overbooked", "sidestepped", "running"}));
  EXPECT_EQ(tl[1][0].state, "overbooked");
}

TEST(DjsbTimeline, BindingAtStartupIsNotASidestep) {
  // A launcher binds ranks after they start: cpus change while the session is alone.
  std::vector<SampleTick> ticks = {{0.1, {Running("0-1", 1)}},
                                   {0.2, {Running("0-1", 2)}},
                                   {0.3, {Running("1", 2)}},
                                   {0.4, {Running("1", 2)}}};
  auto tl = BuildTimelines({{0, 0, 1}}, ticks);
  for (const auto& iv : tl[0]) EXPECT_EQ(iv.state, "running") << iv.t0;
}

TEST(DjsbTimeline, PschedCtlStateWins) {
  std::vector<SampleTick> ticks = {{1, {{2, 0, "0-1", "sidestepped"}}}};
  auto tl = BuildTimelines({{0, 0, 2}}, ticks);
  ASSERT_EQ(tl[0].size(), 1u);
  EXPECT_EQ(tl[0][0].state, "sidestepped");
}

TEST(DjsbTimeline, WaitPolicyShowsTheAnalysisWaiting) {
  std::vector<SampleTick> ticks = {{0, {Running("0-1"), Absent()}},
                                   {5, {Running("0-1"), Absent()}},
                                   {10, {Absent(), Running("0-1")}}};
  auto tl = BuildTimelines({{0, 0, 10}, {4, 10, 12}}, ticks);
  ASSERT_GE(tl[1].size(), 2u);
  EXPECT_EQ(tl[1][0].state, "waiting");
  EXPECT_DOUBLE_EQ(tl[1][0].t0, 4);
  EXPECT_DOUBLE_EQ(tl[1][0].t1, 10);
  EXPECT_EQ(tl[1][1].state, "running");
}

}  // namespace
}  // namespace psched::djsb
