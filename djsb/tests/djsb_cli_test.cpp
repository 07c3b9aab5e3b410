// psched-djsb as users run it: bad configurations fail clearly before anything starts,
// and a short baseline-only run (plain mpirun, no psched needed) writes every report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::djsb {
namespace {

using psched::testing::Bin;
using psched::testing::RunShell;
using psched::testing::TempDir;

std::string Djsb() {
  return Bin("psched-djsb");
}

// Each rejected configuration: non-zero exit, and stderr names what was wrong.
void ExpectRejected(const std::string& args, const std::string& message) {
  auto r = RunShell(Djsb() + " " + args + " --check 2>&1");
  EXPECT_NE(r.code, 0) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
}

TEST(PschedDjsbCli, HelpExitsZero) {
  auto r = RunShell(Djsb() + " --help 2>&1");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--policies"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reconstruction"), std::string::npos) << r.out;
}

// The demo as scripts/demo.sh runs it: sized from this machine's cores, so not folded
// (sidestep needs 2+ PUs per node, spread variants an analysis of 2+ ranks: 10+ cores).
TEST(PschedDjsbCli, DemoConfigIsValid) {
  auto r = RunShell(Djsb() + " -c " + PSCHED_DJSB_SOURCE_DIR +
                    "/demo.toml --machine-sized --check 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("scenarios: wait surpass overbook "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline-mpirun"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FOLDED"), std::string::npos) << r.out;
  auto alloc = RunShell(Djsb() + " --demo-allocation");
  EXPECT_EQ(alloc.code, 0);
  EXPECT_NE(alloc.out.find(" pack:1 core:"), std::string::npos) << alloc.out;
}

TEST(PschedDjsbCli, ZeroRanksIsRejected) {
  ExpectRejected("--sim-ranks 0", "simulation.ranks must be > 0");
  ExpectRejected("--ana-ranks 0", "analysis.ranks must be > 0");
}

TEST(PschedDjsbCli, AnalysisAfterTheSimulationEndsIsRejected) {
  ExpectRejected("--at 1.5", "after the simulation ends");
}

TEST(PschedDjsbCli, UnknownPolicyIsRejectedWithTheValidNames) {
  ExpectRejected("--policies wait,gang",
                 "unknown policy 'gang' (valid: wait, surpass, overbook, sidestep)");
}

TEST(PschedDjsbCli, BadTomlIsRejectedWithFileAndLine) {
  TempDir dir("djsb-test-toml");
  std::ofstream(dir / "bad.toml") << "[simulation]\nranks = 0\n";
  ExpectRejected("-c " + (dir / "bad.toml"), "simulation.ranks must be > 0");
  std::ofstream(dir / "syntax.toml") << "repeats = = 3\n";
  ExpectRejected("-c " + (dir / "syntax.toml"), "syntax.toml");
  ExpectRejected("-c " + (dir / "absent.toml"), "absent.toml");
}

TEST(PschedDjsbCli, NothingToRunIsRejected) {
  ExpectRejected("--baseline-only --no-baseline", "nothing to run");
}

TEST(PschedDjsbCli, UnknownOptionIsRejected) {
  auto r = RunShell(Djsb() + " --frobnicate 2>&1");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("frobnicate"), std::string::npos) << r.out;
}

TEST(PschedDjsbCli, MissingStreamBinaryIsRejected) {
  ExpectRejected("--stream /nonexistent/psched-stream", "psched-stream not found");
}

TEST(PschedDjsbCli, MissingPschedIsAnErrorWhenRequired) {
  // psched-djsb looks for psched-exec beside itself and on PATH: a copy of it in a
  // directory of its own, with a PATH of system directories only, finds neither.
  TempDir dir("djsb-test-require");
  auto copied = RunShell("cp " + Djsb() + " " + (dir / "psched-djsb") + " 2>&1");
  ASSERT_EQ(copied.code, 0) << copied.out;
  auto r =
      RunShell("PATH=/usr/bin:/bin " + (dir / "psched-djsb") + " --stream " + Bin("psched-stream") +
               " --policies wait --no-baseline --repeats 1 --sim-ranks 2 --sim-threads 1"
               " --require-psched -o " +
               (dir / "out") + " 2>&1");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("psched-exec not found"), std::string::npos) << r.out;
}

// A stand-in for psched-stream: reports its iterations as psched-stream does, slowly in
// the simulation's alone runs and fast otherwise, so that a submit time computed from the
// alone run (as before) would come after the simulation had ended. Run by a launcher
// template that is just "{command}".
struct FakeStream {
  explicit FakeStream(const TempDir& dir) : dir_(dir) {
    std::ofstream(dir / "fake-stream") << R"sh(#!/bin/sh
while [ $# -gt 0 ]; do
  case $1 in --iterations) iters=$2; shift ;; --tag) tag=$2; shift ;; esac
  shift
done
case $tag in *alone-sim*) period=0.8 ;; *-sim) period=0.3 ;; *) period=0.05 ;; esac
begin=$(date +%s.%N)
k=1
while [ $k -le $iters ]; do
  sleep $period
  echo "psched-stream iteration $tag $k $(date +%s.%N)"
  k=$((k + 1))
done
echo "{\"program\":\"psched-stream\",\"tag\":\"$tag\",\"begin\":$begin,\"end\":$(date +%s.%N),\"valid\":true}"
)sh";
    std::ofstream(dir / "fake.toml") << "[launcher]\nmpirun = \"{command}\"\n";
    RunShell("chmod +x " + (dir / "fake-stream"));
  }
  std::string Args() const {
    return "-c " + (dir_ / "fake.toml") + " --stream " + (dir_ / "fake-stream") +
           " --baseline-only --repeats 1 --sim-threads 1 --ana-ranks 1 --ana-threads 1"
           " --iterations 6 --at 0.5 -o " +
           (dir_ / "out");
  }
  const TempDir& dir_;
};

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

