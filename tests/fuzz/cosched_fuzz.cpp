// The co-scheduling orders and replies (proto/cosched.hpp) a node and the leader decode
// from PeerSend data: byte 0 picks which; what decodes encodes to text that decodes
// and encodes to the same text again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "proto/cosched.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace psched::proto {
namespace {

template <typename T, typename Decode, typename Encode>
void RoundTrip(std::string_view data, Decode decode, Encode encode) {
  Result<T> message = decode(data);
  if (!message) {
    if (message.error().message().empty()) std::abort();  // errors say what
    return;
  }
  const std::string once = encode(*message);
  Result<T> again = decode(once);
  if (!again || encode(*again) != once) std::abort();
}

}  // namespace
}  // namespace psched::proto

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psched::proto;
  psched::fuzz::Input in(data, size);
  if (in.Byte() % 2 == 0) {
    RoundTrip<CoschedOrder>(in.Rest(), DecodeCoschedOrder, EncodeCoschedOrder);
  } else {
    RoundTrip<CoschedReply>(in.Rest(), DecodeCoschedReply, EncodeCoschedReply);
  }
  return 0;
}
