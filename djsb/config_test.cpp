// psched-djsb configuration: parsing, defaults, one test per rejected configuration.
#include "djsb/config.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

// As the admin's config (config/parse): toml++ 3.3's undefined behaviour on some non-ASCII
// characters (common/toml_text.hpp) is kept away from it, and its words stay on one line.
TEST(DjsbConfig, NonAsciiOutsideACommentLineIsRefusedBeforeTomlReadsIt) {
  auto key = ParseConfigToml("# gr\xc3\xbc\xc3\x9f\nrepeats\xca\xbc = 3\n", "x.toml");
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().message(),
            "x.toml:2:8: a non-ASCII character outside a comment line: psched's keys and names "
            "are ASCII; write other text in a comment on a line of its own");
  auto cut = ParseConfigToml("[launcher]\nspread = tru\n", "x.toml");
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().message().find('\n'), std::string::npos) << cut.error().message();
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

// What would pass a range check and fail only at run time, after the reference runs (or
// never: a NaN submit time is never reached, and the orchestrator spun until its timeout).
TEST(DjsbConfig, ValuesThatWouldFailLaterAreRejectedByTheCheck) {
  DjsbConfig nan_time;
  nan_time.schedule.earliest = std::nan("");
  EXPECT_NE(ErrorOf(nan_time).find("finite"), std::string::npos);
  DjsbConfig nan_at;
  nan_at.analyses = 1;
  nan_at.schedule.at = {std::nan("")};
  EXPECT_NE(ErrorOf(nan_at).find("finite"), std::string::npos);
  DjsbConfig share;
  share.constants.analysis_share = 0;
  EXPECT_NE(ErrorOf(share).find("analysis_share"), std::string::npos);
  DjsbConfig infinite;
  infinite.constants.wait_constant_sim_fraction = HUGE_VAL;
  EXPECT_NE(ErrorOf(infinite).find("wait_constant_sim_fraction must be a finite number"),
            std::string::npos);
  DjsbConfig sampling;
  sampling.sample_interval_s = 1e300;
  EXPECT_NE(ErrorOf(sampling).find("at most session_timeout_s"), std::string::npos);
  DjsbConfig no_command;
  no_command.launcher.psched = "{bin}/psched-exec -n {ranks}";
  EXPECT_NE(ErrorOf(no_command).find("launcher.psched: the template has no {command}"),
            std::string::npos);
  DjsbConfig twice;
  twice.policies = {"wait", "surpass", "wait"};
  EXPECT_NE(ErrorOf(twice).find("'wait' is listed twice"), std::string::npos);
}

// Inside a section too, a misspelt key is an error with its line, a section must be a
// table, and an integer that does not fit is refused (4294967298 ranks read as 2 before).
TEST(DjsbConfig, SectionKeysTypesAndRangesAreChecked) {
  auto typo = ParseConfigToml("[simulation]\nrank = 8\n", "t.toml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("unknown key 'simulation.rank' (line 2)"),
            std::string::npos)
      << typo.error().message();
  auto scalar = ParseConfigToml("simulation = 5\n", "t.toml");
  ASSERT_FALSE(scalar);
  EXPECT_NE(scalar.error().message().find("simulation: expected a table"), std::string::npos)
      << scalar.error().message();
  auto huge = ParseConfigToml("[simulation]\nranks = 4294967298\n", "t.toml");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message().find("simulation.ranks: 4294967298 is out of range (line 2)"),
            std::string::npos)
      << huge.error().message();
  // An unsigned key (schedule.seed) took -1 as 18446744073709551615: the range check
  // compared int64 with uint64, which converted -1 to the largest uint64.
  auto negative = ParseConfigToml("[schedule]\nseed = -1\n", "t.toml");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message().find("schedule.seed: -1 is out of range (line 2)"),
            std::string::npos)
      << negative.error().message();
  auto metrics = ParseConfigToml("[metrics]\nsigma = 0.5\n", "t.toml");
  ASSERT_FALSE(metrics);
  EXPECT_NE(metrics.error().message().find("unknown key 'metrics.sigma'"), std::string::npos);
}

TEST(DjsbConfig, InteractionSectionIsReadAndChecked) {
  EXPECT_FALSE(DjsbConfig{}.interaction.enabled());  // the classic djsb by default
  auto c = ParseConfigToml("[interaction]\npulls = 5\nslice = 1024\n", "t.toml");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_TRUE(c->interaction.enabled());
  EXPECT_EQ(c->interaction.pulls, 5);
  EXPECT_EQ(c->interaction.slice, 1024);
  EXPECT_TRUE(ValidateConfig(*c));
  auto typo = ParseConfigToml("[interaction]\npull = 5\n", "t.toml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("unknown key 'interaction.pull' (line 2)"),
            std::string::npos)
      << typo.error().message();
  DjsbConfig bad;
  bad.interaction.pulls = -1;
  EXPECT_FALSE(ValidateConfig(bad));
  bad.interaction.pulls = 3;
  bad.interaction.slice = 0;
  auto why = ValidateConfig(bad);
  ASSERT_FALSE(why);
  EXPECT_NE(why.error().message().find("interaction.slice"), std::string::npos);
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

TEST(DjsbConfig, OneRankAnalysisHasNoSpreadVariants) {
  DjsbConfig c;
  c.analysis.ranks = 1;
  std::vector<std::string> names;
  for (const auto& x : PlanScenarios(c, false)) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"wait", "surpass", "overbook", "sidestep",
                                             "baseline-mpirun"}));
}

// Analyses are submitted on the simulation's progress: after its round(f x N)-th
// iteration, never before the first or after the last but one.
TEST(DjsbConfig, SubmitIterationIsTheFractionOfTheSimulationsIterations) {
  EXPECT_EQ(SubmitIteration(0.3, 40), 12);
  EXPECT_EQ(SubmitIteration(0.7, 10), 7);
  EXPECT_EQ(SubmitIteration(0.01, 40), 1);
  EXPECT_EQ(SubmitIteration(0.99, 40), 39);
  EXPECT_EQ(SubmitIteration(0.5, 2), 1);
}

TEST(DjsbConfig, RepeatBoundsAreChecked) {
  DjsbConfig c;
  c.max_repeats = 2;
  auto bad = ValidateConfig(c);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("max_repeats (2) must be >= repeats (3)"),
            std::string::npos);
  c.max_repeats = 7;
  c.ci_relative_half_width = 0;
  EXPECT_FALSE(ValidateConfig(c).has_value());
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
