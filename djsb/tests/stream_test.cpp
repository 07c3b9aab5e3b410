// psched-stream under plain mpirun: 2 ranks x 2 threads print one valid JSON line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace psched::djsb {
namespace {

using psched::testing::RunShell;

// mpirun as root inside a container needs both of these; oversubscribe because the
// test machine has 2 cores and the tests ask for more ranks x threads than that.
std::string MpirunPrefix(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
         "mpirun --oversubscribe -n " +
         std::to_string(ranks) + " ";
}

std::string StreamBinary() {
  return PSCHED_STREAM_BINARY;
}

TEST(PschedStream, TwoRanksUnderMpirunPrintValidJson) {
  auto r = RunShell("OMP_NUM_THREADS=2 " + MpirunPrefix(2) + StreamBinary() +
                    " --array-size 200000 --iterations 4 --tag sim-test");
  ASSERT_EQ(r.code, 0) << r.out;
  // Exactly one JSON line: rank 0 reports, rank 1 stays quiet.
  std::istringstream lines(r.out);
  std::string line, json_line;
  int json_lines = 0;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.front() == '{') {
      ++json_lines;
      json_line = line;
    }
  }
  ASSERT_EQ(json_lines, 1) << r.out;
  // One progress line per completed iteration, in order, on rank 0 only: psched-djsb
  // submits the analyses on them.
  std::vector<int> reported;
  double last_time = 0;
  std::istringstream progress(r.out);
  while (std::getline(progress, line)) {
    const std::string prefix = "psched-stream iteration sim-test ";
    if (!line.starts_with(prefix)) continue;
    std::istringstream fields(line.substr(prefix.size()));
    int k = 0;
    double t = 0;
    fields >> k >> t;
    EXPECT_GE(t, last_time) << line;
    last_time = t;
    reported.push_back(k);
  }
  EXPECT_EQ(reported, (std::vector<int>{1, 2, 3, 4})) << r.out;
  auto j = nlohmann::json::parse(json_line);
  EXPECT_EQ(j["tag"], "sim-test");
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["valid"], true);
  // Wall-clock timestamps (seconds since the epoch), end after begin.
  double begin = j["begin"], end = j["end"];
  EXPECT_GT(begin, 1.6e9);
  EXPECT_GT(end, begin);
  for (const char* k : {"copy", "scale", "add", "triad"}) {
    ASSERT_TRUE(j["kernels"].contains(k)) << k;
    EXPECT_GT(j["kernels"][k]["mb_per_s"].get<double>(), 0.0) << k;
    EXPECT_GT(j["kernels"][k]["min_s"].get<double>(), 0.0) << k;
  }
}

TEST(PschedStream, HelpExitsZeroAndNamesTheKernels) {
  auto r = RunShell(StreamBinary() + " --help 2>&1");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Triad"), std::string::npos) << r.out;
}

TEST(PschedStream, BadIterationsIsAClearError) {
  auto r = RunShell(StreamBinary() + " --iterations 1 2>&1");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("--iterations"), std::string::npos) << r.out;
}

TEST(PschedStream, ArraySmallerThanRanksIsAClearError) {
  auto r = RunShell(MpirunPrefix(2) + StreamBinary() + " --array-size 1 2>&1");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("smaller than the 2 ranks"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace psched::djsb
