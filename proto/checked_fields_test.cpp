#include "proto/checked_fields.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "proto/messages.hpp"

namespace psched::proto {
namespace {

// Optional fields (std::optional members), as psched-ctl's status report has them.
struct WithOptional {
  int id = 0;
  std::optional<uint32_t> count;
  std::optional<std::string> name;
  std::optional<std::vector<int>> list;
};
PSCHED_WIRE_STRUCT(WithOptional, id, count, name, list)

std::string ReadError(const Json& message) {
  try {
    (void)message.get<WithOptional>();
    return "decoded";
  } catch (const fields::FieldError& e) {
    return e.what();
  }
}

// The frame as a peer would send it: through MessagePack, as DecodeFrame reads it.
Frame OnTheWire(MsgType type, const Json& body) {
  const std::string wire = EncodeFrame(type, body);
  size_t consumed = 0;
  auto frame =
      DecodeFrame(std::span(reinterpret_cast<const uint8_t*>(wire.data()), wire.size()), &consumed);
  EXPECT_TRUE(frame && *frame);
  return frame && *frame ? **frame : Frame{};
}

template <typename T>
std::string DecodeError(MsgType type, const Json& body) {
  auto decoded = Decode<T>(OnTheWire(type, body));
  if (decoded) return "decoded";
  EXPECT_EQ(decoded.error().code(), ErrorCode::kProtocol);
  return decoded.error().message();
}

// An unauthenticated peer's auth.response {"node": 1e300} was cast to int by nlohmann:
// undefined behaviour (frame_fuzz, UBSan). Every integer field takes only an integer its
// type holds, and the error names the field.
TEST(CheckedFields, FloatInAnIntegerFieldIsRefusedNamingTheField) {
  EXPECT_EQ(DecodeError<AuthResponse>(MsgType::kAuthResponse, {{"node", 1e300}}),
            "malformed auth.response message: 'node' is not an integer: 1e+300");
  EXPECT_EQ(DecodeError<AuthResponse>(MsgType::kAuthResponse, {{"node", 1.5}}),
            "malformed auth.response message: 'node' is not an integer: 1.5");
  EXPECT_EQ(DecodeError<AuthResponse>(MsgType::kAuthResponse, {{"node", -INFINITY}}),
            "malformed auth.response message: 'node' is not an integer: null");
  // Integral floats too: no encoder of ours writes one, and a cast is what we refuse.
  EXPECT_EQ(DecodeError<SessionRef>(MsgType::kCtlKill, {{"session", 3.0}}),
            "malformed ctl.kill message: 'session' is not an integer: 3.0");
}

TEST(CheckedFields, IntegerBeyondItsFieldIsRefusedNotWrapped) {
  EXPECT_EQ(DecodeError<AuthResponse>(MsgType::kAuthResponse, {{"node", 4294967296}}),
            "malformed auth.response message: 'node' is out of range: 4294967296");
  EXPECT_EQ(DecodeError<AuthResponse>(MsgType::kAuthResponse, {{"node", -2147483649LL}}),
            "malformed auth.response message: 'node' is out of range: -2147483649");
  EXPECT_EQ(DecodeError<StdinWritten>(MsgType::kIoStdinWritten, {{"bytes", -1}}),
            "malformed io.stdin_written message: 'bytes' is out of range: -1");
  EXPECT_EQ(DecodeError<SessionRef>(MsgType::kCtlKill, {{"session", UINT64_MAX}}),
            "malformed ctl.kill message: 'session' is out of range: 18446744073709551615");
  // The edges of a field's type are in it.
  auto edge = Decode<StdinWritten>(
      OnTheWire(MsgType::kIoStdinWritten, {{"session", INT64_MIN}, {"bytes", UINT64_MAX}}));
  ASSERT_TRUE(edge) << edge.error().ToString();
  EXPECT_EQ(edge->session, INT64_MIN);
  EXPECT_EQ(edge->bytes, UINT64_MAX);
}

TEST(CheckedFields, NestedFieldsAreNamedByTheirPath) {
  Json order = Json(StartRanksOrder{.session = 1, .size = 2});
  order["ranks"] = Json::array({Json(RankSpec{}), {{"rank", 1}, {"node", 1e300}}});
  EXPECT_EQ(DecodeError<StartRanksOrder>(MsgType::kSessionStartRanks, order),
            "malformed session.start_ranks message: 'ranks[1].node' is not an integer: 1e+300");
  order["ranks"] = Json::array({{{"pus", {0, 1, 2.5}}}});
  EXPECT_EQ(DecodeError<StartRanksOrder>(MsgType::kSessionStartRanks, order),
            "malformed session.start_ranks message: 'ranks[0].pus[2]' is not an integer: 2.5");
  EXPECT_EQ(DecodeError<NodeJoin>(MsgType::kNodeJoin, {{"pus", {{{"core", "0"}}}}}),
            "malformed node.join message: 'pus[0].core' is not an integer: \"0\"");
  EXPECT_EQ(DecodeError<NodeJoin>(MsgType::kNodeJoin, {{"pus", {1, 2}}}),
            "malformed node.join message: 'pus[0]' is not a map: 1");
  EXPECT_EQ(DecodeError<StartRanksOrder>(MsgType::kSessionStartRanks, {{"app_sizes", {-1}}}),
            "malformed session.start_ranks message: 'app_sizes[0]' is out of range: -1");
}

TEST(CheckedFields, OtherTypesAreTheirOwn) {
  // A boolean is no number (nlohmann took true for 1), a number no boolean.
  EXPECT_EQ(DecodeError<LaunchRequest>(MsgType::kSessionLaunch, {{"ranks", true}}),
            "malformed session.launch message: 'ranks' is not an integer: true");
  EXPECT_EQ(DecodeError<LaunchRequest>(MsgType::kSessionLaunch, {{"estimate_s", false}}),
            "malformed session.launch message: 'estimate_s' is not a number: false");
  EXPECT_EQ(DecodeError<LaunchRequest>(MsgType::kSessionLaunch, {{"spread", 1}}),
            "malformed session.launch message: 'spread' is not a boolean: 1");
  EXPECT_EQ(DecodeError<LaunchRequest>(MsgType::kSessionLaunch, {{"argv", "a.out"}}),
            "malformed session.launch message: 'argv' is not a list: \"a.out\"");
  EXPECT_EQ(DecodeError<LaunchRequest>(MsgType::kSessionLaunch, {{"argv", {"a", 1}}}),
            "malformed session.launch message: 'argv[1]' is not a string: 1");
}

// A floating field takes any number, an infinite one included: an infinite runtime
// estimate reaches the leader, which refuses it with its own message
// (Security.LaunchRequestsPschedExecWouldRefuseAreRefused).
TEST(CheckedFields, FloatingFieldsTakeAnyNumber) {
  auto launch = Decode<LaunchRequest>(OnTheWire(
      MsgType::kSessionLaunch, {{"estimate_s", HUGE_VAL}, {"kill_wait_s", 2}, {"ranks", 4}}));
  ASSERT_TRUE(launch) << launch.error().ToString();
  EXPECT_TRUE(std::isinf(launch->estimate_s));
  EXPECT_EQ(launch->kill_wait_s, 2.0);
  EXPECT_EQ(launch->ranks, 4);
  // What the encoder writes decodes to what it was (signed and unsigned MessagePack ints).
  StartRanksOrder order{.session = -5, .size = 3, .parent_rank = 4000000000u, .universe_size = 7};
  order.ranks = {RankSpec{.rank = 2, .node = 1, .local_rank = 0, .pus = {3, 1}}};
  auto back = Decode<StartRanksOrder>(OnTheWire(MsgType::kSessionStartRanks, Json(order)));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(Json(*back), Json(order));
}

// session.ack was an ad-hoc map and welcome, shutdown and ctl's status and shutdown had
// untyped empty bodies: each is a struct now, an empty one an empty map on the wire.
TEST(CheckedFields, SessionAckAndMessagesWithoutFieldsAreTyped) {
  auto ack = Decode<SessionAck>(
      OnTheWire(MsgType::kSessionAck, Json(SessionAck{7, "queued", "waits for session 3"})));
  ASSERT_TRUE(ack) << ack.error().ToString();
  EXPECT_EQ(ack->session, 7);
  EXPECT_EQ(ack->what, "queued");
  EXPECT_EQ(ack->reason, "waits for session 3");
  EXPECT_EQ(DecodeError<SessionAck>(MsgType::kSessionAck, {{"what", 1}}),
            "malformed session.ack message: 'what' is not a string: 1");
  EXPECT_EQ(Json(NodeWelcome{}), Json::object());
  EXPECT_EQ(Json(DaemonShutdown{}), Json::object());
  EXPECT_EQ(Json(CtlStatus{}), Json::object());
  EXPECT_EQ(Json(CtlShutdown{}), Json::object());
  // Fields a later version may add are ignored, as in any message; a non-map is refused.
  EXPECT_TRUE(Decode<NodeWelcome>(OnTheWire(MsgType::kNodeWelcome, {{"later", 1}})));
  CtlStatus status;
  EXPECT_THROW(from_json(Json::array(), status), std::invalid_argument);
}

// An optional field is on the wire while it holds a value, read back as its type.
TEST(CheckedFields, OptionalFieldsRoundTrip) {
  const WithOptional full{.id = 1, .count = 4294967295u, .name = "", .list = std::vector<int>{}};
  const Json wire = Json(full);
  EXPECT_EQ(wire, Json({{"id", 1}, {"count", 4294967295u}, {"name", ""}, {"list", Json::array()}}));
  auto back = wire.get<WithOptional>();
  EXPECT_EQ(back.count, 4294967295u);
  EXPECT_EQ(back.name, "");
  ASSERT_TRUE(back.list.has_value());
  EXPECT_TRUE(back.list->empty());
  // Through MessagePack, as a frame carries it.
  EXPECT_EQ(Json(Json::from_msgpack(Json::to_msgpack(wire)).get<WithOptional>()), wire);
}

// Empty, it is absent (not null); absent or null, it reads as empty; a key the struct does
// not know is ignored, as in any message.
TEST(CheckedFields, AnEmptyOptionalFieldIsAbsent) {
  EXPECT_EQ(Json(WithOptional{.id = 2}), Json({{"id", 2}}));
  const auto absent = Json({{"id", 3}, {"later", "x"}}).get<WithOptional>();
  EXPECT_EQ(absent.id, 3);
  EXPECT_FALSE(absent.count || absent.name || absent.list);
  const auto null = Json({{"count", nullptr}, {"name", nullptr}}).get<WithOptional>();
  EXPECT_FALSE(null.count || null.name);
  // A struct whose fields are all empty optionals is still a map.
  EXPECT_EQ(Json(WithOptional{}), Json({{"id", 0}}));
}

TEST(CheckedFields, APresentOptionalFieldIsCheckedAsItsType) {
  EXPECT_EQ(ReadError({{"count", "7"}}), "'count' is not an integer: \"7\"");
  EXPECT_EQ(ReadError({{"count", 7.5}}), "'count' is not an integer: 7.5");
  EXPECT_EQ(ReadError({{"name", 7}}), "'name' is not a string: 7");
  EXPECT_EQ(ReadError({{"list", {1, "a"}}}), "'list[1]' is not an integer: \"a\"");
  EXPECT_EQ(ReadError({{"count", -1}}), "'count' is out of range: -1");
  EXPECT_EQ(ReadError({{"count", 4294967296}}), "'count' is out of range: 4294967296");
  EXPECT_EQ(ReadError({{"count", 0}, {"list", {INT32_MIN}}}), "decoded");
}

}  // namespace
}  // namespace psched::proto
