#include "proto/pmix_wire.hpp"

#include <gtest/gtest.h>

#include <string>

namespace psched::proto {
namespace {

template <typename T>
T RoundTrip(const T& message, const char* service) {
  auto back = DecodePmix<T>(EncodePmix(message), service);
  EXPECT_TRUE(back) << (back ? "" : back.error().ToString());
  return back ? *back : T{};
}

// The message `j` as T: "decoded", or the protocol error's message.
template <typename T>
std::string Error(const Json& j, const char* service) {
  auto m = DecodePmix<T>(EncodePmixJson(j), service);
  if (m) return "decoded";
  EXPECT_EQ(m.error().code(), ErrorCode::kProtocol);
  return m.error().message();
}

TEST(PmixWire, InteractRoundTrips) {
  PmixInteract m{.ns = {"psched.1", "psched.2"}, .connected = true};
  PmixInteract back = RoundTrip(m, "pmix.interact");
  EXPECT_EQ(back.ns, m.ns);
  EXPECT_TRUE(back.connected);
  EXPECT_FALSE(RoundTrip(PmixInteract{.ns = m.ns}, "pmix.interact").connected);
}

// The format before versions were written is version 1: a daemon of this build reads it.
TEST(PmixWire, AMessageWithoutVersionIsVersionOne) {
  auto m = DecodePmix<PmixInteract>(EncodePmixJson({{"ns", {"a", "b"}}}), "pmix.interact");
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->version, 1);
  EXPECT_EQ(m->ns.size(), 2u);
}

TEST(PmixWire, MalformedMessagesAreProtocolErrorsSayingWhat) {
  EXPECT_EQ(Error<PmixInteract>({{"ns", "a"}}, "pmix.interact"),
            "malformed pmix.interact message: 'ns' is not a list: \"a\"");
  EXPECT_EQ(Error<PmixInteract>({{"ns", {"a", 1e300}}}, "pmix.interact"),
            "malformed pmix.interact message: 'ns[1]' is not a string: 1e+300");
  EXPECT_EQ(Error<PmixInteract>({{"version", 2}}, "pmix.interact"),
            "pmix.interact version 2, this daemon speaks version 1");
  EXPECT_EQ(Error<PmixInteract>({{"version", 1.0}}, "pmix.interact"),
            "malformed pmix.interact message: 'version' is not an integer: 1.0");
  EXPECT_EQ(Error<PmixInteract>(Json::array({1}), "pmix.interact"),
            "malformed pmix.interact message: not a MessagePack map");
  const std::string cut = EncodePmix(PmixInteract{.ns = {"a", "b"}});
  EXPECT_FALSE(DecodePmix<PmixInteract>(cut.substr(0, cut.size() - 1), "pmix.interact"));
}

TEST(PmixWire, ProcsFailedRoundTripsAndItsRanksAreChecked) {
  PmixProcsFailed m{.session = 9,
                    .ns = "psched.1.9",
                    .ranks = {0, 3},
                    .why = "rank 0 exited 3",
                    .notify = {"psched.1.8"},
                    .code = 137};
  PmixProcsFailed back = RoundTrip(m, "pmix.failed");
  EXPECT_EQ(back.session, 9);
  EXPECT_EQ(back.ns, m.ns);
  EXPECT_EQ(back.ranks, m.ranks);
  EXPECT_EQ(back.why, m.why);
  EXPECT_EQ(back.notify, m.notify);
  EXPECT_EQ(back.code, 137);
  EXPECT_EQ(Error<PmixProcsFailed>({{"ranks", {-1}}}, "pmix.failed"),
            "malformed pmix.failed message: 'ranks[0]' is out of range: -1");
}

TEST(PmixWire, JobControlRoundTrips) {
  PmixJobControl pause{.id = UINT64_MAX, .op = "pause", .session = 7};
  PmixJobControl back = RoundTrip(pause, "pmix.jobctl");
  EXPECT_EQ(back.id, UINT64_MAX);
  EXPECT_EQ(back.op, "pause");
  EXPECT_EQ(back.session, 7);
  PmixJobControl signal{.session = 3, .signal = 10};
  back = RoundTrip(signal, "pmix.jobctl");
  EXPECT_TRUE(back.op.empty());
  EXPECT_EQ(back.signal, 10);
}

TEST(PmixWire, JobControlFieldsAreChecked) {
  EXPECT_EQ(Error<PmixJobControl>({{"session", 1e300}}, "pmix.jobctl"),
            "malformed pmix.jobctl message: 'session' is not an integer: 1e+300");
  EXPECT_EQ(Error<PmixJobControl>({{"id", -1}}, "pmix.jobctl"),
            "malformed pmix.jobctl message: 'id' is out of range: -1");
  EXPECT_EQ(Error<PmixJobControl>({{"signal", 4294967296}}, "pmix.jobctl"),
            "malformed pmix.jobctl message: 'signal' is out of range: 4294967296");
  EXPECT_EQ(Error<PmixJobControl>({{"op", 1}}, "pmix.jobctl"),
            "malformed pmix.jobctl message: 'op' is not a string: 1");
}

TEST(PmixWire, DmodexAndReplyRoundTrip) {
  PmixDmodexRequest ask{.id = 5, .ns = "psched.4", .rank = UINT32_MAX};
  PmixDmodexRequest asked = RoundTrip(ask, "pmix.dmodex");
  EXPECT_EQ(asked.id, 5u);
  EXPECT_EQ(asked.ns, "psched.4");
  EXPECT_EQ(asked.rank, UINT32_MAX);
  PmixReply data{.id = 5, .ok = true, .data = {std::string("\0\xff\x80 blob", 8)}};
  PmixReply back = RoundTrip(data, "pmix.reply");
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.data, data.data);  // binary, NULs included
  // Bytes travel as MessagePack binary, not as text.
  EXPECT_TRUE(DecodePmixJson(EncodePmix(data), "pmix.reply")->at("data").is_binary());
  PmixReply error{.id = 6, .code = 3, .msg = "no such rank"};
  back = RoundTrip(error, "pmix.reply");
  EXPECT_FALSE(back.ok);
  EXPECT_EQ(back.code, 3);
  EXPECT_EQ(back.msg, "no such rank");
}

