// Ids from the wire (node, session, rank, collective participant), checked where a
// frame is decoded, before any of them reaches a loop. A node id names a daemon of
// the tree, and tree arithmetic walks from it (daemon/tree.hpp): one authenticated
// coll.contribute naming node 0x7e000200 once made a --fanout 1 leader walk 2e9
// parents and froze its loop for 16 s. A frame with an id out of range is refused
// whole, as a malformed one is.
#pragma once

#include "common/error.hpp"
#include "proto/collective_wire.hpp"
#include "proto/messages.hpp"
#include "proto/peer_route.hpp"

namespace psched::proto {

// What the receiver knows of the allocation: its node ids are 0 .. nodes-1.
struct IdBounds {
  int nodes = 1;
};

// Every id in the message in range, or which one is not. Sessions and ranks are
// non-negative (a rank's upper bound is its session's size, known to the receiver).
Result<void> CheckIds(const CollContribute& m, const IdBounds& b);
Result<void> CheckIds(const CollResult& m, const IdBounds& b);
Result<void> CheckIds(const CollForget& m, const IdBounds& b);
Result<void> CheckIds(const CollAbort& m, const IdBounds& b);
Result<void> CheckIds(const NodeJoin& m, const IdBounds& b);
Result<void> CheckIds(const NodeLost& m, const IdBounds& b);
Result<void> CheckIds(const RankExit& m, const IdBounds& b);
Result<void> CheckIds(const NodeDone& m, const IdBounds& b);
Result<void> CheckIds(const Output& m, const IdBounds& b);
Result<void> CheckIds(const StdinData& m, const IdBounds& b);
Result<void> CheckIds(const StdinWritten& m, const IdBounds& b);
Result<void> CheckIds(const OutputFlow& m, const IdBounds& b);
Result<void> CheckIds(const SessionRef& m, const IdBounds& b);
Result<void> CheckIds(const KillOrder& m, const IdBounds& b);
Result<void> CheckIds(const StartRanksOrder& m, const IdBounds& b);
Result<void> CheckIds(const PeerRoute& m, const IdBounds& b);
Result<void> CheckIds(const MonitorReport& m, const IdBounds& b);
Result<void> CheckIds(const MonitorPeers& m, const IdBounds& b);

// Decode<T>, then CheckIds: a protocol error naming the message and the id.
template <typename T>
Result<T> DecodeChecked(const Frame& frame, const IdBounds& bounds) {
  auto message = Decode<T>(frame);
  if (!message) return message;
  if (auto ok = CheckIds(*message, bounds); !ok) {
    return Fail(ErrorCode::kProtocol,
                std::string(MsgTypeName(frame.type)) + " message: " + ok.error().message());
  }
  return message;
}

}  // namespace psched::proto
