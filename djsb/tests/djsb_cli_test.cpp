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

TEST(PschedDjsbCli, DemoConfigIsValid) {
  auto r = RunShell(Djsb() + " -c " + PSCHED_DJSB_SOURCE_DIR + "/demo.toml --check 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("wait surpass overbook sidestep overbook+spread sidestep+spread"),
            std::string::npos)
      << r.out;
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
  auto r = RunShell(
      "PATH=/usr/bin:/bin " + (dir / "psched-djsb") + " --stream " + Bin("psched-stream") +
      " --policies wait --no-baseline --repeats 1 --require-psched -o " + (dir / "out") + " 2>&1");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("psched-exec not found"), std::string::npos) << r.out;
}

TEST(PschedDjsbCli, BaselineRunWritesTableJsonCsvAndSvg) {
  TempDir dir("djsb-test-baseline");
  auto r = RunShell(Djsb() +
                    " --baseline-only --repeats 1 --sim-ranks 2 --sim-size 2000000"
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
