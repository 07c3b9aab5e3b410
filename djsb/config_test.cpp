// psched-djsb configuration: parsing, defaults, one test per rejected configuration.
#include "djsb/config.hpp"

#include <gtest/gtest.h>

namespace psched::djsb {
namespace {

std::string ErrorOf(const DjsbConfig& c) {
  auto r = ValidateConfig(c);
  return r ? "" : r.error().message();
}

TEST(DjsbConfig, DefaultsAreValid) {
  EXPECT_EQ(ErrorOf(DjsbConfig{}), "");
}

TEST(DjsbConfig, ParsesEverySection) {
  auto c = ParseConfigToml(R"(
analyses = 2
repeats = 5
policies = ["surpass", "wait"]
spread = false
baseline = false
output_dir = "out"
mpi_yield_when_idle = false
[simulation]
ranks = 8
threads = 2
array_size = 1000
iterations = 4
[analysis]
ranks = 3
[schedule]
seed = 42
at = [0.2, 0.5]
[launcher]
mpirun = "mpirun -n {ranks} {command}"
[metrics]
wait_constant_s = 7.5
analysis_share = 0.25
)",
                           "test.toml");
  ASSERT_TRUE(c.has_value()) << c.error().message();
  EXPECT_EQ(c->analyses, 2);
  EXPECT_EQ(c->repeats, 5);
  EXPECT_EQ(c->policies, (std::vector<std::string>{"surpass", "wait"}));
  EXPECT_FALSE(c->spread);
  EXPECT_FALSE(c->baseline);
  EXPECT_FALSE(c->mpi_yield_when_idle);
  EXPECT_EQ(c->simulation.ranks, 8);
  EXPECT_EQ(c->simulation.Slots(), 16);
  EXPECT_EQ(c->simulation.array_size, 1000);
  EXPECT_EQ(c->analysis.ranks, 3);
  EXPECT_EQ(c->schedule.seed, 42u);
  EXPECT_EQ(c->schedule.at, (std::vector<double>{0.2, 0.5}));
  EXPECT_EQ(c->launcher.mpirun, "mpirun -n {ranks} {command}");
  EXPECT_DOUBLE_EQ(c->constants.wait_constant_s, 7.5);
  EXPECT_DOUBLE_EQ(c->constants.analysis_share, 0.25);
  EXPECT_EQ(ErrorOf(*c), "");
}

TEST(DjsbConfig, TomlSyntaxErrorNamesTheFileAndLine) {
  auto c = ParseConfigToml("repeats = \n", "bad.toml");
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("bad.toml"), std::string::npos) << c.error().message();
  EXPECT_NE(c.error().message().find("line 1"), std::string::npos) << c.error().message();
}

TEST(DjsbConfig, UnknownKeyIsAnError) {
  auto c = ParseConfigToml("repeat = 3\n", "x.toml");
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("unknown key 'repeat'"), std::string::npos);
}

TEST(DjsbConfig, WrongTypeNamesTheKey) {
  auto c = ParseConfigToml("[simulation]\nranks = \"four\"\n", "x.toml");
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("simulation.ranks: wrong type"), std::string::npos)
      << c.error().message();
}

TEST(DjsbConfig, ZeroRanksIsRejected) {
  DjsbConfig c;
  c.simulation.ranks = 0;
  EXPECT_NE(ErrorOf(c).find("simulation.ranks must be > 0"), std::string::npos);
  c = {};
  c.analysis.ranks = 0;
  EXPECT_NE(ErrorOf(c).find("analysis.ranks must be > 0"), std::string::npos);
}

TEST(DjsbConfig, ZeroThreadsAnalysesRepeatsAreRejected) {
  DjsbConfig c;
  c.analysis.threads = 0;
  EXPECT_NE(ErrorOf(c).find("analysis.threads"), std::string::npos);
  c = {};
  c.analyses = 0;
  EXPECT_NE(ErrorOf(c).find("analyses must be > 0"), std::string::npos);
  c = {};
  c.repeats = 0;
  EXPECT_NE(ErrorOf(c).find("repeats must be > 0"), std::string::npos);
  c = {};
  c.simulation.iterations = 1;
  EXPECT_NE(ErrorOf(c).find("iterations must be >= 2"), std::string::npos);
}

TEST(DjsbConfig, AnalysisAfterTheSimulationEndsIsRejected) {
  DjsbConfig c;
  c.schedule.at = {1.2};
  EXPECT_NE(ErrorOf(c).find("after the simulation ends"), std::string::npos) << ErrorOf(c);
  c = {};
  c.schedule.latest = 1.0;
  EXPECT_NE(ErrorOf(c).find("after the simulation ends"), std::string::npos) << ErrorOf(c);
  c = {};
  c.schedule.at = {0.1, 0.2};  // two times for one analysis
  EXPECT_NE(ErrorOf(c).find("2 times for 1 analyses"), std::string::npos) << ErrorOf(c);
}

TEST(DjsbConfig, UnknownPolicyListsTheValidOnes) {
  DjsbConfig c;
  c.policies = {"wait", "preempt"};
  EXPECT_NE(ErrorOf(c).find("unknown policy 'preempt' (valid: wait, surpass, overbook, sidestep)"),
            std::string::npos)
      << ErrorOf(c);
}

TEST(DjsbConfig, NothingToRunIsRejected) {
  DjsbConfig c;
  c.policies.clear();
  c.baseline = false;
  EXPECT_NE(ErrorOf(c).find("nothing to run"), std::string::npos);
}

TEST(DjsbConfig, SeededScheduleIsDeterministicSortedAndInRange) {
  DjsbConfig c;
  c.analyses = 5;
  c.schedule.seed = 7;
  auto a = LaunchFractions(c);
  auto b = LaunchFractions(c);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  for (double f : a) {
    EXPECT_GE(f, 0.1);
    EXPECT_LE(f, 0.7);
  }
  c.schedule.seed = 8;
  EXPECT_NE(LaunchFractions(c), a);
  c.schedule.at = {0.5, 0.3, 0.4, 0.2, 0.1};
  EXPECT_EQ(LaunchFractions(c), (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5}));
}

TEST(DjsbConfig, ScenariosAddSpreadVariantsAndTheBaseline) {
  DjsbConfig c;
  auto s = PlanScenarios(c, false);
  std::vector<std::string> names;
  names.reserve(s.size());
  for (const auto& x : s) names.push_back(x.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"wait", "surpass", "overbook", "sidestep", "overbook+spread",
                                      "sidestep+spread", "baseline-mpirun"}));
  EXPECT_EQ(PlanScenarios(c, true).back().name, "baseline-srun");
  EXPECT_EQ(PlanScenarios(c, true).back().baseline, "srun");
}

TEST(DjsbConfig, TemplatesExpandAndRejectUnknownPlaceholders) {
  AppConfig app{4, 2, 100, 3};
  auto s = ExpandTemplate(LauncherConfig{}.psched, app, "sidestep", true, "stream --x", "/b");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(*s, "/b/psched-exec -n 4 -c 2 --policy sidestep --spread stream --x");
  auto bad = ExpandTemplate("run -n {rank} {command}", app, "", false, "x", "/b");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("unknown placeholder {rank}"), std::string::npos);
}

}  // namespace
}  // namespace psched::djsb
