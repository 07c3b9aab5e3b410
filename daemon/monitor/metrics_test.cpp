#include "daemon/monitor/metrics.hpp"

#include <gtest/gtest.h>

#include "daemon/monitor/metrics_board.hpp"

namespace psched::daemon::monitor {
namespace {

TEST(LinkFromProbe, HalfRoundTripAndBandwidthWithoutTheAck) {
  // 1 MB acknowledged 0.101 s after sending, round trip 1 ms: 8 Mbit in 0.1 s.
  proto::LinkReport l = LinkFromProbe(3, 0.001, 1'000'000, 0.101);
  EXPECT_EQ(l.peer, 3);
  EXPECT_DOUBLE_EQ(l.latency_us, 500);
  EXPECT_NEAR(l.bandwidth_mbps, 80, 1e-9);
}

TEST(LinkFromProbe, TransferFasterThanARoundTripIsBounded) {
  proto::LinkReport l = LinkFromProbe(1, 0.002, 1'000'000, 0.0015);
  EXPECT_NEAR(l.bandwidth_mbps, 8e6 / 0.001 / 1e6, 1e-6);  // bytes over half a round trip
}

TEST(MakeNodeReport, OneMinuteValuesMemoryAndMeanLinkBandwidth) {
  Averages load{1.5, 1.0, 0.5, true}, util{0.75, 0.5, 0.25, true};
  proto::NodeMetricsReport r =
      MakeNodeReport(load, util, {4000, 1000}, 2400, {{1, 10, 100}, {2, 10, 300}, {3, 10, 0}});
  EXPECT_DOUBLE_EQ(r.cpu_load_1m, 1.5);
  EXPECT_DOUBLE_EQ(r.cpu_load_5m, 1.0);
  EXPECT_DOUBLE_EQ(r.cpu_load_15m, 0.5);
  EXPECT_DOUBLE_EQ(r.cpu_utilisation, 0.75);
  EXPECT_DOUBLE_EQ(r.total_memory_mb, 4000);
  EXPECT_DOUBLE_EQ(r.used_memory_mb, 3000);
  EXPECT_DOUBLE_EQ(r.clock_mhz, 2400);
  EXPECT_DOUBLE_EQ(r.bandwidth_mbps, 200);  // unmeasured links do not count
  sched::NodeMetrics m = ToNodeMetrics(r);
  EXPECT_DOUBLE_EQ(m.cpu_load_1m, 1.5);
  EXPECT_DOUBLE_EQ(m.used_memory_mb, 3000);
  EXPECT_DOUBLE_EQ(m.bandwidth_mbps, 200);
}

TEST(MergeLinks, OneEntryPerPairLatestWins) {
  LinkMap links;
  EXPECT_EQ(MergeLinks(links, 2, {{0, 50, 1000}, {1, 60, 900}, {2, 1, 1}}), 2);  // self ignored
  ASSERT_EQ(links.size(), 2u);
  ASSERT_TRUE(links.contains({0, 2}));
  EXPECT_EQ(links.at({0, 2}).a, 0);
  EXPECT_EQ(links.at({0, 2}).b, 2);
  MergeLinks(links, 0, {{2, 70, 10}});
  ASSERT_EQ(links.size(), 2u);
  EXPECT_DOUBLE_EQ(links.at({0, 2}).bandwidth_mbps, 10);
  EXPECT_DOUBLE_EQ(links.at({0, 2}).latency_us, 70);
  EXPECT_DOUBLE_EQ(links.at({1, 2}).latency_us, 60);
}

proto::MonitorReport Report(int node, std::string probe, double load,
                            std::vector<proto::LinkReport> links = {}) {
  proto::MonitorReport r;
  r.node = node;
  r.probe = std::move(probe);
  r.metrics.cpu_load_1m = load;
  r.links = std::move(links);
  return r;
}

TEST(MetricsBoard, ProbeDirectoryChangesOnlyOnNewAddresses) {
  MetricsBoard board;
  EXPECT_TRUE(board.Update(Report(0, "10.0.0.1:5000", 0)));
  EXPECT_FALSE(board.Update(Report(0, "10.0.0.1:5000", 1)));
  EXPECT_TRUE(board.Update(Report(1, "10.0.0.2:6000", 0)));
  EXPECT_TRUE(board.Update(Report(1, "10.0.0.2:6001", 0)));  // restarted elsewhere
  EXPECT_FALSE(board.Update(Report(2, "", 0)));              // no probe: nothing to tell
  proto::MonitorPeers peers = board.Peers();
  ASSERT_EQ(peers.probes.size(), 2u);
  EXPECT_EQ(board.ReportedCount(), 3);   // node 2 reported without a probe
  EXPECT_FALSE(board.TakeDirectory(4));  // node 3 not heard from yet
  EXPECT_TRUE(board.TakeDirectory(3));
  EXPECT_FALSE(board.TakeDirectory(3));  // sent, nothing new
  board.Update(Report(2, "10.0.0.3:7000", 0));
  EXPECT_TRUE(board.TakeDirectory(3));
  EXPECT_EQ(peers.probes[1].node, 1);
  EXPECT_EQ(peers.probes[1].address, "10.0.0.2:6001");
}

TEST(MetricsBoard, ForgetsALostNode) {
  MetricsBoard board;
  board.Update(Report(0, "10.0.0.1:1", 0, {{1, 20, 1000}, {2, 20, 900}}));
  board.Update(Report(1, "10.0.0.2:1", 0));
  board.Update(Report(2, "10.0.0.3:1", 0));
  EXPECT_TRUE(board.TakeDirectory(3));
  board.Forget(1);
  EXPECT_EQ(board.ReportedCount(), 2);
  EXPECT_TRUE(board.TakeDirectory(2));  // the others must stop probing node 1
  ASSERT_EQ(board.Peers().probes.size(), 2u);
  EXPECT_EQ(board.Peers().probes[1].node, 2);
  proto::AllocationStatus status;
  board.AddToStatus(status);
  ASSERT_EQ(status.links.size(), 1u);
  EXPECT_EQ(status.links[0].b, 2);
}

TEST(MetricsBoard, AppliesToSnapshotNodesAndDropsLinksOfAbsentNodes) {
  MetricsBoard board;
  board.Update(Report(0, "", 0.5, {{1, 20, 1000}, {5, 20, 1000}}));
  board.Update(Report(1, "", 2.0));
  sched::Snapshot s;
  sched::NodeTopology topo;
  topo.pus = {{0, 0}, {1, 0}};
  s.nodes = {sched::Node::Make(0, "a", topo), sched::Node::Make(1, "b", topo)};
  board.ApplyTo(s, false);  // per report: node metrics only
  EXPECT_DOUBLE_EQ(s.nodes[0].metrics.cpu_load_1m, 0.5);
  EXPECT_DOUBLE_EQ(s.nodes[1].metrics.cpu_load_1m, 2.0);
  EXPECT_TRUE(s.links.empty());
  board.ApplyTo(s, true);         // before a decision: the links too
  ASSERT_EQ(s.links.size(), 1u);  // node 5 is not in the snapshot
  EXPECT_EQ(s.links[0].b, 1);
  EXPECT_DOUBLE_EQ(s.links[0].bandwidth_mbps, 1000);
}

TEST(MetricsBoard, StatusGetsMetricsPerNodeAndLinks) {
  MetricsBoard board;
  board.Update(Report(0, "", 0.25, {{1, 30, 500}}));
  proto::AllocationStatus status;
  status.nodes = {{.id = 0}, {.id = 1}, {.id = 2, .state = "lost"}};
  board.AddToStatus(status);
  EXPECT_DOUBLE_EQ(status.nodes[0].metrics.cpu_load_1m, 0.25);
  EXPECT_DOUBLE_EQ(status.nodes[1].metrics.cpu_load_1m, 0);
  ASSERT_EQ(status.links.size(), 1u);
  EXPECT_EQ(status.links[0].a, 0);
  EXPECT_EQ(status.links[0].b, 1);
  EXPECT_DOUBLE_EQ(status.links[0].latency_us, 30);
  EXPECT_DOUBLE_EQ(status.links[0].bandwidth_mbps, 500);
}

}  // namespace
}  // namespace psched::daemon::monitor
