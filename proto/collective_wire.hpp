// The payload of the tree collectives' frames (coll.contribute, coll.result): a fixed
// binary header, then the PMIx blobs (daemon/net/tree_collective.hpp). Not MessagePack like
// every other frame: every hop of every fence reads one of these and most write one, and
// through a JSON DOM that cost about 4 us a hop (64-daemon empty fence: ~4.5 ms in all,
// 126 hops). Integers are big-endian; a string is its u32 length and its bytes:
//
//   contribute: i64 session | string id | u32 n, i32 spans[n] | u32 m, (i32 node, u32 size)[m] |
//   blobs result:     i64 session | string id | u32 n, i32 spans[n] | string error | blobs
//
// Decoding checks every length against the bytes there are, never trusts a count to
// size an allocation, and returns nullopt for anything malformed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace psched::proto {

// Participants travel as spans: [first, last] pairs of consecutive node ids (a session's
// nodes are mostly one run).
struct CollContribute {  // a subtree's contributions, to the parent
  int64_t session = 0;
  std::string id;
  std::vector<int> spans;       // nodes expected to contribute
  std::vector<int> nodes;       // contributors gathered in this message
  std::vector<uint32_t> sizes;  // their blob sizes: the blobs follow in `nodes` order
};
struct CollResult {  // down the branches holding participants: the blobs in node order
  int64_t session = 0;
  std::string id;
  std::vector<int> spans;
  std::string error;  // set: the collective failed (no blobs)
};

// Whole frames (header included). `nodes` and `sizes` of a contribution must have the
// same length.
std::string EncodeContributeFrame(const CollContribute& c, std::string_view blobs);
std::string EncodeResultFrame(const CollResult& r, std::string_view blobs);

// From a frame's payload (Frame::raw); `*blobs` views the bytes after the header, in
// `payload`.
std::optional<CollContribute> DecodeContribute(std::string_view payload, std::string_view* blobs);
std::optional<CollResult> DecodeResult(std::string_view payload, std::string_view* blobs);

}  // namespace psched::proto
