#include "djsb/repeat_rule.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

// A scenario whose repeats so far gave `values` as D.
RepeatCandidate Candidate(const std::string& name, bool policy, const std::vector<double>& values) {
  RepeatCandidate c;
  c.name = name;
  c.policy = policy;
  c.d = ConfidenceInterval(values);
  return c;
}

std::vector<size_t> Repeat(const std::vector<RepeatCandidate>& c, int max_repeats = 7) {
  return PlanRepeats(c, 3, max_repeats, 0.10).repeat;
}

TEST(DjsbRepeatRule, EveryScenarioGetsTheMinimumFirst) {
  std::vector<RepeatCandidate> c = {Candidate("wait", true, {}), Candidate("surpass", true, {}),
                                    Candidate("baseline-mpirun", false, {})};
  EXPECT_EQ(Repeat(c), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(PlanRepeats(c, 3, 7, 0.10).racing, "");
  // Two repeats each, intervals already apart: still a third for every scenario.
  c = {Candidate("wait", true, {0.8, 0.81}), Candidate("surpass", true, {2.0, 2.01}),
       Candidate("baseline-mpirun", false, {0.8, 0.82})};
  EXPECT_EQ(Repeat(c), (std::vector<size_t>{0, 1, 2}));
  // A skipped scenario is never repeated.
  c[0].skipped = true;
  EXPECT_EQ(Repeat(c), (std::vector<size_t>{1, 2}));
}

TEST(DjsbRepeatRule, AfterTheMinimumOnlyTheVerdictsPairRacesWhileTheirIntervalsOverlap) {
  // demo-s2.log, round 3: surpass [1.03, 1.98], baseline [0.18, 1.13]; wait and overbook
  // wide too, but the verdict does not compare them.
  std::vector<RepeatCandidate> c = {Candidate("wait", true, {0.93, 0.5, 1.2}),
                                    Candidate("surpass", true, {1.72, 1.60, 1.38}),
                                    Candidate("overbook", true, {0.92, 0.69, 1.0}),
                                    Candidate("baseline-mpirun", false, {0.57, 1.02, 0.48})};
  ASSERT_FALSE(Apart(c[1].d, c[3].d));
  RepeatPlan plan = PlanRepeats(c, 3, 7, 0.10);
  EXPECT_EQ(plan.repeat, (std::vector<size_t>{1, 3}));
  EXPECT_NE(plan.racing.find("repeating only surpass and baseline-mpirun for the verdict"),
            std::string::npos)
      << plan.racing;
}

TEST(DjsbRepeatRule, TheRaceEndsWhenTheIntervalsAreApart) {
  std::vector<RepeatCandidate> c = {Candidate("surpass", true, {2.0, 2.1, 1.9}),
                                    Candidate("overbook", true, {0.5, 1.5, 1.0}),
                                    Candidate("baseline-mpirun", false, {0.8, 0.9, 0.7})};
  RepeatPlan plan = PlanRepeats(c, 3, 7, 0.10);
  EXPECT_TRUE(plan.repeat.empty());
  EXPECT_NE(plan.racing.find("the verdict is decided"), std::string::npos) << plan.racing;
}

TEST(DjsbRepeatRule, OnlyTheWideOneRepeatsAndTheRaceEndsWhenBothAreTightOrAtTheMaximum) {
  // surpass within +-10% of its median, the baseline not, and they overlap.
  std::vector<RepeatCandidate> c = {Candidate("surpass", true, {1.0, 1.01, 0.99}),
                                    Candidate("baseline-mpirun", false, {0.5, 1.5, 1.0})};
  RepeatPlan plan = PlanRepeats(c, 3, 7, 0.10);
  EXPECT_EQ(plan.repeat, (std::vector<size_t>{1}));
  EXPECT_NE(plan.racing.find("repeating only baseline-mpirun for the verdict"), std::string::npos)
      << plan.racing;
  // Both tight and still overlapping: more repeats would not separate them.
  c[1] = Candidate("baseline-mpirun", false, {0.98, 0.99, 1.0});
  plan = PlanRepeats(c, 3, 7, 0.10);
  EXPECT_TRUE(plan.repeat.empty());
  EXPECT_NE(plan.racing.find("within the noise"), std::string::npos) << plan.racing;
  // Wide but at max_repeats: nothing more.
  c[1] = Candidate("baseline-mpirun", false, {0.5, 1.5, 1.0});
  EXPECT_TRUE(Repeat(c, 3).empty());
}

TEST(DjsbRepeatRule, APolicyThatOvertakesTheLeaderJoinsTheRace) {
  // overbook's median now beats surpass's: the pair is overbook and the baseline.
  std::vector<RepeatCandidate> c = {Candidate("surpass", true, {1.0, 1.6, 1.3}),
                                    Candidate("overbook", true, {1.4, 1.0, 1.8}),
                                    Candidate("baseline-mpirun", false, {0.6, 1.4, 1.0})};
  EXPECT_EQ(Repeat(c), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(*PickVerdictPair(c).best, 1u);
}

TEST(DjsbRepeatRule, WithoutAPairEveryScenarioRepeatsUntilItsOwnIntervalIsTight) {
  // --baseline-only: no policy to compare with.
  std::vector<RepeatCandidate> c = {Candidate("baseline-mpirun", false, {0.5, 1.5, 1.0}),
                                    Candidate("baseline-srun", false, {1.0, 1.01, 0.99})};
  RepeatPlan plan = PlanRepeats(c, 3, 7, 0.10);
  EXPECT_EQ(plan.repeat, (std::vector<size_t>{0}));
  EXPECT_EQ(plan.racing, "");
}

}  // namespace
}  // namespace psched::djsb
