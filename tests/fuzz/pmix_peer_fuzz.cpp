// The daemon host's "pmix.*" messages (proto/pmix_wire.hpp) and a pulled session
// layout, and MPI_Comm_spawn's children request and reply in the same codec
// (proto/comm_spawn.hpp), that a daemon decodes from PeerSend data: byte 0 picks the
// message type; what decodes encodes to bytes that decode and encode to the same bytes
// again, and every error says what is wrong.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proto/comm_spawn.hpp"
#include "proto/pmix_wire.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace psched::proto {
namespace {

// `decode`: the receiver's decoder of T (DecodePmix, or one that checks ids as well).
template <typename T, typename Decoder>
void RoundTripWith(std::string_view data, Decoder decode) {
  Result<T> message = decode(data);
  if (!message) {
    if (message.error().message().empty()) std::abort();  // errors say what
    return;
  }
  const std::string once = EncodePmix(*message);
  Result<T> again = decode(once);
  if (!again || EncodePmix(*again) != once) std::abort();
}

template <typename T>
void RoundTrip(std::string_view data, std::string_view service) {
  RoundTripWith<T>(data, [service](std::string_view d) { return DecodePmix<T>(d, service); });
}

}  // namespace
}  // namespace psched::proto

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psched::proto;
  psched::fuzz::Input in(data, size);
  const uint8_t type = in.Byte();
  const std::string_view rest = in.Rest();
  switch (type % 10) {
    case 0:
      RoundTrip<PmixInteract>(rest, "pmix.interact");
      break;
    case 1:
      RoundTrip<PmixJobControl>(rest, "pmix.jobctl");
      break;
    case 2:
      RoundTrip<PmixDmodexRequest>(rest, "pmix.dmodex");
      break;
    case 3:
      RoundTrip<PmixReply>(rest, "pmix.reply");
      break;
    case 4:
      RoundTrip<PmixLayout>(rest, "pmix.layout");
      break;
    case 5:
      RoundTrip<PmixNames>(rest, "pmix.names");
      break;
    case 6:
      RoundTrip<PmixLookupValues>(rest, "lookup reply");
      break;
    case 7:
      RoundTripWith<CommSpawnRequest>(rest, DecodeCommSpawnRequest);
      break;
    case 8:
      RoundTripWith<CommSpawnReply>(
          rest, [](std::string_view d) { return DecodeCommSpawnReply(d, kPmixSpawnedService); });
      break;
    default:  // a pulled layout, in an allocation of 4 nodes
      RoundTripWith<PmixSessionLayout>(
          rest, [](std::string_view d) { return DecodeSessionLayout(d, 4); });
      break;
  }
  return 0;
}
