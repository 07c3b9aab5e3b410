// TreeCollectives over in-memory links: every frame is really encoded, queued and
// decoded, delivered in a shuffled (seeded) order, so combining, ordering, routing
// and failure handling are checked without sockets.
#include "daemon/net/tree_collective.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <random>

#include "proto/collective_wire.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {
namespace {

class Network {
 public:
  Network(int nodes, int fanout) : tree_{nodes, fanout} {
    for (int n = 0; n < nodes; ++n) {
      engines_.push_back(
          std::make_unique<TreeCollectives>(n, tree_, [this, n](int to, const std::string& wire) {
            // A frame only ever goes to a tree neighbour.
            EXPECT_TRUE(tree_.Parent(n) == to || tree_.Parent(to) == n) << n << " -> " << to;
            queue_.push_back({to, wire});
          }));
    }
  }

  TreeCollectives& at(int node) { return *engines_[node]; }

  // Delivers queued frames in a random order until none is left.
  void Run(unsigned seed = 1) {
    std::mt19937 rng(seed);
    while (!queue_.empty()) {
      std::uniform_int_distribution<size_t> pick(0, queue_.size() - 1);
      auto it = queue_.begin() + static_cast<std::ptrdiff_t>(pick(rng));
      auto [to, wire] = std::move(*it);
      queue_.erase(it);
      size_t consumed = 0;
      auto frame = proto::DecodeFrame({reinterpret_cast<const uint8_t*>(wire.data()), wire.size()},
                                      &consumed);
      ASSERT_TRUE(frame && *frame) << "undecodable frame";
      ASSERT_EQ(consumed, wire.size());
      ++received_[to][(*frame)->type];
      engines_[to]->OnFrame(**frame);
    }
  }
  int Received(int node, proto::MsgType type) { return received_[node][type]; }
  int Frames(proto::MsgType type) {
    int total = 0;
    for (auto& [node, by_type] : received_) total += by_type[type];
    return total;
  }

