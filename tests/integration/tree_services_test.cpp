// The generic tree services the PMIx server builds on (daemon/launch_hooks.hpp):
// collectives over the daemon tree and point-to-point messages, with several real
// daemons (TCP, authentication, routing) on one event base in this process.
#include <event2/event.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "daemon/daemon.hpp"

namespace psched::daemon {
namespace {

class TreeServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = event_base_new();
    char tmpl[] = "/tmp/psched-tree-XXXXXX";
    rundir_ = mkdtemp(tmpl);
    auto secret = Secret::Generate();
    ASSERT_TRUE(secret);
    // Fan-out 2 over 6 nodes: two levels below the leader, so messages are relayed.
    int ready = 0;
    const int nodes = NodeCount();
    for (int node = 0; node < nodes; ++node) {
      DaemonOptions o;
      o.node = node;
      o.nodes = nodes;
      o.fanout = 2;
      o.rundir = rundir_ + "/run";
      o.topology = "core:2";
      if (node > 0) o.parent = "127.0.0.1:" + std::to_string(daemons_[(node - 1) / 2]->port());
      o.report = [&ready](const std::string& line) { ready += line == "ready"; };
      auto d = Daemon::Create(base_, o, *Secret::FromHex(secret->Hex()));
      ASSERT_TRUE(d) << d.error().ToString();
      daemons_.push_back(std::move(*d));
    }
    ASSERT_TRUE(RunUntil([&] { return ready == nodes; }));
  }
  virtual int NodeCount() const { return kNodes; }
  void TearDown() override {
    daemons_.clear();
    event_base_free(base_);
    std::filesystem::remove_all(rundir_);
  }
  bool RunUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 20000 && !done(); ++i)
      event_base_loop(base_, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    return done();
  }

  static constexpr int kNodes = 6;
  event_base* base_ = nullptr;
  std::string rundir_;
  std::vector<std::unique_ptr<Daemon>> daemons_;
};

TEST_F(TreeServicesTest, CollectiveConcatenatesBlobsInNodeOrderOnEveryParticipant) {
  std::vector<int> participants = {1, 2, 4, 5};
  std::map<int, std::string> results;
  // Contribute in a scrambled order: the result is still in node order.
  for (int node : {5, 1, 4, 2}) {
    daemons_[node]->tree().Collective(
        7, "fence-1", "<" + std::to_string(node) + ">", participants,
        [&results, node](Result<std::string> all) { results[node] = all ? *all : "error"; });
  }
  ASSERT_TRUE(RunUntil([&] { return results.size() == participants.size(); }));
  for (int node : participants) EXPECT_EQ(results[node], "<1><2><4><5>") << "node " << node;
}

// A collective whose combined data exceeds the 16 MiB a launcher may send (PMIx modex of
// a few KB per rank over thousands of ranks): authenticated daemons take it. The frames
// used to be refused, which closed the link and stopped the daemon below it.
TEST_F(TreeServicesTest, CollectiveLargerThanALaunchersFrameLimitGoesThrough) {
  const std::vector<int> participants = {0, 3, 5};
  const size_t each = 9u << 20;  // nodes 3 and 5 meet at node 1: 18 MiB up, 27 MiB down
  std::map<int, std::string> results;
  for (int node : participants) {
    daemons_[node]->tree().Collective(8, "big", std::string(each, static_cast<char>('a' + node)),
                                      participants, [&results, node](Result<std::string> all) {
                                        results[node] =
                                            all ? *all : "error: " + all.error().ToString();
                                      });
  }
  ASSERT_TRUE(RunUntil([&] { return results.size() == participants.size(); }));
  for (int node : participants) {
    ASSERT_EQ(results[node].size(), 3 * each)
        << "node " << node << ": " << results[node].substr(0, 200);
    EXPECT_EQ(results[node][0], 'a');
    EXPECT_EQ(results[node][each], 'd');
    EXPECT_EQ(results[node][2 * each], 'f');
  }
}

TEST_F(TreeServicesTest, TwoCollectivesAtOnceDoNotMix) {
  std::map<std::string, int> done;
  for (int node = 0; node < kNodes; ++node) {
    for (std::string id : {"a", "b"}) {
      daemons_[node]->tree().Collective(1, id, id, {0, 1, 2, 3, 4, 5},
                                        [&done, id](Result<std::string> all) {
                                          if (all && *all == std::string(6, id[0])) done[id]++;
                                        });
    }
  }
  ASSERT_TRUE(RunUntil([&] { return done["a"] == kNodes && done["b"] == kNodes; }));
}