TEST(PmixWire, DmodexAndReplyFieldsAreChecked) {
  EXPECT_EQ(Error<PmixDmodexRequest>({{"rank", -1}}, "pmix.dmodex"),
            "malformed pmix.dmodex message: 'rank' is out of range: -1");
  EXPECT_EQ(Error<PmixDmodexRequest>({{"rank", 4294967296}}, "pmix.dmodex"),
            "malformed pmix.dmodex message: 'rank' is out of range: 4294967296");
  EXPECT_EQ(Error<PmixReply>({{"data", "text"}}, "pmix.reply"),
            "malformed pmix.reply message: 'data' is not binary: \"text\"");
  EXPECT_EQ(Error<PmixReply>({{"id", 0.5}}, "pmix.reply"),
            "malformed pmix.reply message: 'id' is not an integer: 0.5");
}

TEST(PmixWire, LayoutRoundTripsAndItsFieldsAreChecked) {
  PmixLayout start{
      .op = "start", .session = 4, .ns = "psched.4", .layout = {std::string("\0\x81", 2)}};
  PmixLayout back = RoundTrip(start, "pmix.layout");
  EXPECT_EQ(back.op, "start");
  EXPECT_EQ(back.session, 4);
  EXPECT_EQ(back.ns, "psched.4");
  EXPECT_EQ(back.layout, start.layout);
  PmixLayout pull{.op = "pull", .id = 12, .ns = "psched.5"};
  EXPECT_EQ(RoundTrip(pull, "pmix.layout").id, 12u);
  EXPECT_EQ(Error<PmixLayout>({{"session", -1e300}}, "pmix.layout"),
            "malformed pmix.layout message: 'session' is not an integer: -1e+300");
  EXPECT_EQ(Error<PmixLayout>({{"layout", {1, 2}}}, "pmix.layout"),
            "malformed pmix.layout message: 'layout' is not binary: [1,2]");
}

