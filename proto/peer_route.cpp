#include "proto/peer_route.hpp"

#include <utility>

#include "proto/wire_ids.hpp"

namespace psched::proto {
namespace {

// MessagePack: a map of two entries, and the fixed strings of its two keys.
constexpr char kTwoEntries = '\x82';
constexpr std::string_view kRouteKey = "\xa5route";
constexpr std::string_view kMsgKey = "\xa3msg";

Error Malformed(MsgType type, const std::string& why) {
  return {ErrorCode::kProtocol,
          std::string("malformed route of a ") + MsgTypeName(type) + " frame from a peer: " + why};
}

}  // namespace

std::string EncodeRouted(MsgType type, const PeerRoute& route, const Json& body) {
  std::string out;
  AppendFrameHeader(out, type, 0);
  out.push_back(kTwoEntries);
  out.append(kRouteKey);
  Json::to_msgpack(Json(route), out);
  out.append(kMsgKey);
  Json::to_msgpack(body, out);
  SetFrameLength(out);  // the payload's length, known now
  return out;
}

Result<Routed> DecodeRouted(Frame&& frame, const IdBounds& bounds) {
  auto route_at = frame.body.find("route");
  if (route_at == frame.body.end()) return Fail(Malformed(frame.type, "no route"));
  auto msg_at = frame.body.find("msg");
  if (msg_at == frame.body.end() || !msg_at->is_object())
    return Fail(Malformed(frame.type, "no message map (msg)"));
  PeerRoute route;
  try {
    route = route_at->get<PeerRoute>();
  } catch (const std::exception& e) {
    return Fail(Malformed(frame.type, e.what()));
  }
  if (route.version != kPeerRouteVersion) {
    return Fail(Malformed(frame.type, "version " + std::to_string(route.version) +
                                          ", this daemon speaks version " +
                                          std::to_string(kPeerRouteVersion)));
  }
  if (auto ok = CheckIds(route, bounds); !ok)
    return Fail(Malformed(frame.type, ok.error().message()));
  return Routed{std::move(route), Frame{frame.type, std::move(*msg_at), {}}};
}

}  // namespace psched::proto
