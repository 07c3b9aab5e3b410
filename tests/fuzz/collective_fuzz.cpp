// The tree collectives' binary payloads (proto/collective_wire.hpp), read at every hop
// of every fence: any bytes decode to nothing or to a message whose ids are then
// checked (proto/wire_ids.hpp); what decodes encodes again to the same message and blobs.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "proto/collective_wire.hpp"
#include "proto/frame.hpp"
#include "proto/wire_ids.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace psched::proto {
namespace {

// The payload of an encoded frame (the header off).
std::string_view Payload(const std::string& frame) {
  return std::string_view(frame).substr(kHeaderSize);
}

void Contribute(std::string_view payload, const IdBounds& bounds) {
  std::string_view blobs;
  auto c = DecodeContribute(payload, &blobs);
  if (!c) return;
  (void)CheckIds(*c, bounds);
  if (c->nodes.size() != c->sizes.size()) std::abort();
  const std::string wire = EncodeContributeFrame(*c, blobs);
  std::string_view blobs_again;
  auto again = DecodeContribute(Payload(wire), &blobs_again);
  if (!again || again->session != c->session || again->id != c->id || again->spans != c->spans ||
      again->nodes != c->nodes || again->sizes != c->sizes || blobs_again != blobs)
    std::abort();
}

void Result(std::string_view payload, const IdBounds& bounds) {
  std::string_view blobs;
  auto r = DecodeResult(payload, &blobs);
  if (!r) return;
  (void)CheckIds(*r, bounds);
  const std::string wire = EncodeResultFrame(*r, blobs);
  std::string_view blobs_again;
  auto again = DecodeResult(Payload(wire), &blobs_again);
  if (!again || again->session != r->session || again->id != r->id || again->spans != r->spans ||
      again->error != r->error || blobs_again != blobs)
    std::abort();
}

}  // namespace
}  // namespace psched::proto

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psched::fuzz::Input in(data, size);
  const uint8_t shape = in.Byte();
  const psched::proto::IdBounds bounds{1 + shape / 2 % 64};
  if (shape % 2 == 0) {
    psched::proto::Contribute(in.Rest(), bounds);
  } else {
    psched::proto::Result(in.Rest(), bounds);
  }
  return 0;
}
