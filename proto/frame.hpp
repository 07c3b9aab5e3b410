// Versioned frames spoken between launchers, daemons and psched-ctl.
//
// A frame is a fixed 12-byte header (magic, version, type, payload length, all
// big-endian) followed by a MessagePack payload. The header is checked before the
// payload is read, so a wrong magic, an unknown version or an oversized length is
// refused without buffering anything; decoding never throws.
//
// Collective frames (CarriesRaw) are the exception: their payload is opaque to this
// codec and passed through as Frame::raw, in the collectives' own binary layout
// (proto/collective_wire.hpp: a fixed header, then the PMIx blobs). Every hop of every
// fence reads one and most write one; through a MessagePack map and a JSON DOM that
// cost about 4 us a hop, a tenth of a 64-daemon empty fence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace psched::proto {

using Json = nlohmann::json;

inline constexpr uint32_t kMagic = 0x50534348;  // "PSCH"
// 4: stdin flow control (io.stdin_written); 5: a peer's frames carry a PeerRoute
// {version, to, from} (proto/peer_route.hpp) where they carried bare node ids.
inline constexpr uint16_t kVersion = 5;
inline constexpr size_t kHeaderSize = 12;
// Frame size limits, by what the other end has proven. Launchers and ctl (local, by uid):
// a launch carries argv and environment, output goes in chunks far below this.
inline constexpr uint32_t kMaxPayload = 16u << 20;
// A TCP peer before it proved the allocation secret: an authentication response is a
// few hundred bytes, and anyone on the network can connect.
inline constexpr uint32_t kMaxUnauthenticatedPayload = 64u << 10;
// An authenticated daemon: a collective carries its whole subtree's data (PMIx modex: a
// few KB per rank, so hundreds of MB at 100k ranks).
inline constexpr uint32_t kMaxPeerPayload = 1u << 30;

// Message types, named service.verb (see MsgTypeName). Values are wire format: append only.
enum class MsgType : uint16_t {
  kError = 1,          // any direction: ErrorReply {message, code}
  kAuthChallenge,      // parent -> child: {nonce}
  kAuthResponse,       // child -> parent: {node, mac, nonce}
  kAuthOk,             // parent -> child: {mac}
  kNodeJoin,           // node -> leader: {node, hostname, topology}
  kNodeWelcome,        // leader -> node: NodeWelcome (no fields)
  kNodeLost,           // parent -> leader: {nodes}
  kSessionLaunch,      // launcher -> leader: LaunchRequest
  kSessionStarted,     // leader -> launcher: {session, nodes}
  kSessionStartRanks,  // leader -> node: StartRanksOrder
  kSessionRankExited,  // node -> leader: RankExit (a failure, reported at once)
  kSessionNodeDone,    // node -> leader: {session, node, exits[]}
  kSessionEnded,       // leader -> launcher: {session, code, message}
  kSessionSignal,      // launcher -> leader -> nodes: {session, signal}
  kSessionSuspend,     // launcher -> leader: {session} (Ctrl-Z; nodes get plan orders)
  kSessionResume,      // launcher -> leader: {session} (fg)
  kSessionKill,        // leader -> nodes: KillOrder (SIGTERM, SIGKILL after a grace)
  kIoOutput,           // node -> leader -> launcher: {session, rank, stream, data}
  kIoStdin,            // launcher -> leader -> node: {session, data, eof}
  kCtlStatus,          // ctl -> leader: CtlStatus (no fields)
  kCtlReply,           // leader -> ctl: {ok, message, status?}
  kCtlKill,            // ctl -> leader: SessionRef {session}
  kCtlShutdown,        // ctl -> leader: CtlShutdown (no fields)
  kDaemonShutdown,     // leader -> nodes: DaemonShutdown (no fields)
  kCollContribute,     // node -> parent: CollContribute + raw blobs of a subtree
  kCollResult,         // down the tree: CollResult + raw result
  kPeerSend,           // any node -> node: PeerSend {service, data}, routed (peer_route.hpp)
  kCtlSuspend,         // ctl -> leader: SessionRef {session}
  kCtlResume,          // ctl -> leader: SessionRef {session}
  kSessionAck,         // leader -> launcher: SessionAck (queued; suspend/resume done)
  kMonitorReport,      // node -> leader: MonitorReport (load, memory, measured links)
  kMonitorPeers,       // leader -> nodes: MonitorPeers (where each node's link probe listens)
  kCollAbort,          // leader -> all: CollAbort (participants lost: fail their collectives)
  kCollForget,         // node -> parent: CollForget (its session ended inside a collective)
  kIoFlow,             // leader -> nodes: OutputFlow (stop or resume reading a session's output)
  kIoStdinWritten,     // node -> leader -> launcher: StdinWritten (how much rank 0 has taken)
  kLast = kIoStdinWritten,
};

const char* MsgTypeName(MsgType type);

struct Header {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  MsgType type = MsgType::kError;
  uint32_t length = 0;
};

struct Frame {
  MsgType type = MsgType::kError;
  Json body;        // an empty map for CarriesRaw types
  std::string raw;  // CarriesRaw types: the whole payload
};

// Types whose payload is raw bytes in a layout of their own, not a MessagePack map.
bool CarriesRaw(MsgType type);

// Serialises header + MessagePack body. Not for CarriesRaw types (EncodeRawFrame).
std::string EncodeFrame(MsgType type, const Json& body);
// Serialises header + `payload` as it is: for CarriesRaw types.
std::string EncodeRawFrame(MsgType type, std::string_view payload);
// Serialises a decoded frame again (a frame passed on): map or raw by its type.
std::string EncodeFrame(const Frame& frame);
// Appends a frame header for a payload of `length` bytes that the caller appends next
// (a CarriesRaw payload built in place, without a copy).
void AppendFrameHeader(std::string& out, MsgType type, uint32_t length);
// Writes the length of the payload that follows the header into the header: for a frame
// whose payload was appended after AppendFrameHeader(out, type, 0), its size unknown
// until then. `frame` starts with a header; a payload over 4 GiB is the caller's bug.
void SetFrameLength(std::string& frame);

// Parses and validates a header (magic, version, known type, length <= max_payload).
Result<Header> ParseHeader(std::span<const uint8_t> bytes, uint32_t max_payload = kMaxPayload);

// Decodes one frame from the front of `bytes`. nullopt: more bytes needed.
// On success `consumed` is the frame's size. Errors are protocol errors: close the peer.
Result<std::optional<Frame>> DecodeFrame(std::span<const uint8_t> bytes, size_t* consumed,
                                         uint32_t max_payload = kMaxPayload);

}  // namespace psched::proto
