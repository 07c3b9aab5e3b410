#include "daemon/net/peer_link.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "daemon/net/auth.hpp"
#include "daemon/net/tree.hpp"
#include "proto/messages.hpp"
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

// A leader (node 0) and its child node 1 of a 3-node tree (0 -> 1, 2), linked and
// authenticated, each recording what is delivered to it.
struct TwoLinkedNodes {
  event_base* base = event_base_new();
  Tree tree{3, 2};
  std::unique_ptr<PeerLink> leader, node1;
  std::vector<int> at_leader, at_node1;  // the route's `from` of each frame delivered
  std::vector<std::string> services_at_leader;

  TwoLinkedNodes() {
    auto secret = Secret::Generate();
    EXPECT_TRUE(secret);
    secret_ = *secret;
    PeerLink::Handlers leader_h;
    leader_h.deliver = [this](int from, proto::Frame&& f) {
      at_leader.push_back(from);
      auto msg = proto::Decode<proto::PeerSend>(f);
      services_at_leader.push_back(msg ? msg->service : "?");
    };
    leader = std::make_unique<PeerLink>(base, 0, tree, secret_, std::move(leader_h));
    auto port = leader->Listen("127.0.0.1", 0);
    EXPECT_TRUE(port) << port.error().ToString();
    PeerLink::Handlers h1;
    h1.deliver = [this](int from, proto::Frame&&) { at_node1.push_back(from); };
    h1.parent_ready = [this] { ++ready_; };
    node1 = std::make_unique<PeerLink>(base, 1, tree, secret_, std::move(h1));
    EXPECT_TRUE(node1->ConnectParent("127.0.0.1:" + std::to_string(*port)));
    EXPECT_TRUE(TurnUntil(
        base, [&] { return ready_ == 1 && leader->connected_children() == 1; }, 30));
  }
  ~TwoLinkedNodes() {
    node1.reset();
    leader.reset();
    event_base_free(base);
  }
  // A frame with any route, as a hostile or broken peer could write it.
  static std::string Forged(std::vector<int> to, int from, const std::string& service) {
    return proto::EncodeRouted(proto::MsgType::kPeerSend, {.to = std::move(to), .from = from},
                               proto::Json(proto::PeerSend{service, ""}));
  }

 private:
  Secret secret_;
  int ready_ = 0;
};

// Receivers take a routed frame's `from` as its sender (a cosched reply counts for that
// node): node 1 could speak for its sibling 2, or for a node that does not exist, and
// the leader could be told things "from" node 1 by node 1's parent link. A link now
// carries only frames from the nodes behind it; the rest are dropped with a log line.
TEST(PeerLink, FramesWhoseSenderIsNotBehindTheLinkAreDropped) {
  TwoLinkedNodes n;
  const proto::Json body = proto::Json(proto::PeerSend{"x", ""});
  for (int from : {2, 99, -1, 0, 1}) n.node1->SendToNeighbour(0, n.Forged({0}, from, "x"));
  n.node1->Send({0}, proto::MsgType::kPeerSend, body);  // from: node 1 itself
  n.node1->SendToNeighbour(                             // no route at all (an older daemon's)
      0, proto::EncodeFrame(proto::MsgType::kPeerSend,
                            proto::Json{{"to", proto::Json::array({0})}, {"service", "x"}}));
  n.leader->SendToNeighbour(1, n.Forged({1}, 1, "x"));  // node 1 is not behind its parent
  n.leader->Send({1}, proto::MsgType::kPeerSend, body);
  ASSERT_TRUE(TurnUntil(
      n.base, [&] { return n.at_leader.size() >= 2 && !n.at_node1.empty(); }, 10));
  // A few more turns: anything dropped wrongly would have arrived by now.
  TurnUntil(
      n.base, [] { return false; }, 0.3);
  EXPECT_EQ(n.at_leader, (std::vector<int>{1, 1}));
  EXPECT_EQ(n.at_node1, (std::vector<int>{0}));
}

// Every node a route names is checked where the route is decoded, before routing walks
// the tree from it: a frame for the leader and for node 0x7e000200 (the probe's id) is
// refused whole, with a log line, not delivered to the leader. Without the check the
// leader got it (routing skipped the node it could not reach).
TEST(PeerLink, AFrameNamingANodeOutsideTheAllocationIsDroppedWhole) {
  TwoLinkedNodes n;
  n.node1->SendToNeighbour(0, n.Forged({0, 0x7e000200}, 1, "far"));
  n.node1->SendToNeighbour(0, n.Forged({0, -1}, 1, "negative"));
  n.node1->SendToNeighbour(0, n.Forged({0, 3}, 1, "one past the last"));
  n.node1->SendToNeighbour(0, n.Forged({0, 2}, 1, "in range"));
  ASSERT_TRUE(TurnUntil(
      n.base, [&] { return !n.at_leader.empty(); }, 10));
  TurnUntil(
      n.base, [] { return false; }, 0.3);
  EXPECT_EQ(n.services_at_leader, (std::vector<std::string>{"in range"}));
}

}  // namespace
}  // namespace psched::daemon