// The analysis at 0.5 of 6 iterations is submitted once the simulation reported its 3rd,
// whatever the alone run took (2.4 s after the begin there: after this run's end).
TEST(PschedDjsbCli, AnalysisIsSubmittedOnTheSimulationsReportedProgress) {
  TempDir dir("djsb-test-progress");
  FakeStream fake(dir);
  auto r = RunShell(Djsb() + " " + fake.Args() + " --sim-ranks 1 2>&1", {}, 60);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("after the simulation's iteration 3 of 6"), std::string::npos) << r.out;
  auto j = ReadJson(dir.path() + "/out/djsb.json");
  ASSERT_FALSE(j.is_discarded());
  const auto& sessions = j["scenarios"][0]["runs"][0]["sessions"];
  ASSERT_EQ(sessions.size(), 2u) << j.dump(1);
  const auto& sim_iterations = sessions[0]["iterations"];
  ASSERT_EQ(sim_iterations.size(), 6u) << sessions[0].dump(1);
  const double submit = sessions[1]["times"]["submit"];
  EXPECT_GE(submit, sim_iterations[2].get<double>()) << "submitted before the 3rd iteration";
  EXPECT_LT(submit, sim_iterations[2].get<double>() + 0.6) << "submitted long after the 3rd";
  EXPECT_LT(submit, sessions[0]["times"]["end"].get<double>());
}

// More simulation slots than real PUs (taskset leaves one): refused with exit 2 and a
// reason, nothing run.
TEST(PschedDjsbCli, FoldedAllocationIsRefused) {
  TempDir dir("djsb-test-folded");
  FakeStream fake(dir);
  auto r = RunShell("taskset -c 0 " + Djsb() + " " + fake.Args() + " --sim-ranks 2 2>&1", {}, 60);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("the simulation's 2 slots would fold onto the 1 real PUs"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--allow-folded"), std::string::npos) << r.out;
  EXPECT_FALSE(std::ifstream(dir.path() + "/out/djsb.json").good());
  auto check = RunShell("taskset -c 0 " + Djsb() + " " + fake.Args() + " --sim-ranks 2 --check");
  EXPECT_EQ(check.code, 2) << check.out;
}

// --allow-folded runs, and the table, every D and the JSON say it measures no policy.
TEST(PschedDjsbCli, AllowFoldedLabelsEveryFigure) {
  TempDir dir("djsb-test-allow-folded");
  FakeStream fake(dir);
  auto r = RunShell(
      "taskset -c 0 " + Djsb() + " " + fake.Args() + " --sim-ranks 2 --allow-folded 2>&1", {}, 60);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("FOLDED: the simulation's 2 slots share this host's 1 real PUs, so no "
                       "figure measures policy effects (every figure below)"),
            std::string::npos)
      << r.out;
  auto j = ReadJson(dir.path() + "/out/djsb.json");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["folded"], true);
  const double d = j["scenarios"][0]["median"]["d"];
  char cell[32];
  std::snprintf(cell, sizeof cell, "%.2f*", d);
  EXPECT_NE(r.out.find(cell), std::string::npos) << cell << "\n" << r.out;
}

TEST(PschedDjsbCli, BaselineRunWritesTableJsonCsvAndSvg) {
  TempDir dir("djsb-test-baseline");
  auto r = RunShell(Djsb() +
                    " --baseline-only --repeats 1 --sim-ranks 2 --sim-threads 1 --sim-size 2000000"
                    " --ana-ranks 1 --ana-size 500000 --iterations 6 --at 0.2 -o " +
                    dir.path() + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* s :
       {"Dynamicity Ratio", "baseline-mpirun", "RECONSTRUCTION", "[djsb +", "SVG report: "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  std::ifstream json_in(dir / "djsb.json");
  ASSERT_TRUE(json_in.good());
  auto j = nlohmann::json::parse(json_in);
  const nlohmann::json* base = nullptr;
  for (const auto& s : j["scenarios"])
    if (s["name"] == "baseline-mpirun") base = &s;
  ASSERT_NE(base, nullptr);
  ASSERT_EQ((*base)["runs"].size(), 1u);
  const auto& sessions = (*base)["runs"][0]["sessions"];
  ASSERT_EQ(sessions.size(), 2u);
  // Times are the user's: submit before begin before end, analysis submitted after the sim.
  for (const auto& s : sessions) {
    EXPECT_LE(s["times"]["submit"].get<double>(), s["times"]["begin"].get<double>() + 0.05);
    EXPECT_LT(s["times"]["begin"].get<double>(), s["times"]["end"].get<double>());
  }
  EXPECT_GT(sessions[1]["times"]["submit"].get<double>(),
            sessions[0]["times"]["submit"].get<double>());
  EXPECT_GT((*base)["median"]["d"].get<double>(), 0.0);
  EXPECT_EQ((*base)["constants"]["reconstruction"], true);
  std::ifstream csv(dir / "djsb.csv");
  std::stringstream csv_text;
  csv_text << csv.rdbuf();
  EXPECT_NE(csv_text.str().find("baseline-mpirun,median,"), std::string::npos);
  std::ifstream svg(dir / "djsb.svg");
  std::stringstream svg_text;
  svg_text << svg.rdbuf();
  EXPECT_NE(svg_text.str().find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace psched::djsb
