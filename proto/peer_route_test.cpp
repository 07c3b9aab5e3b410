#include "proto/peer_route.hpp"

#include <gtest/gtest.h>

#include <string>

#include "proto/messages.hpp"
#include "proto/wire_ids.hpp"

namespace psched::proto {
namespace {

constexpr IdBounds kFour{4};

// The wire as a peer link reads it: one frame, decoded.
Frame Read(const std::string& wire) {
  size_t used = 0;
  auto frame = DecodeFrame({reinterpret_cast<const uint8_t*>(wire.data()), wire.size()}, &used,
                           kMaxPeerPayload);
  EXPECT_TRUE(frame && *frame && used == wire.size());
  return frame && *frame ? std::move(**frame) : Frame{};
}

Json RouteMap(const Json& to, int from) {
  return Json{{"version", kPeerRouteVersion}, {"to", to}, {"from", from}};
}

TEST(PeerRoute, TheRouteAndTheTypedMessageRoundTrip) {
  const PeerSend sent{"cosched", "{\"x\":1}"};
  const std::string wire =
      EncodeRouted(MsgType::kPeerSend, PeerRoute{.to = {0, 3}, .from = 2}, Json(sent));
  auto routed = DecodeRouted(Read(wire), kFour);
  ASSERT_TRUE(routed) << routed.error().ToString();
  EXPECT_EQ(routed->route.to, (std::vector<int>{0, 3}));
  EXPECT_EQ(routed->route.from, 2);
  EXPECT_EQ(routed->msg.type, MsgType::kPeerSend);
  // The message alone: no routing keys beside its own fields.
  EXPECT_EQ(routed->msg.body, Json(sent));
  auto msg = Decode<PeerSend>(routed->msg);
  ASSERT_TRUE(msg);
  EXPECT_EQ(msg->service, "cosched");
  EXPECT_EQ(msg->data, "{\"x\":1}");
  // An empty `to` (the whole subtree) and a route without a version (version 1).
  Json body{{"route", Json{{"to", Json::array()}, {"from", 0}}}, {"msg", Json::object()}};
  routed = DecodeRouted(Read(EncodeFrame(MsgType::kDaemonShutdown, body)), kFour);
  ASSERT_TRUE(routed) << routed.error().ToString();
  EXPECT_TRUE(routed->route.to.empty());
}

// A node id of the route names a daemon of the tree, and routing walks the tree from
// it: one far outside the allocation (the probe's 0x7e000200) refuses the frame whole,
// where it is decoded, before any walk. Without the check it decoded, and the peer
// link delivered the frame to its other destination.
TEST(PeerRoute, AnOutOfRangeNodeRefusesTheFrameWhole) {
  auto refused = [](const Json& route) {
    Json body{{"route", route}, {"msg", Json(PeerSend{"x", ""})}};
    auto routed = DecodeRouted(Read(EncodeFrame(MsgType::kPeerSend, body)), kFour);
    return routed ? std::string("decoded") : routed.error().message();
  };
  EXPECT_EQ(refused(RouteMap({0, 0x7e000200}, 1)),
            "malformed route of a peer.send frame from a peer: destination node 2113929728 is "
            "outside an allocation of 4 nodes");
  EXPECT_EQ(refused(RouteMap({-1}, 1)),
            "malformed route of a peer.send frame from a peer: destination node -1 is outside an "
            "allocation of 4 nodes");
  EXPECT_EQ(refused(RouteMap({0}, 4)),
            "malformed route of a peer.send frame from a peer: sending node 4 is outside an "
            "allocation of 4 nodes");
  EXPECT_EQ(refused(RouteMap({0, 3}, 3)), "decoded");
}

TEST(PeerRoute, AMalformedOrUnknownRouteSaysWhatIsWrong) {
  auto refused = [](const Json& body) {
    auto routed = DecodeRouted(Read(EncodeFrame(MsgType::kPeerSend, body)), kFour);
    return routed ? std::string("decoded") : routed.error().message();
  };
  const Json msg = Json(PeerSend{"x", ""});
  // The frame of an older daemon: its message's map with "to" and "from" in it.
  EXPECT_EQ(refused(Json{{"to", {0}}, {"from", 1}, {"service", "x"}, {"data", ""}}),
            "malformed route of a peer.send frame from a peer: no route");
  EXPECT_EQ(refused(Json{{"route", RouteMap({0}, 1)}}),
            "malformed route of a peer.send frame from a peer: no message map (msg)");
  EXPECT_EQ(refused(Json{{"route", RouteMap({0}, 1)}, {"msg", "text"}}),
            "malformed route of a peer.send frame from a peer: no message map (msg)");
  Json later = RouteMap({0}, 1);
  later["version"] = 2;
  EXPECT_EQ(refused(Json{{"route", later}, {"msg", msg}}),
            "malformed route of a peer.send frame from a peer: version 2, this daemon speaks "
            "version 1");
  EXPECT_NE(refused(Json{{"route", RouteMap({"0"}, 1)}, {"msg", msg}}).find("'to[0]'"),
            std::string::npos);
  EXPECT_NE(refused(Json{{"route", 7}, {"msg", msg}}), "decoded");
}

}  // namespace
}  // namespace psched::proto
