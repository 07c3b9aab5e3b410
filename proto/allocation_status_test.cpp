// psched-ctl status's report (proto/allocation_status.hpp): its map is what
// `psched-ctl status --json` prints, so its keys are pinned here; its decoding checks
// every field and its version.
#include "proto/allocation_status.hpp"

#include <gtest/gtest.h>

#include <set>
#include <span>
#include <string>

namespace psched::proto {
namespace {

std::set<std::string> KeysOf(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

// One of each: an up node and a lost one, a running session and a queued one, a link, a plan.
AllocationStatus Report() {
  AllocationStatus s;
  s.expected_nodes = 2;
  s.free = 1;
  s.total = 4;
  s.submission_histories = 2;
  NodeStatus& up = s.nodes.emplace_back();
  up.id = 0;
  up.hostname = "n0";
  up.pus = 4, up.cores = 2, up.packages = 1, up.free = 1;
  up.uses = std::vector<uint32_t>{1, 2, 0, 1};
  up.metrics.cpu_load_1m = 1.5;
  up.metrics.total_memory_mb = 4096;
  s.nodes.push_back({.id = 1, .hostname = "n1", .state = "lost", .cause = "its daemon died"});
  SessionStatus running{.id = 1, .state = "running", .state_detail = "running", .policy = "wait"};
  running.placement = {{.rank = 0, .node = 0, .pus = {0, 1}}};
  running.owner = "ann", running.command = "a.out", running.ranks = 1, running.nodes = {0};
  running.start = 1.7e9, running.elapsed_s = 2.5;
  s.sessions.push_back(running);
  SessionStatus queued{.id = 2, .state = "queued", .state_detail = "queued at position 1"};
  queued.priority = 51;
  queued.wait_reason = "waits for 4 slots: 1 free, policy wait";
  s.sessions.push_back(queued);
  s.links = {{.a = 0, .b = 1, .latency_us = 20, .bandwidth_mbps = 9400}};
  s.plans = {{.kind = "suspend+resume", .ranks = 3, .ok = true, .ms = 1.25}};
  return s;
}

Frame OnTheWire(const Json& body) {
  const std::string wire = EncodeFrame(MsgType::kCtlReply, body);
  size_t consumed = 0;
  auto frame =
      DecodeFrame(std::span(reinterpret_cast<const uint8_t*>(wire.data()), wire.size()), &consumed);
  EXPECT_TRUE(frame && *frame);
  return frame && *frame ? **frame : Frame{};
}

std::string DecodeError(const Json& body) {
  auto reply = DecodeCtlReply(OnTheWire(body));
  if (reply) return "decoded";
  EXPECT_EQ(reply.error().code(), ErrorCode::kProtocol);
  return reply.error().message();
}

// The keys `psched-ctl status --json` showed when the report was built as JSON in the
// daemon, plus "version"; a queued session's priority and reason only for it.
TEST(AllocationStatus, ItsMapHasTheKeysUsersRead) {
  const Json s = Json(Report());
  EXPECT_EQ(KeysOf(s),
            (std::set<std::string>{"expected_nodes", "free", "links", "nodes", "plans", "sessions",
                                   "submission_histories", "total", "version"}));
  EXPECT_EQ(s["version"], 1);
  EXPECT_EQ(KeysOf(s["nodes"][0]),
            (std::set<std::string>{"cores", "free", "hostname", "id", "metrics", "packages", "pus",
                                   "state", "uses"}));
  EXPECT_EQ(KeysOf(s["nodes"][1]),
            (std::set<std::string>{"cause", "hostname", "id", "metrics", "state"}));
  EXPECT_EQ(KeysOf(s["nodes"][0]["metrics"]),
            (std::set<std::string>{"bandwidth_mbps", "clock_mhz", "cpu_load_15m", "cpu_load_1m",
                                   "cpu_load_5m", "cpu_utilisation", "total_memory_mb",
                                   "used_memory_mb"}));
  const std::set<std::string> session = {
      "command", "displaced_by", "elapsed_s",    "exclusive",       "floating",        "id",
      "nodes",   "owner",        "placement",    "policy",          "ranks",           "spread",
      "start",   "state",        "state_detail", "stopped_by_user", "threads_per_rank"};
  EXPECT_EQ(KeysOf(s["sessions"][0]), session);
  std::set<std::string> queued = session;
  queued.insert({"priority", "wait_reason"});
  EXPECT_EQ(KeysOf(s["sessions"][1]), queued);
  EXPECT_EQ(KeysOf(s["sessions"][0]["placement"][0]),
            (std::set<std::string>{"node", "pus", "rank"}));
  EXPECT_EQ(KeysOf(s["links"][0]),
            (std::set<std::string>{"a", "b", "bandwidth_mbps", "latency_us"}));
  EXPECT_EQ(KeysOf(s["plans"][0]), (std::set<std::string>{"kind", "ms", "ok", "ranks"}));
}

TEST(AllocationStatus, RoundTripsInACtlReply) {
  const CtlReply sent{.ok = true, .status = Report()};
  auto reply = DecodeCtlReply(OnTheWire(Json(sent)));
  ASSERT_TRUE(reply) << reply.error().ToString();
  ASSERT_TRUE(reply->status.has_value());
  EXPECT_EQ(Json(*reply->status), Json(*sent.status));
  EXPECT_EQ(reply->status->sessions[1].priority, 51.0);
  EXPECT_FALSE(reply->status->sessions[0].priority.has_value());
  EXPECT_FALSE(reply->status->nodes[1].uses.has_value());
  // Replies to kill, suspend, ... carry none: absent, and null (as daemons before the
  // report was typed sent it) reads as absent.
  EXPECT_FALSE(Json(CtlReply{.ok = false, .message = "no session 9"}).contains("status"));
  auto none = DecodeCtlReply(OnTheWire({{"ok", true}, {"message", "killed"}, {"status", nullptr}}));
  ASSERT_TRUE(none) << none.error().ToString();
  EXPECT_FALSE(none->status.has_value());
  // A report without a version is version 1, the untyped report's format.
  Json unversioned = Json(CtlReply{.status = Report()});
  unversioned["status"].erase("version");
  EXPECT_EQ(DecodeError(unversioned), "decoded");
}

TEST(AllocationStatus, AFieldOutOfRangeOrOfTheWrongTypeIsRefusedNamingIt) {
  Json reply = Json(CtlReply{.status = Report()});
  reply["status"]["nodes"][0]["free"] = -1;
  EXPECT_EQ(DecodeError(reply),
            "malformed ctl.reply message: 'status.nodes[0].free' is out of range: -1");
  reply = Json(CtlReply{.status = Report()});
  reply["status"]["nodes"][0]["uses"][2] = 4294967296;
  EXPECT_EQ(DecodeError(reply),
            "malformed ctl.reply message: 'status.nodes[0].uses[2]' is out of range: 4294967296");
  reply = Json(CtlReply{.status = Report()});
  reply["status"]["sessions"][1]["priority"] = "high";
  EXPECT_EQ(DecodeError(reply),
            "malformed ctl.reply message: 'status.sessions[1].priority' is not a number: \"high\"");
  reply = Json(CtlReply{.status = Report()});
  reply["status"]["sessions"][0]["ranks"] = 2.5;
  EXPECT_EQ(DecodeError(reply),
            "malformed ctl.reply message: 'status.sessions[0].ranks' is not an integer: 2.5");
  reply = Json(CtlReply{.status = Report()});
  reply["status"]["links"] = {{{"a", "n0"}}};
  EXPECT_EQ(DecodeError(reply),
            "malformed ctl.reply message: 'status.links[0].a' is not an integer: \"n0\"");
  EXPECT_EQ(DecodeError({{"status", Json::array()}}),
            "malformed ctl.reply message: 'status' is not a map: []");
}

TEST(AllocationStatus, AnotherVersionIsRefusedSayingWhich) {
  AllocationStatus later = Report();
  later.version = 2;
  EXPECT_EQ(DecodeError(Json(CtlReply{.status = later})),
            "the status is of version 2, this program reads version 1");
}

}  // namespace
}  // namespace psched::proto
