// psched-stream under plain mpirun: 2 ranks x 2 threads print one valid JSON line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "djsb/tests/process_test_util.hpp"

namespace psched::djsb {
namespace {

using testing::MpirunPrefix;
using testing::RunCommand;

std::string StreamBinary() {
  return PSCHED_STREAM_BINARY;
}

TEST(PschedStream, TwoRanksUnderMpirunPrintValidJson) {
  auto r = RunCommand("OMP_NUM_THREADS=2 " + MpirunPrefix(2) + StreamBinary() +
                      " --array-size 200000 --iterations 4 --tag sim-test");
  ASSERT_EQ(r.exit_code, 0) << r.out;
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
  auto r = RunCommand(StreamBinary() + " --help 2>&1");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Triad"), std::string::npos) << r.out;
}

TEST(PschedStream, BadIterationsIsAClearError) {
  auto r = RunCommand(StreamBinary() + " --iterations 1 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("--iterations"), std::string::npos) << r.out;
}

TEST(PschedStream, ArraySmallerThanRanksIsAClearError) {
  auto r = RunCommand(MpirunPrefix(2) + StreamBinary() + " --array-size 1 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("smaller than the 2 ranks"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace psched::djsb
