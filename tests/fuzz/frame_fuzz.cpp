// Frames as a connection reads them (proto/frame.hpp): a byte stream split into frames,
// each decoded as its message type and its ids checked (proto/wire_ids.hpp), as the
// daemons and launchers decode them, and as a daemon's peer link does: its route
// (proto/peer_route.hpp) checked, then its message. The first byte sets the allocation's size for
// the id checks. Any input must end in a frame, "more bytes needed" or a protocol error, never a
// crash, a sanitizer report or a hang.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "proto/allocation_status.hpp"
#include "proto/frame.hpp"
#include "proto/messages.hpp"
#include "proto/peer_route.hpp"
#include "proto/wire_ids.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace psched::proto {
namespace {

template <typename T>
void Typed(const Frame& frame, const IdBounds& bounds) {
  auto checked = DecodeChecked<T>(frame, bounds);
  if (!checked) return;
  // What decoded encodes again and decodes to a message that passes the same checks.
  Frame again{frame.type, Json(*checked), {}};
  if (!DecodeChecked<T>(again, bounds)) std::abort();
}

// The messages without ids to check.
template <typename T>
void Plain(const Frame& frame) {
  if (auto message = Decode<T>(frame)) (void)Json(*message);
}

// psched-ctl's reading of the leader's reply (a status report in it): what decodes
// encodes again to a reply that decodes.
void Reply(const Frame& frame) {
  auto reply = DecodeCtlReply(frame);
  if (!reply) return;
  Frame again{frame.type, Json(*reply), {}};
  if (!DecodeCtlReply(again)) std::abort();
}

void Collective(const Frame& frame, const IdBounds& bounds) {
  std::string_view blobs;
  if (frame.type == MsgType::kCollContribute) {
    if (auto c = DecodeContribute(frame.raw, &blobs)) (void)CheckIds(*c, bounds);
  } else if (auto r = DecodeResult(frame.raw, &blobs)) {
    (void)CheckIds(*r, bounds);
  }
}

void Message(const Frame& frame, const IdBounds& bounds) {
  switch (frame.type) {
    case MsgType::kCollContribute:
    case MsgType::kCollResult:
      return Collective(frame, bounds);
    case MsgType::kCollForget:
      return Typed<CollForget>(frame, bounds);
    case MsgType::kCollAbort:
      return Typed<CollAbort>(frame, bounds);
    case MsgType::kNodeJoin:
      return Typed<NodeJoin>(frame, bounds);
    case MsgType::kNodeLost:
      return Typed<NodeLost>(frame, bounds);
    case MsgType::kSessionRankExited:
      return Typed<RankExit>(frame, bounds);
    case MsgType::kSessionNodeDone:
      return Typed<NodeDone>(frame, bounds);
    case MsgType::kIoOutput:
      return Typed<Output>(frame, bounds);
    case MsgType::kIoStdin:
      return Typed<StdinData>(frame, bounds);
    case MsgType::kIoStdinWritten:
      return Typed<StdinWritten>(frame, bounds);
    case MsgType::kIoFlow:
      return Typed<OutputFlow>(frame, bounds);
    case MsgType::kSessionSignal:
    case MsgType::kSessionSuspend:
    case MsgType::kSessionResume:
    case MsgType::kSessionKill:
    case MsgType::kCtlKill:
    case MsgType::kCtlSuspend:
    case MsgType::kCtlResume:
      return Typed<SessionRef>(frame, bounds);
    case MsgType::kSessionStartRanks:
      return Typed<StartRanksOrder>(frame, bounds);
    case MsgType::kMonitorReport:
      return Typed<MonitorReport>(frame, bounds);
    case MsgType::kMonitorPeers:
      return Typed<MonitorPeers>(frame, bounds);
    case MsgType::kPeerSend:
      return Plain<PeerSend>(frame);
    case MsgType::kError:
      return Plain<ErrorReply>(frame);
    case MsgType::kAuthChallenge:
      return Plain<AuthChallenge>(frame);
    case MsgType::kAuthResponse:
      return Plain<AuthResponse>(frame);
    case MsgType::kAuthOk:
      return Plain<AuthOk>(frame);
    case MsgType::kSessionLaunch:
      return Plain<LaunchRequest>(frame);
    case MsgType::kSessionStarted:
      return Plain<SessionStarted>(frame);
    case MsgType::kSessionEnded:
      return Plain<SessionEnded>(frame);
    case MsgType::kCtlReply:
      return Reply(frame);
    case MsgType::kSessionAck:
      return Plain<SessionAck>(frame);
    case MsgType::kNodeWelcome:
      return Plain<NodeWelcome>(frame);
    case MsgType::kCtlStatus:
      return Plain<CtlStatus>(frame);
    case MsgType::kCtlShutdown:
      return Plain<CtlShutdown>(frame);
    case MsgType::kDaemonShutdown:
      return Plain<DaemonShutdown>(frame);
  }
}

Frame ReadOne(const std::string& wire) {
  size_t used = 0;
  auto frame = DecodeFrame(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(wire.data()), wire.size()), &used,
      kMaxPeerPayload);
  if (!frame || !*frame || used != wire.size()) std::abort();
  return std::move(**frame);
}

// As a peer link reads a frame: a route whose every node is in the allocation, then the
// message. What decodes encodes again to a frame with the same route and message.
void RoutedMessage(const Frame& frame, const IdBounds& bounds) {
  if (CarriesRaw(frame.type)) return;
  auto routed = DecodeRouted(Frame(frame), bounds);
  if (!routed) return;
  const PeerRoute& route = routed->route;
  if (route.from < 0 || route.from >= bounds.nodes) std::abort();
  for (int to : route.to)
    if (to < 0 || to >= bounds.nodes) std::abort();
  Message(routed->msg, bounds);
  // Compared as bytes: a NaN in the message is not equal to itself.
  const std::string wire = EncodeRouted(frame.type, route, routed->msg.body);
  auto again = DecodeRouted(ReadOne(wire), bounds);
  if (!again || EncodeRouted(frame.type, again->route, again->msg.body) != wire) std::abort();
}

}  // namespace
}  // namespace psched::proto

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psched::proto;
  psched::fuzz::Input in(data, size);
  const IdBounds bounds{1 + in.Byte() % 64};
  const std::string_view stream = in.Rest();
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(stream.data()), stream.size());
  while (!bytes.empty()) {
    size_t used = 0;
    // The limit before authentication: what anyone on the network may send.
    auto frame = DecodeFrame(bytes, &used, kMaxUnauthenticatedPayload);
    if (!frame || !*frame) break;  // a protocol error closes the peer; or more bytes needed
    if (used == 0 || used > bytes.size()) std::abort();
    Message(**frame, bounds);
    RoutedMessage(**frame, bounds);
    // A frame passed on encodes again to a frame that decodes.
    const std::string wire = EncodeFrame(**frame);
    size_t again_used = 0;
    auto again = DecodeFrame(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(wire.data()), wire.size()),
        &again_used, kMaxPeerPayload);
    if (!again || !*again || again_used != wire.size()) std::abort();
    bytes = bytes.subspan(used);
  }
  return 0;
}
