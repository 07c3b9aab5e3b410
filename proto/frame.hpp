// Versioned frames spoken between launchers, daemons and psched-ctl.
//
// A frame is a fixed 12-byte header (magic, version, type, payload length, all
// big-endian) followed by a MessagePack payload. The header is checked before the
// payload is read, so a wrong magic, an unknown version or an oversized length is
// refused without buffering anything; decoding never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace psched::proto {

using Json = nlohmann::json;

inline constexpr uint32_t kMagic = 0x50534348;  // "PSCH"
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHeaderSize = 12;
// Output is forwarded in chunks far below this; anything larger is an attack or a bug.
inline constexpr uint32_t kMaxPayload = 16u << 20;

// Message types, named service.verb (see MsgTypeName). Values are wire format: append only.
enum class MsgType : uint16_t {
  kError = 1,          // any direction: {message, code}
  kAuthChallenge,      // parent -> child: {nonce}
  kAuthResponse,       // child -> parent: {node, mac, nonce}
  kAuthOk,             // parent -> child: {mac}
  kNodeJoin,           // node -> leader: {node, hostname, topology}
  kNodeWelcome,        // leader -> node
  kNodeLost,           // parent -> leader: {nodes}
  kSessionLaunch,      // launcher -> leader: LaunchRequest
  kSessionStarted,     // leader -> launcher: {session, nodes}
  kSessionSpawn,       // leader -> node: SpawnOrder
  kSessionRankExited,  // node -> leader: RankExit (a failure, reported at once)
  kSessionNodeDone,    // node -> leader: {session, node, exits[]}
  kSessionEnded,       // leader -> launcher: {session, code, message}
  kSessionSignal,      // launcher -> leader -> nodes: {session, signal}
  kSessionSuspend,     // launcher/ctl -> leader -> nodes: {session}
  kSessionResume,      // launcher/ctl -> leader -> nodes: {session}
  kSessionKill,        // leader -> nodes: {session, signal}
  kIoOutput,           // node -> leader -> launcher: {session, rank, stream, data}
  kIoStdin,            // launcher -> leader -> node: {session, data, eof}
  kCtlStatus,          // ctl -> leader: {}
  kCtlReply,           // leader -> ctl: {ok, message, status?}
  kCtlKill,            // ctl -> leader: {session}
  kCtlShutdown,        // ctl -> leader
  kDaemonShutdown,     // leader -> nodes
  kCollContribute,     // node -> parent: {session, id, blob by node}
  kCollResult,         // leader -> nodes: {session, id, blob}
  kPeerSend,           // any node -> node: {to, from, service, data}
  kCtlSuspend,         // ctl -> leader: {session}
  kCtlResume,          // ctl -> leader: {session}
  kSessionAck,         // leader -> launcher: {what} (suspend/resume done)
  kMonitorReport,      // node -> leader: MonitorReport (load, memory, measured links)
  kMonitorPeers,       // leader -> nodes: MonitorPeers (where each node's link probe listens)
  kLast = kMonitorPeers,
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
  Json body;
};

// Serialises header + MessagePack body.
std::string EncodeFrame(MsgType type, const Json& body);

// Parses and validates a header (magic, version, known type, bounded length).
Result<Header> ParseHeader(std::span<const uint8_t> bytes);

// Decodes one frame from the front of `bytes`. nullopt: more bytes needed.
// On success `consumed` is the frame's size. Errors are protocol errors: close the peer.
Result<std::optional<Frame>> DecodeFrame(std::span<const uint8_t> bytes, size_t* consumed);

}  // namespace psched::proto
