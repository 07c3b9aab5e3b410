#include "proto/pmix_wire.hpp"

#include <algorithm>

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

Result<PmixSessionLayout> DecodeSessionLayout(std::string_view data, int nodes) {
  constexpr std::string_view kWhat = "session layout";
  auto layout = DecodePmix<PmixSessionLayout>(data, kWhat);
  if (!layout) return layout;
  auto bad = [](const std::string& what) {
    return Fail(ErrorCode::kProtocol, "malformed session layout message: " + what);
  };
  if (layout->session < 0)
    return bad("'session' " + std::to_string(layout->session) + " is a negative session");
  if (layout->hosts.size() > static_cast<size_t>(std::max(nodes, 0))) {
    return bad(std::to_string(layout->hosts.size()) + " hosts for an allocation of " +
               std::to_string(nodes) + " nodes");
  }
  for (size_t i = 0; i < layout->ranks.size(); ++i) {
    const std::vector<int>& r = layout->ranks[i];
    const std::string at = "'ranks[" + std::to_string(i) + "]'";
    if (r.size() != 2) return bad(at + " is not a [node, local rank] pair");
    if (r[0] < 0 || r[0] >= nodes) {
      return bad(at + " node " + std::to_string(r[0]) + " is outside an allocation of " +
                 std::to_string(nodes) + " nodes");
    }
    if (r[1] < 0) return bad(at + " local rank " + std::to_string(r[1]) + " is negative");
  }
  return layout;
}

}  // namespace psched::proto
