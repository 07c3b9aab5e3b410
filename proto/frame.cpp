#include "proto/frame.hpp"

#include <array>

namespace psched::proto {
namespace {

void PutU32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}
void PutU16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xff));
}
uint32_t GetU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
uint16_t GetU16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

constexpr std::array kNames = {
    "error",
    "auth.challenge",
    "auth.response",
    "auth.ok",
    "node.join",
    "node.welcome",
    "node.lost",
    "session.launch",
    "session.started",
    "session.start_ranks",
    "session.rank_exited",
    "session.node_done",
    "session.ended",
    "session.signal",
    "session.suspend",
    "session.resume",
    "session.kill",
    "io.output",
    "io.stdin",
    "ctl.status",
    "ctl.reply",
    "ctl.kill",
    "ctl.shutdown",
    "daemon.shutdown",
    "coll.contribute",
    "coll.result",
    "peer.send",
    "ctl.suspend",
    "ctl.resume",
    "session.ack",
    "monitor.report",
    "monitor.peers",
    "coll.abort",
    "coll.forget",
    "io.flow",
    "io.stdin_written",
};
static_assert(kNames.size() == static_cast<size_t>(MsgType::kLast));

}  // namespace

const char* MsgTypeName(MsgType type) {
  auto index = static_cast<size_t>(type);
  if (index < 1 || index > kNames.size()) return "unknown";
  return kNames[index - 1];
}

bool CarriesRaw(MsgType type) {
  return type == MsgType::kCollContribute || type == MsgType::kCollResult;
}

void AppendFrameHeader(std::string& out, MsgType type, uint32_t length) {
  PutU32(out, kMagic);
  PutU16(out, kVersion);
  PutU16(out, static_cast<uint16_t>(type));
  PutU32(out, length);
}

void SetFrameLength(std::string& frame) {
  const auto length = static_cast<uint32_t>(frame.size() - kHeaderSize);
  std::string field;
  PutU32(field, length);
  frame.replace(kHeaderSize - field.size(), field.size(), field);
}

std::string EncodeFrame(MsgType type, const Json& body) {
  std::vector<uint8_t> map = Json::to_msgpack(body);
  std::string out;
  out.reserve(kHeaderSize + map.size());
  AppendFrameHeader(out, type, static_cast<uint32_t>(map.size()));
  out.append(map.begin(), map.end());
  return out;
}

std::string EncodeRawFrame(MsgType type, std::string_view payload) {
  std::string out;
  out.reserve(kHeaderSize + payload.size());
  AppendFrameHeader(out, type, static_cast<uint32_t>(payload.size()));
  out.append(payload);
  return out;
}

std::string EncodeFrame(const Frame& frame) {
  return CarriesRaw(frame.type) ? EncodeRawFrame(frame.type, frame.raw)
                                : EncodeFrame(frame.type, frame.body);
}

Result<Header> ParseHeader(std::span<const uint8_t> bytes, uint32_t max_payload) {
  if (bytes.size() < kHeaderSize) return Fail(ErrorCode::kProtocol, "truncated frame header");
  Header h;
  h.magic = GetU32(bytes.data());
  h.version = GetU16(bytes.data() + 4);
  uint16_t type = GetU16(bytes.data() + 6);
  h.length = GetU32(bytes.data() + 8);
  if (h.magic != kMagic) return Fail(ErrorCode::kProtocol, "bad frame magic (not a psched peer?)");
  if (h.version != kVersion) {
    return Fail(ErrorCode::kProtocol, "protocol version " + std::to_string(h.version) +
                                          " not supported (this build speaks " +
                                          std::to_string(kVersion) + ")");
  }
  if (type < 1 || type > static_cast<uint16_t>(MsgType::kLast))
    return Fail(ErrorCode::kProtocol, "unknown message type " + std::to_string(type));
  if (h.length > max_payload) {
    return Fail(ErrorCode::kProtocol, std::string(MsgTypeName(static_cast<MsgType>(type))) +
                                          " frame of " + std::to_string(h.length) +
                                          " bytes exceeds this connection's limit of " +
                                          std::to_string(max_payload));
  }
  h.type = static_cast<MsgType>(type);
  return h;
}

Result<std::optional<Frame>> DecodeFrame(std::span<const uint8_t> bytes, size_t* consumed,
                                         uint32_t max_payload) {
  *consumed = 0;
  if (bytes.size() < kHeaderSize) return std::optional<Frame>{};
  auto header = ParseHeader(bytes, max_payload);
  if (!header) return Fail(header.error());
  if (bytes.size() < kHeaderSize + header->length) return std::optional<Frame>{};
  auto payload = bytes.subspan(kHeaderSize, header->length);
  if (CarriesRaw(header->type)) {
    std::string raw(reinterpret_cast<const char*>(payload.data()), payload.size());
    *consumed = kHeaderSize + header->length;
    return std::optional<Frame>{Frame{header->type, Json::object(), std::move(raw)}};
  }
  // allow_exceptions=false: malformed MessagePack yields a discarded value instead of a throw.
  Json body = Json::from_msgpack(payload.begin(), payload.end(), true, false);
  if (body.is_discarded()) {
    return Fail(ErrorCode::kProtocol,
                std::string("malformed payload in ") + MsgTypeName(header->type) + " frame");
  }
  if (!body.is_object()) {
    return Fail(ErrorCode::kProtocol,
                std::string(MsgTypeName(header->type)) + " payload is not a map");
  }
  *consumed = kHeaderSize + header->length;
  return std::optional<Frame>{Frame{header->type, std::move(body), {}}};
}

}  // namespace psched::proto
