#include "proto/collective_wire.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "proto/frame.hpp"

namespace psched::proto {
namespace {

// The payload of an encoded frame, as DecodeFrame hands it over.
std::string PayloadOf(const std::string& wire, MsgType type) {
  size_t consumed = 0;
  auto frame = DecodeFrame({reinterpret_cast<const uint8_t*>(wire.data()), wire.size()}, &consumed);
  EXPECT_TRUE(frame && *frame);
  EXPECT_EQ(consumed, wire.size());
  if (!frame || !*frame) return {};
  EXPECT_EQ((*frame)->type, type);
  return (*frame)->raw;
}

TEST(CollectiveWire, ContributionRoundTripsWithItsBlobs) {
  const std::string blobs("\0\xff ab\x80", 6);
  CollContribute c{
      std::numeric_limits<int64_t>::min() + 5, "pmix.fence:5@0f#12", {0, 3, 7, 63}, {4, 5}, {2, 4}};
  std::string payload = PayloadOf(EncodeContributeFrame(c, blobs), MsgType::kCollContribute);
  std::string_view got_blobs;
  auto back = DecodeContribute(payload, &got_blobs);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->session, c.session);
  EXPECT_EQ(back->id, c.id);
  EXPECT_EQ(back->spans, c.spans);
  EXPECT_EQ(back->nodes, c.nodes);
  EXPECT_EQ(back->sizes, c.sizes);
  EXPECT_EQ(got_blobs, blobs);
}

TEST(CollectiveWire, ResultRoundTripsWithItsErrorOrBlobs) {
  std::string_view blobs;
  CollResult ok{7, "f#0", {0, 1}, ""};
  // blobs points into the payload: keep it alive while blobs is read.
  const std::string ok_payload = PayloadOf(EncodeResultFrame(ok, "ABC"), MsgType::kCollResult);
  auto back = DecodeResult(ok_payload, &blobs);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->session, 7);
  EXPECT_EQ(back->spans, ok.spans);
  EXPECT_TRUE(back->error.empty());
  EXPECT_EQ(blobs, "ABC");
  CollResult failed{-1, "", {}, "node 3 lost"};
  std::string payload = PayloadOf(EncodeResultFrame(failed, ""), MsgType::kCollResult);
  back = DecodeResult(payload, &blobs);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->session, -1);
  EXPECT_EQ(back->error, "node 3 lost");
  EXPECT_TRUE(blobs.empty());
}

// Every prefix of a header is refused: nothing is read past the bytes there are.
TEST(CollectiveWire, EveryTruncatedHeaderIsRefused) {
  CollContribute c{3, "id", {0, 9}, {1, 2}, {0, 0}};
  std::string payload = PayloadOf(EncodeContributeFrame(c, ""), MsgType::kCollContribute);
  std::string_view blobs;
  for (size_t n = 0; n < payload.size(); ++n)
    EXPECT_FALSE(DecodeContribute(std::string_view(payload).substr(0, n), &blobs)) << n;
  EXPECT_TRUE(DecodeContribute(payload, &blobs));
  std::string result =
      PayloadOf(EncodeResultFrame({3, "id", {0, 9}, "e"}, ""), MsgType::kCollResult);
  for (size_t n = 0; n < result.size(); ++n)
    EXPECT_FALSE(DecodeResult(std::string_view(result).substr(0, n), &blobs)) << n;
}

// Counts and lengths from the wire never size an allocation beyond what the bytes hold:
// a forged 4-billion-span count is refused at once.
TEST(CollectiveWire, ForgedCountsAreRefused) {
  std::string_view blobs;
  std::string forged(8, '\0');           // session 0
  forged += std::string("\0\0\0\0", 4);  // empty id
  forged += "\xff\xff\xff\xff";          // 4,294,967,295 spans
  forged += std::string(64, '\0');
  EXPECT_FALSE(DecodeContribute(forged, &blobs));
  EXPECT_FALSE(DecodeResult(forged, &blobs));
  std::string long_id(8, '\0');
  long_id += "\x7f\xff\xff\xff";  // a 2 GB id in a 16-byte payload
  long_id += "abcd";
  EXPECT_FALSE(DecodeContribute(long_id, &blobs));
  // One contributor announced, none there.
  CollContribute none{1, "f", {0, 1}, {}, {}};
  std::string payload = PayloadOf(EncodeContributeFrame(none, ""), MsgType::kCollContribute);
  payload[payload.size() - 1] = 1;
  EXPECT_FALSE(DecodeContribute(payload, &blobs));
}

}  // namespace
}  // namespace psched::proto
