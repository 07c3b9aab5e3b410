#include "proto/frame.hpp"

#include <gtest/gtest.h>

#include "proto/messages.hpp"

namespace psched::proto {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(Frame, RoundTripsTypedMessage) {
  LaunchRequest req;
  req.argv = {"/bin/echo", "hi"};
  req.ranks = 4;
  req.threads_per_rank = 2;
  req.env = {"A=1"};
  std::string wire = Encode(MsgType::kSessionLaunch, req);
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_TRUE(frame.has_value()) << frame.error().ToString();
  ASSERT_TRUE(frame->has_value());
  EXPECT_EQ(consumed, wire.size());
  EXPECT_EQ((*frame)->type, MsgType::kSessionLaunch);
  auto back = Decode<LaunchRequest>(**frame);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->argv, req.argv);
  EXPECT_EQ(back->ranks, 4);
  EXPECT_EQ(back->threads_per_rank, 2);
  EXPECT_EQ(back->env, req.env);
}

TEST(Frame, BinaryDataSurvives) {
  Output out;
  out.data = std::string("\0\xff\xfe line\n", 9);
  std::string wire = Encode(MsgType::kIoOutput, out);
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_TRUE(frame && *frame);
  EXPECT_EQ(Decode<Output>(**frame)->data, out.data);
}

TEST(Frame, TruncatedFrameWaitsForMore) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object());
  for (size_t n = 0; n < wire.size(); ++n) {
    size_t consumed = 1;
    auto frame = DecodeFrame(Bytes(wire.substr(0, n)), &consumed);
    ASSERT_TRUE(frame.has_value());
    EXPECT_FALSE(frame->has_value()) << "prefix of " << n;
    EXPECT_EQ(consumed, 0u);
  }
}

TEST(Frame, TwoFramesInOneBuffer) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object()) +
                     EncodeFrame(MsgType::kCtlShutdown, Json::object());
  size_t consumed = 0;
  auto first = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_TRUE(first && *first);
  EXPECT_EQ((*first)->type, MsgType::kCtlStatus);
  auto second = DecodeFrame(Bytes(wire).subspan(consumed), &consumed);
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->type, MsgType::kCtlShutdown);
}

TEST(Frame, RejectsBadMagic) {
  std::string wire = "GET / HTTP/1.1\r\n\r\n";
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_EQ(frame.error().code(), ErrorCode::kProtocol);
  EXPECT_NE(frame.error().message().find("magic"), std::string::npos);
}

TEST(Frame, RejectsWrongVersion) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object());
  wire[5] = 9;
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_NE(frame.error().message().find("version 9"), std::string::npos);
}

// A payload appended after a header of length 0 gets its length afterwards: the frame
// is the one EncodeRawFrame makes of the same payload, and decodes whole.
TEST(Frame, SetFrameLengthFillsInThePayloadAppendedAfterTheHeader) {
  const std::string payload(70000, 'x');  // a length with three non-zero bytes
  std::string wire;
  AppendFrameHeader(wire, MsgType::kCollResult, 0);
  wire += payload;
  SetFrameLength(wire);
  EXPECT_EQ(wire, EncodeRawFrame(MsgType::kCollResult, payload));
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_TRUE(frame && *frame);
  EXPECT_EQ(consumed, wire.size());
  EXPECT_EQ((*frame)->raw, payload);
}

TEST(Frame, RejectsUnknownType) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object());
  wire[6] = 0x7f;
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_NE(frame.error().message().find("unknown message type"), std::string::npos);
}

TEST(Frame, RejectsOversizedBeforeBuffering) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object()).substr(0, kHeaderSize);
  wire[8] = 0x7f;  // ~2 GB claimed length
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_NE(frame.error().message().find("ctl.status frame of 2130706433 bytes exceeds this "
                                         "connection's limit of 16777216"),
            std::string::npos)
      << frame.error().message();
}