 private:
  Tree tree_;
  std::vector<std::unique_ptr<TreeCollectives>> engines_;
  std::deque<std::pair<int, std::string>> queue_;
  std::map<int, std::map<proto::MsgType, int>> received_;
};

// A contribution as it arrives: encoded on the wire, decoded by the frame codec.
proto::Frame Contribution(const proto::CollContribute& c, std::string_view blobs) {
  std::string wire = proto::EncodeContributeFrame(c, blobs);
  size_t consumed = 0;
  auto frame =
      proto::DecodeFrame({reinterpret_cast<const uint8_t*>(wire.data()), wire.size()}, &consumed);
  EXPECT_TRUE(frame && *frame);
  return frame && *frame ? std::move(**frame) : proto::Frame{};
}

std::string BlobOf(int node) {
  // Binary, distinct per node, of varying size (node 0's is empty).
  std::string b(static_cast<size_t>(node) * 3, '\0');
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(static_cast<size_t>(node) * 7 + i);
  return b;
}

std::vector<int> All(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(TreeCollectives, DeepTreeGathersEveryBlobOnceInNodeOrderWithOneFramePerLink) {
  constexpr int kNodes = 16;
  for (unsigned seed : {1u, 2u, 3u}) {
    Network net(kNodes, 2);
    std::map<int, std::string> results;
    std::string expected;
    for (int n = 0; n < kNodes; ++n) expected += BlobOf(n);
    // Contributions in reverse order: leaves first, the root last.
    for (int n = kNodes - 1; n >= 0; --n) {
      net.at(n).Contribute(3, "fence#0", BlobOf(n), All(kNodes), [&results, n](auto r) {
        ASSERT_TRUE(r) << r.error().ToString();
        EXPECT_FALSE(results.contains(n)) << "node " << n << " answered twice";
        results[n] = *r;
      });
    }
    net.Run(seed);
    ASSERT_EQ(results.size(), size_t{kNodes});
    for (auto& [n, all] : results) EXPECT_EQ(all, expected) << "node " << n;
    // Combined per subtree: each link carries one contribution up and one result down.
    EXPECT_EQ(net.Frames(proto::MsgType::kCollContribute), kNodes - 1);
    EXPECT_EQ(net.Frames(proto::MsgType::kCollResult), kNodes - 1);
    for (int n = 0; n < kNodes; ++n) EXPECT_EQ(net.at(n).in_flight(), 0u) << "node " << n;
  }
}

TEST(TreeCollectives, ParticipantsInOneSubtreeNeverReachTheLeader) {
  // Fan-out 2: node 3's subtree is 3, 7, 8, 15.
  Network net(16, 2);
  std::map<int, std::string> results;
  std::vector<int> participants = {15, 3, 8};
  for (int n : participants) {
    net.at(n).Contribute(9, "x", "<" + std::to_string(n) + ">", participants,
                         [&results, n](auto r) { results[n] = r ? *r : r.error().ToString(); });
  }
  net.Run();
  for (int n : participants) EXPECT_EQ(results[n], "<3><8><15>") << "node " << n;
  // Only the subtree's links carry frames (7 relays for 15).
  for (int n = 0; n < 16; ++n) {
    if (n != 3 && n != 7 && n != 8 && n != 15) {
      EXPECT_EQ(net.Received(n, proto::MsgType::kCollContribute) +
                    net.Received(n, proto::MsgType::kCollResult),
                0)
          << "node " << n;
    }
  }
  for (int n = 0; n < 16; ++n) EXPECT_EQ(net.at(n).in_flight(), 0u) << "node " << n;
}

TEST(TreeCollectives, ScatteredParticipantsMeetThroughNodesThatDoNotTakePart) {
  Network net(16, 2);
  std::map<int, std::string> results;
  std::vector<int> participants = {12, 5, 14};  // paths 12-5-2-0, 14-6-2: root 2
  for (int n : participants) {
    net.at(n).Contribute(1, "f", std::string(1, static_cast<char>('a' + n)), participants,
                         [&results, n](auto r) { results[n] = r ? *r : r.error().ToString(); });
  }
  net.Run();
  for (int n : participants) EXPECT_EQ(results[n], "fmo") << "node " << n;
  EXPECT_EQ(net.Received(0, proto::MsgType::kCollContribute), 0);
  for (int n = 0; n < 16; ++n) EXPECT_EQ(net.at(n).in_flight(), 0u) << "node " << n;
}

TEST(TreeCollectives, ConcurrentCollectivesDoNotMix) {
  Network net(10, 3);
  std::map<std::string, int> right;
  for (int n = 0; n < 10; ++n) {
    for (std::string id : {"a", "b", "c"}) {
      net.at(n).Contribute(1, id, id, All(10), [&right, id](auto r) {
        if (r && *r == std::string(10, id[0])) right[id]++;
      });
    }
  }
  net.Run(7);
  EXPECT_EQ(right["a"], 10);
  EXPECT_EQ(right["b"], 10);
  EXPECT_EQ(right["c"], 10);
}

TEST(TreeCollectives, SingleParticipantAnswersAtOnce) {
  Network net(4, 2);
  std::string got;
  net.at(2).Contribute(1, "solo", "blob", {2}, [&got](auto r) { got = r ? *r : "error"; });
  EXPECT_EQ(got, "blob");
  net.Run();
  EXPECT_EQ(net.Frames(proto::MsgType::kCollContribute), 0);
}

TEST(TreeCollectives, LostParticipantFailsEveryWaitingNodeAndLaterCollectives) {
  Network net(16, 2);
  std::map<int, std::string> errors;
  for (int n = 0; n < 16; ++n) {
    if (n == 9) continue;  // node 9 dies before contributing
    net.at(n).Contribute(4, "fence#2", "x", All(16), [&errors, n](auto r) {
      ASSERT_FALSE(r) << "node " << n << " got a result without node 9";
      errors[n] = r.error().ToString();
    });
  }
  net.Run();
  EXPECT_TRUE(errors.empty());
  // Node 9's parent notices first; the leader's coll.abort reaches everyone else.
  net.at(4).NodesLost({9}, "connection closed");
  EXPECT_EQ(errors.size(), 1u);
  for (int n = 0; n < 16; ++n)
    if (n != 9 && n != 4) net.at(n).NodesLost({9}, "connection closed");
  EXPECT_EQ(errors.size(), 15u);
  for (auto& [n, e] : errors) {
    EXPECT_NE(e.find("participant node was lost"), std::string::npos) << e;
    EXPECT_NE(e.find("connection closed"), std::string::npos) << e;
  }
  for (int n = 0; n < 16; ++n) EXPECT_EQ(net.at(n).in_flight(), 0u) << "node " << n;
  std::string later;
  net.at(3).Contribute(4, "fence#3", "x", All(16),
                       [&later](auto r) { later = r ? "ok" : r.error().ToString(); });
  EXPECT_NE(later.find("node 9 was lost"), std::string::npos) << later;
}

TEST(TreeCollectives, BadCallsFailWithTheReason) {
  Network net(4, 2);
  std::vector<std::string> errors;
  auto keep = [&errors](Result<std::string> r) {
    errors.push_back(r ? "ok" : r.error().ToString());
  };
  net.at(1).Contribute(1, "a", "", {0, 2}, keep);
  net.at(1).Contribute(1, "b", "", {1, 4}, keep);
  net.at(1).Contribute(1, "c", "", {}, keep);
  net.at(1).Contribute(1, "d", "", {0, 1}, keep);  // fine: waits for node 0
  net.at(1).Contribute(1, "d", "", {0, 1, 3}, keep);
  net.at(1).Contribute(1, "d", "", {1, 0}, keep);
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_NE(errors[0].find("not among the participants"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("outside an allocation of 4"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("no participants"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("differ"), std::string::npos) << errors[3];
  EXPECT_NE(errors[4].find("node 1, session 1: collective d: this node already contributed"),
            std::string::npos)
      << errors[4];
}

TEST(TreeCollectives, MalformedFramesAreDropped) {
  Network net(4, 2);
  std::string got;
  net.at(0).Contribute(1, "f", "A", {0, 1}, [&got](auto r) { got = r ? *r : "error"; });
  net.at(0).OnFrame({proto::MsgType::kCollContribute, proto::Json::object(), "one"});
  // Sizes claiming more bytes than the frame has.
  net.at(0).OnFrame(Contribution({1, "f", {0, 1}, {1}, {100}}, "B"));
  // The right contribution cut short: its header no longer holds.
  proto::Frame cut = Contribution({1, "f", {0, 1}, {1}, {1}}, "B");
  cut.raw.resize(cut.raw.size() - 6);
  net.at(0).OnFrame(cut);
  // A node that is no participant.
  net.at(0).OnFrame(Contribution({1, "f", {0, 1}, {3}, {1}}, "C"));
  EXPECT_EQ(got, "");
  net.at(1).OnFrame({proto::MsgType::kCollResult, proto::Json::object(), "\x05"});
  net.at(1).Contribute(1, "f", "B", {0, 1}, [](auto) {});
  net.Run();
  EXPECT_EQ(got, "AB");
}

TEST(TreeCollectives, MalformedParticipantSpansAreDropped) {
  Network net(4, 2);
  std::string got;
  net.at(0).Contribute(1, "f", "A", {0, 1}, [&got](auto r) { got = r ? *r : "error"; });
  for (const std::vector<int>& spans :
       std::vector<std::vector<int>>{{0}, {1, 0}, {0, 1, 1, 1}, {0, 9}}) {
    net.at(0).OnFrame(Contribution({1, "f", spans, {1}, {1}}, "X"));
  }
  EXPECT_EQ(got, "");
  net.at(1).Contribute(1, "f", "B", {0, 1}, [](auto) {});
  net.Run();
  EXPECT_EQ(got, "AB");
}

// A contributor id is checked before any tree arithmetic runs on it. With fanout 1 the
// tree is a chain, and one authenticated frame naming node 0x7e000200 made the leader
// walk ~2e9 parents (16 s of a frozen loop) and then take the frame's other blobs. A
// frame with such an id, or with a contributor that is not below the receiver, is
// dropped whole.
TEST(TreeCollectives, ContributorsOutsideTheTreeOrNotBelowTheReceiverDropTheFrame) {
  Network net(4, 1);
  std::string got;
  net.at(1).Contribute(1, "f", "A", {1, 2}, [&got](auto r) { got = r ? *r : "error"; });
  net.at(1).OnFrame(Contribution({1, "f", {1, 2}, {2, 0x7e000200}, {1, 1}}, "BX"));
  net.at(1).OnFrame(Contribution({1, "f", {1, 2}, {2, -7}, {1, 1}}, "BX"));
  // Node 0 is above node 1, node 1 is the receiver itself: neither comes from below.
  net.at(1).OnFrame(Contribution({1, "f", {0, 2}, {2, 0}, {1, 1}}, "BX"));
  net.at(1).OnFrame(Contribution({1, "f", {1, 2}, {2, 1}, {1, 1}}, "BX"));
  net.Run();
  EXPECT_EQ(got, "") << "a frame with a bad contributor was taken";
  net.at(2).Contribute(1, "f", "B", {1, 2}, [](auto) {});
  net.Run();
  EXPECT_EQ(got, "AB");
}

// A session dies inside a fence: some nodes contributed, the others never will. Every
// participant is answered with an error and no node (relays included) keeps state.
TEST(TreeCollectives, SessionEndingInsideACollectiveLeavesNothingBehind) {
  constexpr int kNodes = 15;
  Network net(kNodes, 2);  // depth 3: the contributors' blobs wait on relays
  std::vector<std::string> errors;
  for (int n : {7, 8, 9, 13}) {
    net.at(n).Contribute(4, "fence#0", BlobOf(n), All(kNodes), [&errors](auto r) {
      ASSERT_FALSE(r);
      errors.push_back(r.error().ToString());
    });
  }
  net.Run();
  size_t held = 0;
  for (int n = 0; n < kNodes; ++n) held += net.at(n).in_flight();
  ASSERT_GT(held, 4u) << "the relays hold partial state for the test to mean anything";
  for (int n : {7, 8, 9, 13}) net.at(n).SessionEnded(4);
  net.Run();
  for (int n = 0; n < kNodes; ++n) EXPECT_EQ(net.at(n).in_flight(), 0u) << "node " << n;
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(errors[0].find("session 4"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("the session ended"), std::string::npos) << errors[0];
  EXPECT_GT(net.Frames(proto::MsgType::kCollForget), 0);
}

// A node whose own ranks of the session ended may still relay the session's
// collectives over other nodes (a fence over some ranks): its end keeps that state.
TEST(TreeCollectives, SessionEndingOnARelayKeepsOtherNodesCollectives) {
  Network net(7, 2);  // node 1's children: 3 and 4
  std::map<int, std::string> results;
  auto keep = [&results](int n) {
    return [&results, n](auto r) { results[n] = r ? *r : "error: " + r.error().ToString(); };
  };
  net.at(3).Contribute(2, "subset#0", "C", {3, 4}, keep(3));
  net.Run();
  net.at(1).SessionEnded(2);
  net.Run();
  net.at(4).Contribute(2, "subset#0", "D", {3, 4}, keep(4));
  net.Run();
  EXPECT_EQ(results[3], "CD");
  EXPECT_EQ(results[4], "CD");
  EXPECT_EQ(net.Frames(proto::MsgType::kCollForget), 0);
}

}  // namespace
}  // namespace psched::daemon