TEST_F(TreeServicesTest, PointToPointReachesTheNamedNodesService) {
  std::vector<std::pair<int, std::string>> got;
  daemons_[5]->tree().RegisterService(
      "modex", [&got](int from, const std::string& data) { got.emplace_back(from, data); });
  daemons_[3]->tree().SendToNode(5, "modex", std::string("req\0uest", 8));  // 3 -> 1 -> 0 -> 2 -> 5
  daemons_[0]->tree().SendToNode(5, "modex", "from leader");
  daemons_[4]->tree().SendToNode(5, "other", "nobody listens");
  ASSERT_TRUE(RunUntil([&] { return got.size() == 2; }));
  std::sort(got.begin(), got.end());  // different path lengths: any arrival order
  EXPECT_EQ(got[0], (std::pair<int, std::string>{0, "from leader"}));
  EXPECT_EQ(got[1], (std::pair<int, std::string>{3, std::string("req\0uest", 8)}));
}

// Fan-out 2 over 16 nodes: four levels, so contributions are combined at every level.
class DeepTreeServicesTest : public TreeServicesTest {
 protected:
  int NodeCount() const override { return kDeepNodes; }
  static constexpr int kDeepNodes = 16;
};

TEST_F(DeepTreeServicesTest, FenceWithDataReturnsEveryNodesDataExactlyOnce) {
  // Each node's blob names it and is binary: a blob counted twice, lost or cut shows.
  auto blob = [](int node) {
    std::string b = "[" + std::to_string(node) + ":";
    b += std::string(static_cast<size_t>(100 + node), static_cast<char>(node));
    return b + "]";
  };
  std::vector<int> everyone(kDeepNodes);
  for (int n = 0; n < kDeepNodes; ++n) everyone[n] = n;
  std::map<int, Result<std::string>> results;
  for (int round = 0; round < 2; ++round) {
    results.clear();
    for (int node = kDeepNodes - 1; node >= 0; --node) {
      daemons_[node]->tree().Collective(
          11, "fence#" + std::to_string(round), blob(node), everyone,
          [&results, node](Result<std::string> all) { results.emplace(node, std::move(all)); });
    }
    ASSERT_TRUE(RunUntil([&] { return results.size() == size_t{kDeepNodes}; }));
    std::string expected;
    for (int n = 0; n < kDeepNodes; ++n) expected += blob(n);
    for (auto& [node, all] : results) {
      ASSERT_TRUE(all) << "node " << node << ": " << all.error().ToString();
      EXPECT_EQ(*all, expected) << "node " << node;
      for (int n = 0; n < kDeepNodes; ++n) {
        std::string tag = "[" + std::to_string(n) + ":";
        size_t first = all->find(tag);
        EXPECT_NE(first, std::string::npos) << "node " << node << " lacks node " << n;
        EXPECT_EQ(all->find(tag, first + 1), std::string::npos)
            << "node " << node << " has node " << n << "'s data twice";
      }
    }
  }
}

TEST_F(DeepTreeServicesTest, LosingAParticipantFailsTheCollectiveOnEveryOtherNode) {
  std::vector<int> everyone(kDeepNodes);
  for (int n = 0; n < kDeepNodes; ++n) everyone[n] = n;
  std::map<int, Result<std::string>> results;
  // Node 13 (a leaf under 6 -> 2 -> 0) never contributes: its daemon goes away.
  for (int node = 0; node < kDeepNodes; ++node) {
    if (node != 13) {
      daemons_[node]->tree().Collective(
          12, "fence#0", "x", everyone,
          [&results, node](Result<std::string> all) { results.emplace(node, std::move(all)); });
    }
  }
  daemons_[13].reset();
  ASSERT_TRUE(RunUntil([&] { return results.size() == size_t{kDeepNodes - 1}; }));
  for (auto& [node, all] : results) {
    ASSERT_FALSE(all) << "node " << node << " finished without node 13";
    EXPECT_NE(all.error().ToString().find("participant node was lost"), std::string::npos)
        << all.error().ToString();
  }
  // A collective started afterwards with the lost node fails at once, with the reason.
  std::optional<Result<std::string>> later;
  daemons_[1]->tree().Collective(12, "fence#1", "x", everyone,
                                 [&later](Result<std::string> all) { later = std::move(all); });
  ASSERT_TRUE(RunUntil([&] { return later.has_value(); }));
  ASSERT_FALSE(*later);
  EXPECT_NE(later->error().ToString().find("node 13 was lost"), std::string::npos)
      << later->error().ToString();
  // The survivors still run collectives among themselves.
  std::map<int, std::string> ok;
  for (int node : {1, 2, 14}) {
    daemons_[node]->tree().Collective(
        12, "fence#2", std::to_string(node), {1, 2, 14},
        [&ok, node](Result<std::string> all) { ok[node] = all ? *all : all.error().ToString(); });
  }
  ASSERT_TRUE(RunUntil([&] { return ok.size() == 3; }));
  for (auto& [node, all] : ok) EXPECT_EQ(all, "1214") << "node " << node;
}

}  // namespace
}  // namespace psched::daemon
