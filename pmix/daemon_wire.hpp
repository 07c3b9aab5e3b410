// The MessagePack framing of the daemon host's "pmix.*" point-to-point services,
// shared by daemon_host.cpp and daemon_layouts.cpp.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "proto/pmix_wire.hpp"

namespace psched::pmix::wire {

using Json = nlohmann::json;

inline Json Bin(const std::string& s) {
  return Json::binary(std::vector<uint8_t>(s.begin(), s.end()));
}

inline std::string FromBin(const Json& j) {
  const auto& b = j.get_binary();
  return std::string(b.begin(), b.end());
}

inline std::string Pack(const Json& j) {
  auto bytes = Json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

// A peer's message that does not decode is dropped with a log line, never a crash.
inline std::optional<Json> Unpack(const std::string& data, const char* service) {
  Json j = Json::from_msgpack(data.begin(), data.end(), true, false);
  if (j.is_discarded() || !j.is_object()) {
    std::fprintf(stderr, "psched pmix: undecodable %s message dropped\n", service);
    return std::nullopt;
  }
  return j;
}

// A typed "pmix.*" message (proto/pmix_wire.hpp); one that does not decode is dropped
// with a log line naming what is wrong, never a crash.
template <typename T>
std::optional<T> Receive(const std::string& data, const char* service) {
  auto m = proto::DecodePmix<T>(data, service);
  if (!m) {
    std::fprintf(stderr, "psched pmix: %s dropped\n", m.error().message().c_str());
    return std::nullopt;
  }
  return std::move(*m);
}

}  // namespace psched::pmix::wire