// The limit is the caller's (by what the peer has proven): a length one side takes, the
// other refuses.
TEST(Frame, LimitIsPerConnection) {
  std::string wire = EncodeFrame(MsgType::kAuthResponse, Json{{"pad", std::string(70000, 'x')}});
  size_t consumed = 0;
  EXPECT_TRUE(DecodeFrame(Bytes(wire), &consumed, kMaxPayload).has_value());
  auto refused = DecodeFrame(Bytes(wire), &consumed, kMaxUnauthenticatedPayload);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("limit of 65536"), std::string::npos);
  EXPECT_TRUE(ParseHeader(Bytes(wire), kMaxPeerPayload));
}

TEST(Frame, RejectsMalformedPayload) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::object()).substr(0, kHeaderSize);
  wire[11] = 3;
  wire += "\xc1\xc1\xc1";  // 0xc1 is never valid MessagePack
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_NE(frame.error().message().find("malformed payload"), std::string::npos);
}

TEST(Frame, RejectsNonMapPayload) {
  std::string wire = EncodeFrame(MsgType::kCtlStatus, Json::array({1, 2}));
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_FALSE(frame.has_value());
  EXPECT_NE(frame.error().message().find("not a map"), std::string::npos);
}

TEST(Frame, RawFramesPassTheirPayloadThroughUntouched) {
  std::string payload("\0\xff blob \x80\xc1\0", 11);  // binary, NULs included
  std::string wire = EncodeRawFrame(MsgType::kCollResult, payload);
  size_t consumed = 0;
  auto frame = DecodeFrame(Bytes(wire), &consumed);
  ASSERT_TRUE(frame && *frame) << (frame ? "" : frame.error().ToString());
  EXPECT_EQ(consumed, wire.size());
  EXPECT_EQ((*frame)->raw, payload);
  EXPECT_TRUE((*frame)->body.empty());
  // Encoded again as it came (a frame passed on).
  EXPECT_EQ(EncodeFrame(**frame), wire);
  // A map frame encoded again is the same map.
  std::string plain = EncodeFrame(MsgType::kCtlKill, Json{{"session", 3}});
  auto kill = DecodeFrame(Bytes(plain), &consumed);
  ASSERT_TRUE(kill && *kill);
  EXPECT_TRUE((*kill)->raw.empty());
  EXPECT_EQ(EncodeFrame(**kill), plain);
  // A raw frame cut short waits for the rest.
  auto cut = DecodeFrame(Bytes(wire.substr(0, wire.size() - 1)), &consumed);
  ASSERT_TRUE(cut);
  EXPECT_FALSE(cut->has_value());
  // An empty raw payload is a frame too (whether it means anything is its reader's call).
  auto empty = DecodeFrame(Bytes(EncodeRawFrame(MsgType::kCollContribute, "")), &consumed);
  ASSERT_TRUE(empty && *empty);
  EXPECT_TRUE((*empty)->raw.empty());
}

TEST(Messages, WrongFieldTypeIsAnErrorNotAThrow) {
  Frame frame{MsgType::kSessionLaunch, Json{{"ranks", "four"}}};
  auto req = Decode<LaunchRequest>(frame);
  ASSERT_FALSE(req.has_value());
  EXPECT_EQ(req.error().code(), ErrorCode::kProtocol);
  EXPECT_NE(req.error().message().find("session.launch"), std::string::npos);
}

TEST(Messages, MissingFieldsKeepDefaults) {
  Frame frame{MsgType::kSessionLaunch, Json::object()};
  auto req = Decode<LaunchRequest>(frame);
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->ranks, 1);
  EXPECT_TRUE(req->argv.empty());
}

TEST(Messages, EveryTypeHasAServiceVerbName) {
  for (uint16_t t = 1; t <= static_cast<uint16_t>(MsgType::kLast); ++t) {
    std::string name = MsgTypeName(static_cast<MsgType>(t));
    EXPECT_NE(name, "unknown");
    if (name != "error") {
      EXPECT_NE(name.find('.'), std::string::npos) << name;
    }
  }
}

}  // namespace
}  // namespace psched::proto
