// The routing header of a frame between the daemons of one allocation
// (daemon/net/peer_link): who sent it and which nodes it is for. Each daemon routes
// a frame by its header alone and hands the message on without it.
//
// On the wire a routed frame's MessagePack payload is a map of two entries: "route"
// (PeerRoute, versioned) and "msg" (the message of the frame's type, the map any frame
// of that type carries). The header is checked where it is decoded, before any tree
// walk: its version, and its sender and every node it is for inside the allocation
// (an id out of range refuses the frame whole, proto/wire_ids.hpp).
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/checked_fields.hpp"
#include "proto/frame.hpp"

namespace psched::proto {

inline constexpr int kPeerRouteVersion = 1;

struct PeerRoute {
  int version = kPeerRouteVersion;  // absent: 1
  std::vector<int> to;              // the nodes it is for; empty: every node below the sender
  int from = 0;                     // the node that sent it
};
PSCHED_WIRE_STRUCT(PeerRoute, version, to, from)

// A routed frame taken apart: its header, and its message as a frame of the message's
// type whose body is the message alone.
struct Routed {
  PeerRoute route;
  Frame msg;
};

struct IdBounds;

// The whole frame (header included), the message's map written as it is (not copied).
std::string EncodeRouted(MsgType type, const PeerRoute& route, const Json& body);

// A frame read from a peer link: its route decoded and checked against `bounds`, its
// message moved out. A protocol error names the frame's type and what is wrong.
Result<Routed> DecodeRouted(Frame&& frame, const IdBounds& bounds);

}  // namespace psched::proto