TEST(PmixWire, NamesAndLookupValuesRoundTripAndTheirFieldsAreChecked) {
  PmixNames publish{.op = "publish", .ns = "psched.2", .rank = 1, .persist = 2};
  publish.kv = {{"port", {std::string("tcp://\0x", 8)}}};
  PmixNames back = RoundTrip(publish, "pmix.names");
  ASSERT_EQ(back.kv.size(), 1u);
  EXPECT_EQ(back.kv[0].k, "port");
  EXPECT_EQ(back.kv[0].v, publish.kv[0].v);
  EXPECT_EQ(back.persist, 2);
  PmixNames lookup{.op = "lookup", .keys = {"port"}, .wait = true, .timeout_ms = 500};
  back = RoundTrip(lookup, "pmix.names");
  EXPECT_TRUE(back.wait);
  EXPECT_EQ(back.timeout_ms, 500);
  EXPECT_EQ(back.keys, lookup.keys);
  PmixLookupValues values{.values = {{"port", {"x"}, "psched.2", 1}}};
  PmixLookupValues found = RoundTrip(values, "lookup reply");
  ASSERT_EQ(found.values.size(), 1u);
  EXPECT_EQ(found.values[0].ns, "psched.2");
  EXPECT_EQ(found.values[0].r, 1u);
  EXPECT_EQ(Error<PmixNames>({{"kv", {{{"k", "a"}, {"v", "text"}}}}}, "pmix.names"),
            "malformed pmix.names message: 'kv[0].v' is not binary: \"text\"");
  EXPECT_EQ(Error<PmixNames>({{"rank", -2}}, "pmix.names"),
            "malformed pmix.names message: 'rank' is out of range: -2");
  EXPECT_EQ(Error<PmixLookupValues>({{"values", {{{"r", 0.5}}}}}, "lookup reply"),
            "malformed lookup reply message: 'values[0].r' is not an integer: 0.5");
}

// A pulled layout (PmixLayout::layout) names nodes: each is checked against the
// allocation where the layout is decoded, before PMIx or a loop over nodes sees it.
TEST(PmixWire, SessionLayoutRoundTripsAndItsNodesAreInTheAllocation) {
  PmixSessionLayout layout{.session = 4, .ns = "psched.1.4", .hosts = {"a", "b"}, .apps = {1, 2}};
  layout.ranks = {{0, 0}, {1, 0}, {1, 1}};
  auto back = DecodeSessionLayout(EncodePmix(layout), 2);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(Json(*back), Json(layout));

  auto error = [](const PmixSessionLayout& l, int nodes) {
    auto m = DecodeSessionLayout(EncodePmix(l), nodes);
    return m ? std::string("decoded") : m.error().message();
  };
  PmixSessionLayout far = layout;
  far.ranks[2] = {0x7e000200, 0};
  EXPECT_EQ(error(far, 2),
            "malformed session layout message: 'ranks[2]' node 2113929728 is outside an "
            "allocation of 2 nodes");
  far.ranks[2] = {-1, 0};
  EXPECT_EQ(error(far, 2),
            "malformed session layout message: 'ranks[2]' node -1 is outside an allocation of 2 "
            "nodes");
  EXPECT_EQ(error(layout, 1),
            "malformed session layout message: 2 hosts for an allocation of 1 nodes");
  PmixSessionLayout odd = layout;
  odd.ranks[0] = {0};
  EXPECT_EQ(error(odd, 2),
            "malformed session layout message: 'ranks[0]' is not a [node, local rank] pair");
  odd.ranks[0] = {0, -2};
  EXPECT_EQ(error(odd, 2),
            "malformed session layout message: 'ranks[0]' local rank -2 is negative");
  PmixSessionLayout negative = layout;
  negative.session = -1;
  EXPECT_EQ(error(negative, 2),
            "malformed session layout message: 'session' -1 is a negative session");
  // The format before versions were written (no "version") is version 1.
  auto old = DecodeSessionLayout(
      EncodePmixJson({{"session", 1}, {"ns", "n"}, {"ranks", {{0, 0}}}, {"hosts", {"a"}}}), 1);
  ASSERT_TRUE(old) << old.error().ToString();
  EXPECT_EQ(old->version, 1);
  EXPECT_TRUE(old->apps.empty());
}

}  // namespace
}  // namespace psched::proto
