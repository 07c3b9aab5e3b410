#include "proto/pmix_wire.hpp"

namespace psched::proto {

std::string EncodePmixJson(const Json& message) {
  std::string out;
  Json::to_msgpack(message, out);
  return out;
}

Result<Json> DecodePmixJson(std::string_view data, std::string_view service) {
  Json j = Json::from_msgpack(data.begin(), data.end(), /*strict=*/true,
                              /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Fail(ErrorCode::kProtocol,
                "malformed " + std::string(service) + " message: not a MessagePack map");
  }
  return j;
}

Result<void> CheckPmixVersion(int version, std::string_view service) {
  if (version == kPmixWireVersion) return {};
  return Fail(ErrorCode::kProtocol, std::string(service) + " version " + std::to_string(version) +
                                        ", this daemon speaks version " +
                                        std::to_string(kPmixWireVersion));
}

}  // namespace psched::proto
