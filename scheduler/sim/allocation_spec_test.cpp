// The allocation spec reader on bad input: every field read as its type and range (a
// float or an out-of-range integer is an error, not a cast), unknown keys refused, the
// stream bounded. Each message names the field.
#include "scheduler/sim/allocation_spec.hpp"

#include <gtest/gtest.h>

namespace psched::sim {
namespace {

std::string ErrorOf(const std::string& json) {
  auto spec = ParseAllocationSpec(json);
  return spec ? "(parsed)" : spec.error().message();
}

TEST(AllocationSpec, IntegersAreReadAsIntegersInRangeNeverCast) {
  // nlohmann's value<int>() cast 1e300 to int (undefined behaviour) and wrapped 2^32 + 1 to 1.
  EXPECT_EQ(ErrorOf(R"({"nodes": 1e300, "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: nodes: expected an integer, got number 1e+300");
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"ranks": 4294967297, "runtime_s": 1}]})"),
            "allocation spec: sessions[0].ranks: expected an integer in [1, 1048576], got "
            "4294967297");
  EXPECT_EQ(ErrorOf(R"({"pus_per_node": 5000, "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: pus_per_node: expected an integer in [1, 4096], got 5000");
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"runtime_s": 1, "repeat": 2.5}]})"),
            "allocation spec: sessions[0].repeat: expected an integer, got number 2.5");
}

TEST(AllocationSpec, SecondsAreFiniteAndTimesRequired) {
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"ranks": 1}]})"),
            "allocation spec: sessions[0].runtime_s: missing (required)");
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"runtime_s": 0}]})"),
            "allocation spec: sessions[0].runtime_s: expected a finite number of seconds > 0.0");
  EXPECT_EQ(ErrorOf(R"({"round_s": 0, "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: round_s: expected a finite number of seconds > 0.0");
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"runtime_s": 1, "submit_s": -1}]})"),
            "allocation spec: sessions[0].submit_s: expected a number >= 0.0, got -1");
  EXPECT_EQ(
      ErrorOf(R"({"sessions": [{"runtime_s": 1, "every_s": 1e308, "repeat": 1000}]})"),
      "allocation spec: sessions[0].every_s: the last session's submit_s is not a finite number");
}

TEST(AllocationSpec, UnknownKeysAndWrongShapesAreRefused) {
  // A misspelt key was ignored: "runtime" left runtime_s at its default.
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"runtime": 5}]})"),
            "allocation spec: sessions[0].runtime: unknown key");
  EXPECT_EQ(ErrorOf(R"({"node": 2, "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: node: unknown key");
  EXPECT_EQ(ErrorOf(R"({"policies": ["wait", 3], "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: policies[1]: expected a policy's name, got number");
  EXPECT_EQ(ErrorOf(R"({"policies": [], "sessions": [{"runtime_s": 1}]})"),
            "allocation spec: policies: names none");
  EXPECT_EQ(ErrorOf(R"({"sessions": [1]})"), "allocation spec: sessions[0]: expected an object");
  EXPECT_EQ(ErrorOf(R"({"sessions": []})"),
            "allocation spec: sessions: expected a non-empty list of sessions");
  EXPECT_EQ(ErrorOf("[1]"), "allocation spec: (top level): expected an object");
  // Where the text stops being JSON, and why.
  EXPECT_EQ(ErrorOf("{\n  \"nodes\": 2,\n}"),
            "allocation spec: (top level): not valid JSON: line 3, column 1: syntax error while "
            "parsing object key - unexpected '}'; expected string literal");
  EXPECT_EQ(ErrorOf(R"({"nodes": 1e400})"),
            "allocation spec: (top level): not valid JSON: number overflow parsing '1e400'");
}

TEST(AllocationSpec, TheStreamIsBounded) {
  // Each entry's repeat was bounded, the stream was not: a 4 KiB spec could ask for
  // 10^7 sessions (a gigabyte) before anything ran.
  std::string many = R"({"sessions": [)";
  for (int i = 0; i < 3; ++i)
    many += std::string(i ? "," : "") + R"({"runtime_s": 1, "repeat": 40000})";
  many += "]}";
  EXPECT_EQ(ErrorOf(many),
            "allocation spec: sessions[2].repeat: the stream would have more than 100000 "
            "sessions");
  EXPECT_EQ(ErrorOf(R"({"sessions": [{"runtime_s": 1, "repeat": 100001}]})"),
            "allocation spec: sessions[0].repeat: expected an integer in [1, 100000], got 100001");
}

TEST(AllocationSpec, DefaultsAreKept) {
  auto spec = ParseAllocationSpec(R"({"sessions": [{"runtime_s": 3}]})");
  ASSERT_TRUE(spec) << spec.error().ToString();
  EXPECT_EQ(spec->nodes, 1);
  EXPECT_EQ(spec->pus_per_node, 1);
  EXPECT_EQ(spec->policies, std::vector<std::string>{"wait"});
  EXPECT_EQ(spec->allocator, "compact");
  EXPECT_EQ(spec->priority, "fcfs");
  EXPECT_DOUBLE_EQ(spec->round_s, 1);
  ASSERT_EQ(spec->sessions.size(), 1u);
  EXPECT_EQ(spec->sessions[0].ranks, 1);
  EXPECT_EQ(spec->sessions[0].owner, "user");
  EXPECT_DOUBLE_EQ(spec->sessions[0].runtime_s, 3);
}

}  // namespace
}  // namespace psched::sim
