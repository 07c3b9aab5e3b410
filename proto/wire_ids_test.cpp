#include "proto/wire_ids.hpp"

#include <gtest/gtest.h>

namespace psched::proto {
namespace {

const IdBounds kFour{.nodes = 4};

TEST(WireIds, NodesOutsideTheAllocationAreRefusedNamingTheId) {
  CollContribute c{
      .session = 1, .id = "f", .spans = {0, 3}, .nodes = {2, 0x7e000200}, .sizes = {1, 1}};
  auto bad = CheckIds(c, kFour);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "contributor node 2113929728 is outside an allocation of 4 nodes");
  c.nodes = {2, 3};
  EXPECT_TRUE(CheckIds(c, kFour));
  c.spans = {0, 4};
  EXPECT_FALSE(CheckIds(c, kFour));
  c.spans = {2, 1};
  EXPECT_FALSE(CheckIds(c, kFour)) << "a reversed span";
  c.spans = {0, 1, 1, 2};
  EXPECT_FALSE(CheckIds(c, kFour)) << "overlapping spans";
  c.spans = {0};
  EXPECT_FALSE(CheckIds(c, kFour)) << "half a span";

  EXPECT_FALSE(CheckIds(NodeJoin{.node = 4}, kFour));
  EXPECT_FALSE(CheckIds(NodeJoin{.node = -1}, kFour));
  EXPECT_TRUE(CheckIds(NodeJoin{.node = 3}, kFour));
  EXPECT_FALSE(CheckIds(NodeLost{.nodes = {1, 9}}, kFour));
  EXPECT_FALSE(CheckIds(CollAbort{.nodes = {-3}}, kFour));
  EXPECT_FALSE(CheckIds(CollResult{.session = 1, .spans = {0, 7}}, kFour));
  EXPECT_FALSE(CheckIds(PeerRoute{.to = {0}, .from = 99}, kFour));
  EXPECT_FALSE(CheckIds(PeerRoute{.to = {0, 4}, .from = 1}, kFour));
  EXPECT_TRUE(CheckIds(PeerRoute{.to = {0, 3}, .from = 1}, kFour));
  EXPECT_FALSE(CheckIds(MonitorReport{.node = 1, .links = {{.peer = 4}}}, kFour));
  EXPECT_FALSE(CheckIds(MonitorPeers{.probes = {{.node = 4}}}, kFour));
  EXPECT_FALSE(
      CheckIds(NodeDone{.session = 1, .node = 1, .exits = {{.session = 1, .node = 8}}}, kFour));
}

TEST(WireIds, SessionsAndRanksAreInRange) {
  EXPECT_FALSE(CheckIds(RankExit{.session = -1}, kFour));
  EXPECT_FALSE(CheckIds(RankExit{.session = 1, .rank = -2}, kFour));
  EXPECT_FALSE(CheckIds(Output{.session = 1, .rank = -1}, kFour));
  EXPECT_FALSE(CheckIds(SessionRef{.session = -5}, kFour));
  StartRanksOrder order{.session = 2, .size = 2};
  order.ranks = {{.rank = 0, .node = 1}, {.rank = 1, .node = 2}};
  EXPECT_TRUE(CheckIds(order, kFour));
  order.ranks[1].rank = 2;
  EXPECT_FALSE(CheckIds(order, kFour)) << "rank 2 of 2";
  order.ranks[1] = {.rank = 1, .node = 4};
  EXPECT_FALSE(CheckIds(order, kFour));
  order.ranks.pop_back();
  EXPECT_FALSE(CheckIds(order, kFour)) << "size 2 with one rank";
}

TEST(WireIds, DecodeCheckedNamesTheMessage) {
  auto wire = EncodeFrame(MsgType::kNodeLost, Json(NodeLost{{5}, "gone"}));
  size_t consumed = 0;
  auto frame = DecodeFrame({reinterpret_cast<const uint8_t*>(wire.data()), wire.size()}, &consumed);
  ASSERT_TRUE(frame && *frame);
  auto lost = DecodeChecked<NodeLost>(**frame, kFour);
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().message(),
            "node.lost message: node 5 is outside an allocation of 4 nodes");
  EXPECT_TRUE(DecodeChecked<NodeLost>(**frame, IdBounds{.nodes = 6}));
}

}  // namespace
}  // namespace psched::proto
