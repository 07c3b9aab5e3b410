#include "daemon/net/peer_link.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "daemon/net/auth.hpp"
#include "daemon/net/tree.hpp"
#include "tests/support/eventually.hpp"

namespace psched::daemon {
namespace {

using psched::testing::TurnUntil;

// A daemon stopping with several children still connected: closing each link runs
// its close callback, which used to erase it from the map being iterated
// (std::_Rb_tree_increment crashed in pschedd at exit).
TEST(PeerLink, StoppingWithSeveralChildrenClosesThemAll) {
  event_base* base = event_base_new();
  auto secret = Secret::Generate();
  ASSERT_TRUE(secret);
  Tree tree{4, 8};
  auto parent = std::make_unique<PeerLink>(base, 0, tree, *secret, PeerLink::Handlers{});
  auto port = parent->Listen("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().ToString();
  int ready = 0, lost = 0;
  std::vector<std::unique_ptr<PeerLink>> children;
  for (int node = 1; node <= 3; ++node) {
    PeerLink::Handlers h;
    h.parent_ready = [&] { ++ready; };
    h.parent_lost = [&](const std::string&) { ++lost; };
    children.push_back(std::make_unique<PeerLink>(base, node, tree, *secret, std::move(h)));
    ASSERT_TRUE(children.back()->ConnectParent("127.0.0.1:" + std::to_string(*port)));
  }
  ASSERT_TRUE(TurnUntil(
      base, [&] { return ready == 3; }, 30))
      << ready << " of 3 joined";
  parent.reset();
  EXPECT_TRUE(TurnUntil(
      base, [&] { return lost == 3; }, 30))
      << lost << " of 3 saw it go";
  children.clear();
  event_base_free(base);
}

// Receivers take a routed frame's `from` as its sender (a cosched reply counts for that
// node): node 1 could speak for its sibling 2, or for a node that does not exist, and
// the leader could be told things "from" node 1 by node 1's parent link. A link now
// carries only frames from the nodes behind it; the rest are dropped with a log line.
TEST(PeerLink, FramesWhoseSenderIsNotBehindTheLinkAreDropped) {
  event_base* base = event_base_new();
  auto secret = Secret::Generate();
  ASSERT_TRUE(secret);
  Tree tree{3, 2};                       // 0 -> 1, 2
  std::vector<int> at_leader, at_node1;  // `from` of each frame delivered
  auto collect = [](std::vector<int>* into) {
    return [into](proto::Frame&& f) { into->push_back(f.body.value("from", -1)); };
  };
  PeerLink::Handlers leader_h;
  leader_h.deliver = collect(&at_leader);
  auto leader = std::make_unique<PeerLink>(base, 0, tree, *secret, std::move(leader_h));
  auto port = leader->Listen("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().ToString();
  int ready = 0;
  PeerLink::Handlers h1;
  h1.deliver = collect(&at_node1);
  h1.parent_ready = [&] { ++ready; };
  auto node1 = std::make_unique<PeerLink>(base, 1, tree, *secret, std::move(h1));
  ASSERT_TRUE(node1->ConnectParent("127.0.0.1:" + std::to_string(*port)));
  ASSERT_TRUE(TurnUntil(
      base, [&] { return ready == 1 && leader->connected_children() == 1; }, 30));

  auto body = [](int from) { return proto::Json{{"from", from}, {"service", "x"}, {"data", ""}}; };
  for (int from : {2, 99, -1, 0, 1}) node1->Send({0}, proto::MsgType::kPeerSend, body(from));
  node1->Send({0}, proto::MsgType::kPeerSend, {{"service", "x"}});  // from: node 1 itself
  node1->SendToNeighbour(                                           // no `from` at all
      0, proto::EncodeFrame(proto::MsgType::kPeerSend,
                            proto::Json{{"to", proto::Json::array({0})}, {"service", "x"}}));
  leader->Send({1}, proto::MsgType::kPeerSend, body(1));  // node 1 is not behind its parent
  leader->Send({1}, proto::MsgType::kPeerSend, body(0));
  ASSERT_TRUE(TurnUntil(
      base, [&] { return at_leader.size() >= 2 && !at_node1.empty(); }, 10));
  // A few more turns: anything dropped wrongly would have arrived by now.
  TurnUntil(
      base, [] { return false; }, 0.3);
  EXPECT_EQ(at_leader, (std::vector<int>{1, 1}));
  EXPECT_EQ(at_node1, (std::vector<int>{0}));
  node1.reset();
  leader.reset();
  event_base_free(base);
}

}  // namespace
}  // namespace psched::daemon
