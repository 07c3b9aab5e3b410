#include "proto/cosched.hpp"

#include <gtest/gtest.h>

namespace psched::proto {
namespace {

TEST(Cosched, OrderRoundTripsWithItsVersionAndOnlyTheFieldsEachOpUses) {
  CoschedOrder order{.txn = 7,
                     .ops = {{.op = "suspend", .session = 3, .grace_s = 2.5, .confirm_s = 5},
                             {.op = "resume", .session = 2},
                             {.op = "repin", .session = 4, .ranks = {{0, {5, 6}}, {3, {7}}}}}};
  const std::string wire = EncodeCoschedOrder(order);
  EXPECT_EQ(wire, R"({"ops":[{"confirm_s":5.0,"grace_s":2.5,"op":"suspend","session":3},)"
                  R"({"op":"resume","session":2},{"op":"repin","ranks":[{"pus":[5,6],"rank":0},)"
                  R"({"pus":[7],"rank":3}],"session":4}],"txn":7,"version":1})");
  auto back = DecodeCoschedOrder(wire);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->version, kCoschedVersion);
  EXPECT_EQ(back->txn, 7);
  ASSERT_EQ(back->ops.size(), 3u);
  EXPECT_EQ(back->ops[0].op, "suspend");
  EXPECT_EQ(back->ops[0].session, 3);
  EXPECT_DOUBLE_EQ(back->ops[0].grace_s, 2.5);
  EXPECT_DOUBLE_EQ(back->ops[0].confirm_s, 5);
  EXPECT_EQ(back->ops[1].op, "resume");
  EXPECT_DOUBLE_EQ(back->ops[1].confirm_s, 0) << "unset: the node's default applies";
  ASSERT_EQ(back->ops[2].ranks.size(), 2u);
  EXPECT_EQ(back->ops[2].ranks[0].pus, (std::vector<int>{5, 6}));
  EXPECT_EQ(back->ops[2].ranks[1].rank, 3);
}

TEST(Cosched, ReplyRoundTrips) {
  CoschedReply reply{.txn = 9, .node = 2, .ok = false, .done = {0, 1}, .error = "node 2: no"};
  auto back = DecodeCoschedReply(EncodeCoschedReply(reply));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->txn, 9);
  EXPECT_EQ(back->node, 2);
  EXPECT_FALSE(back->ok);
  EXPECT_EQ(back->done, (std::vector<int>{0, 1}));
  EXPECT_EQ(back->error, "node 2: no");
}

// The format before versions were written is version 1: an order without one decodes.
TEST(Cosched, AnOrderWithoutVersionIsVersionOne) {
  auto order = DecodeCoschedOrder(R"({"txn": 3, "ops": [{"op": "resume", "session": 1}]})");
  ASSERT_TRUE(order) << order.error().ToString();
  EXPECT_EQ(order->version, 1);
  EXPECT_EQ(order->ops.at(0).op, "resume");
}

TEST(Cosched, MalformedOrdersAndRepliesAreProtocolErrorsSayingWhat) {
  struct Case {
    const char* data;
    const char* error;
  };
  const Case orders[] = {
      {"", "malformed cosched order: not a JSON object"},
      {"[1, 2]", "malformed cosched order: not a JSON object"},
      {R"({"txn": 1})", "malformed cosched order: "},  // no ops
      {R"({"txn": 1, "ops": [{"session": 1}]})", "malformed cosched order: "},
      {R"({"txn": 1, "ops": [{"op": "resume"}]})", "malformed cosched order: "},
      {R"({"txn": 1, "ops": [{"op": "suspend", "session": 1, "confirm_s": "5"}]})",
       "malformed cosched order: "},
      {R"({"txn": "one", "ops": []})", "malformed cosched order: "},
      {R"({"version": 2, "txn": 1, "ops": []})",
       "cosched order version 2, this daemon speaks version 1"},
      // Floats and integers too large for the field are refused, never cast (a cast of
      // 1e300 to an integer is undefined: UBSan in cosched_fuzz).
      {R"({"txn": 1e300, "ops": []})", "malformed cosched order: 'txn' is not an integer"},
      {R"({"txn": 1, "ops": [{"op": "resume", "session": 1.5}]})",
       "malformed cosched order: 'session' is not an integer"},
      {R"({"version": 4294967297, "txn": 1, "ops": []})",
       "malformed cosched order: 'version' is out of range: 4294967297"},
      {R"({"txn": 1, "ops": [{"op": "repin", "session": 1, "ranks": [{"rank": 0, "pus": [-1e99]}]}]})",
       "malformed cosched order: 'pus[0]' is not an integer"},
  };
  for (const Case& c : orders) {
    auto order = DecodeCoschedOrder(c.data);
    ASSERT_FALSE(order) << c.data;
    EXPECT_EQ(order.error().code(), ErrorCode::kProtocol) << c.data;
    EXPECT_TRUE(order.error().message().starts_with(c.error))
        << c.data << ": " << order.error().message();
  }
  const Case replies[] = {
      {"{", "malformed cosched reply: not a JSON object"},
      {R"({"txn": 1, "node": 1, "ok": "yes"})", "malformed cosched reply: "},
      {R"({"txn": 1, "node": 1, "ok": true, "done": [0, "x"]})", "malformed cosched reply: "},
      {R"({"version": 0, "txn": 1})", "cosched reply version 0, this daemon speaks version 1"},
      {R"({"txn": 1, "node": 18446744073709551615})",
       "malformed cosched reply: 'node' is out of range: 18446744073709551615"},
  };
  for (const Case& c : replies) {
    auto reply = DecodeCoschedReply(c.data);
    ASSERT_FALSE(reply) << c.data;
    EXPECT_TRUE(reply.error().message().starts_with(c.error))
        << c.data << ": " << reply.error().message();
  }
}

}  // namespace
}  // namespace psched::proto
