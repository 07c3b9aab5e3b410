// The human `psched-ctl status`: the monitors' figures per node, '-' where nothing
// was measured yet, and the columns still lined up.
#include "launcher/status_format.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace psched::launcher {
namespace {

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

proto::Json Node(int id, proto::Json metrics) {
  proto::Json n = {{"id", id},      {"hostname", "host" + std::to_string(id)},
                   {"state", "up"}, {"free", 2},
                   {"pus", 2},      {"uses", {0, 0}}};
  if (!metrics.is_null()) n["metrics"] = std::move(metrics);
  return n;
}

// The report as psched-ctl decodes it from the daemon's reply.
proto::AllocationStatus Typed(const proto::Json& status) {
  return status.get<proto::AllocationStatus>();
}

proto::Json Metrics(double load, double used_mb, double total_mb, double mbps) {
  return {{"cpu_load_1m", load},         {"cpu_load_5m", 0.0},     {"cpu_load_15m", 0.0},
          {"cpu_utilisation", 0.0},      {"bandwidth_mbps", mbps}, {"used_memory_mb", used_mb},
          {"total_memory_mb", total_mb}, {"clock_mhz", 0.0}};
}

TEST(StatusFormat, NodesShowLoadMemoryLatencyAndBandwidth) {
  proto::Json s = {{"expected_nodes", 3}, {"free", 6}, {"total", 6}};
  s["nodes"] = {Node(0, Metrics(1.25, 2048, 8192, 9400)), Node(1, Metrics(0.5, 512, 8192, 850)),
                Node(2, Metrics(3, 1024, 8192, 0))};
  s["links"] = {{{"a", 0}, {"b", 1}, {"latency_us", 20.0}, {"bandwidth_mbps", 9400.0}},
                {{"a", 0}, {"b", 2}, {"latency_us", 2400.0}, {"bandwidth_mbps", 0.0}}};
  auto lines = LinesOf(FormatStatus(Typed(s)));
  ASSERT_GE(lines.size(), 5u);
  const std::string& header = lines[1];
  for (const char* column : {"LOAD", "MEM", "LAT", "BW", "SLOTS"})
    EXPECT_NE(header.find(column), std::string::npos) << column << " in: " << header;
  // node 0: load 1.25, 2/8 GiB, links of 20 us and 2400 us (mean 1.2 ms), 9.4 Gbit/s.
  EXPECT_NE(lines[2].find(" 1.25 "), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("2.0/8.0G"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("1.2ms"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("9.4G"), std::string::npos) << lines[2];
  // node 1: one link of 20 us, 850 Mbit/s.
  EXPECT_NE(lines[3].find("20us"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("850M"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("0.5/8.0G"), std::string::npos) << lines[3];
  // node 2: no bandwidth measured yet.
  EXPECT_NE(lines[4].find(" 3.00 "), std::string::npos) << lines[4];
  EXPECT_NE(lines[4].find("     -  .."), std::string::npos) << lines[4];
  // The slot maps start under SLOTS.
  for (int i = 2; i <= 4; ++i) EXPECT_EQ(lines[i].find(".."), header.find("SLOTS")) << lines[i];
}

TEST(StatusFormat, NodeWithoutMetricsShowsDashesInTheSameColumns) {
  proto::Json s = {{"expected_nodes", 2}, {"free", 4}, {"total", 4}};
  s["nodes"] = {Node(0, Metrics(0.1, 100, 1000, 0)), Node(1, nullptr)};
  auto lines = LinesOf(FormatStatus(Typed(s)));  // no "links" at all: an older daemon
  ASSERT_GE(lines.size(), 4u);
  std::istringstream fields(lines[3]);
  std::vector<std::string> words;
  for (std::string w; fields >> w;) words.push_back(w);
  EXPECT_EQ(words, (std::vector<std::string>{"1", "host1", "up", "2/2", "-", "-", "-", "-", ".."}))
      << lines[3];
  EXPECT_EQ(lines[2].find(".."), lines[1].find("SLOTS"));
  EXPECT_EQ(lines[3].find(".."), lines[1].find("SLOTS"));
}

// Malformed metrics no longer reach the table: the report is typed (proto::AllocationStatus)
// and decoding it refuses them, naming the field (psched-ctl exits with that error).
TEST(StatusFormat, MalformedMetricsAreRefusedBeforeTheTable) {
  proto::Json s = {{"expected_nodes", 1}, {"free", 2}, {"total", 2}};
  s["nodes"] = {Node(0, {{"total_memory_mb", "lots"}})};
  EXPECT_THROW(
      {
        try {
          Typed(s);
        } catch (const proto::fields::FieldError& e) {
          EXPECT_STREQ(e.what(), "'nodes[0].metrics.total_memory_mb' is not a number: \"lots\"");
          throw;
        }
      },
      proto::fields::FieldError);
  s["nodes"] = {Node(0, {{"cpu_load_1m", nullptr}})};
  EXPECT_THROW(Typed(s), proto::fields::FieldError);
  s["nodes"] = {Node(0, Metrics(0.1, 100, 1000, 0))};
  s["links"] = {{{"a", "x"}}, 7};
  EXPECT_THROW(Typed(s), proto::fields::FieldError);
}

// Overbooking (also beyond the allocation's size, as mpirun --oversubscribe) shows as
// use counts in the slot map and as a sum in the first line.
TEST(StatusFormat, OverUseIsShown) {
  proto::Json s = {{"expected_nodes", 1}, {"free", 0}, {"total", 2}};
  proto::Json node = Node(0, nullptr);
  node["free"] = 0;
  node["uses"] = {3, 2};
  s["nodes"] = {node};
  auto lines = LinesOf(FormatStatus(Typed(s)));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "nodes: 1, slots: 0 free of 2; overbooked: 2 of 2 slots shared by 5 ranks' threads "
            "(up to 3 on one)");
  EXPECT_TRUE(lines[2].ends_with(" 32")) << lines[2];
  s["nodes"][0]["uses"] = {1, 0};
  EXPECT_EQ(LinesOf(FormatStatus(Typed(s)))[0], "nodes: 1, slots: 0 free of 2");
}

}  // namespace
}  // namespace psched::launcher
