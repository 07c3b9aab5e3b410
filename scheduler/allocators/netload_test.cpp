#include "scheduler/allocators/netload.hpp"

#include <gtest/gtest.h>

#include "scheduler/allocator_registry.hpp"

namespace psched::sched::netload {
namespace {

// The slides' worked example: start node v4 (4 available cores), 16 processes,
// network weight 0.6, compute weight 0.4. Addition loads 47.8 (v1), 60.8 (v2),
// 68.6 (v3): v4 is picked, then v1 (10 processes), then v2 (18 >= 16).
TEST(Netload, SlidesExampleGrowsV4ThenV1ThenV2) {
  // Vertices 0..3 are v1..v4.
  Graph g(4);
  const double cl[] = {52, 47, 74, 38.3};
  const int pc[] = {6, 8, 5, 4};
  for (int v = 0; v < 4; ++v) {
    g.SetComputeLoad(v, cl[v]);
    g.SetProcessors(v, pc[v]);
  }
  g.SetNetworkLoad(3, 0, 45);
  g.SetNetworkLoad(3, 1, 70);
  g.SetNetworkLoad(3, 2, 65);
  const double alpha = 0.4, beta = 0.6;
  EXPECT_NEAR(alpha * 52 + beta * 45, 47.8, 1e-9);
  EXPECT_NEAR(alpha * 47 + beta * 70, 60.8, 1e-9);
  EXPECT_NEAR(alpha * 74 + beta * 65, 68.6, 1e-9);

  auto c = GrowCandidate(g, 3, 16, alpha, beta);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->vertices, (std::vector<int>{3, 0, 1}));
  EXPECT_EQ(c->allocated, 18);
  EXPECT_NEAR(c->compute_load, 38.3 + 52 + 47, 1e-9);
  // Demand 4 stops at v4 alone; demand 10 at v4, v1.
  EXPECT_EQ(GrowCandidate(g, 3, 4, alpha, beta)->vertices, (std::vector<int>{3}));
  EXPECT_EQ(GrowCandidate(g, 3, 10, alpha, beta)->allocated, 10);
  // More than the whole graph: no candidate.
  EXPECT_FALSE(GrowCandidate(g, 3, 24, alpha, beta));
}

// -N 2 for 8 processes: from v0 (4 processors) the cheapest neighbour is v1, which has
// only one; the sub-graph takes v2 (4) instead of failing (every start failed, so the
// session waited although v0 + v2 hold it).
TEST(Netload, ExactVertexCountSkipsAVertexWithoutRoomForTheRest) {
  Graph g(3);
  const int pc[] = {4, 1, 4};
  for (int v = 0; v < 3; ++v) g.SetProcessors(v, pc[v]);
  g.SetComputeLoad(0, 50);
  g.SetComputeLoad(1, 10);  // the least loaded: first in the addition order
  g.SetComputeLoad(2, 60);
  auto c = GrowCandidate(g, 0, 8, 0.5, 0.5, 2);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->vertices, (std::vector<int>{0, 2}));
  // The paper's growth where the demand is met anyway: v0, then v1.
  EXPECT_EQ(GrowCandidate(g, 0, 5, 0.5, 0.5, 2)->vertices, (std::vector<int>{0, 1}));
  auto best = ChooseSubgraph(g, 8, 0.5, 0.5, 2);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->allocated, 8);
  EXPECT_FALSE(ChooseSubgraph(g, 9, 0.5, 0.5, 2));
}

// A contiguous session grows along the following vertices only: from v4 (the last) it
// cannot grow at all; from v2 it takes v2, v3, v4 even though v1's addition load is lower.
TEST(Netload, ContiguousGrowsAlongTheFollowingVertices) {
  Graph g(5);
  const int pc[] = {6, 8, 5, 0, 4};  // vertex 3 has nothing free: it splits the runs
  for (int v = 0; v < 5; ++v) g.SetProcessors(v, pc[v]);
  g.SetComputeLoad(2, 90);
  EXPECT_EQ(GrowCandidate(g, 1, 10, 0.5, 0.5)->vertices, (std::vector<int>{1, 0}));
  EXPECT_EQ(GrowCandidate(g, 1, 10, 0.5, 0.5, 0, true)->vertices, (std::vector<int>{1, 2}));
  EXPECT_FALSE(GrowCandidate(g, 1, 14, 0.5, 0.5, 0, true));  // 8 + 5, then vertex 3
  EXPECT_FALSE(GrowCandidate(g, 4, 5, 0.5, 0.5, 0, true));
  // Among the runs {0, 1, 2} and {4}, 14 processes fit only from vertex 0.
  auto c = ChooseSubgraph(g, 14, 0.5, 0.5, 0, true);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->vertices, (std::vector<int>{0, 1}));
  // -N 3 (max_vertices): exactly three neighbours.
  c = ChooseSubgraph(g, 3, 0.5, 0.5, 3, true);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->vertices, (std::vector<int>{0, 1, 2}));
}

TEST(Netload, PaperDefaults) {
  NetloadConfig c;
  EXPECT_DOUBLE_EQ(c.w_cpu_load, 0.3);
  EXPECT_DOUBLE_EQ(c.w_cpu_utilisation, 0.2);
  EXPECT_DOUBLE_EQ(c.w_node_bandwidth, 0.2);
  EXPECT_DOUBLE_EQ(c.w_used_memory, 0.1);
  EXPECT_DOUBLE_EQ(c.w_logical_cores, 0.1);
  EXPECT_DOUBLE_EQ(c.w_clock_speed, 0.05);
  EXPECT_DOUBLE_EQ(c.w_total_memory, 0.05);
  EXPECT_DOUBLE_EQ(c.w_latency, 0.25);
  EXPECT_DOUBLE_EQ(c.w_bandwidth, 0.75);
  EXPECT_DOUBLE_EQ(c.alpha, 0.3);
  EXPECT_DOUBLE_EQ(c.beta, 0.7);
}

TEST(Netload, AvailableProcessorsFormula) {
  EXPECT_EQ(AvailableProcessors(8, 0), 8);
  EXPECT_EQ(AvailableProcessors(8, 2.5), 5);  // 8 - 2.5 = 5.5 -> 5 whole processors
  EXPECT_EQ(AvailableProcessors(8, 10), 6);   // 8 - (10 % 8)
  EXPECT_EQ(AvailableProcessors(0, 1), 0);
}

TEST(Netload, ComputeLoadWeightsAndDirections) {
  std::vector<Node> nodes;
  nodes.reserve(2);
  for (int i = 0; i < 2; ++i) nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 4, 1)));
  nodes[0].metrics.cpu_load_1m = 4;        // busiest: full CPU-load weight
  nodes[1].metrics.bandwidth_mbps = 1000;  // fastest: no bandwidth load
  nodes[0].metrics.clock_mhz = 3000;
  NetloadConfig w;
  auto cl = ComputeLoads(nodes, w);
  // Node 0: CPU load 0.3 + bandwidth (1 - 0) 0.2 + cores (1 - 1) 0 + clock (1 - 1) 0
  //         + total memory (unmeasured: 1 - 0) 0.05.
  EXPECT_NEAR(cl[0], 0.3 + 0.2 + 0.05, 1e-12);
  // Node 1: no CPU load, full bandwidth, slowest clock 0.05, memory 0.05.
  EXPECT_NEAR(cl[1], 0.05 + 0.05, 1e-12);
  // All metrics missing: every node alike, no crash.
  std::vector<Node> blank = {nodes[0], nodes[1]};
  blank[0].metrics = {};
  blank[1].metrics = {};
  auto z = ComputeLoads(blank, w);
  EXPECT_DOUBLE_EQ(z[0], z[1]);
}

Snapshot FourNodes() {
  Snapshot s;
  for (int i = 0; i < 4; ++i)
    s.nodes.push_back(Node::Make(i, "n" + std::to_string(i), NodeTopology::Uniform(1, 4, 1)));
  return s;
}

// Two groups joined by slow links: {0,1} loaded, {2,3} idle and fast between them.
// netload picks the idle, fast pair; compact would take nodes 0 and 1.
TEST(Netload, ChoosesLowLoadHighBandwidthGroup) {
  Snapshot s = FourNodes();
  s.nodes[0].metrics.cpu_load_1m = 3;
  s.nodes[1].metrics.cpu_load_1m = 3;
  s.nodes[0].metrics.cpu_utilisation = 0.75;
  s.nodes[1].metrics.cpu_utilisation = 0.75;
  auto link = [&](int a, int b, double lat, double bw) {
    s.links.push_back(LinkMetrics{a, b, lat, bw});
  };
  link(0, 1, 50, 1000);
  link(2, 3, 50, 1000);
  for (int a : {0, 1})
    for (int b : {2, 3}) link(a, b, 500, 10);
  SessionRequest r;
  r.id = 7;
  r.ranks = 8;
  NetloadAllocator alloc{NetloadConfig{}};
  auto p = alloc.PlaceOne(s, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{2, 3}));
  EXPECT_EQ(p->ranks.size(), 8u);
}

// High load shrinks what a node offers (pc), so more nodes are needed.
TEST(Netload, LoadReducesAvailableProcessors) {
  Snapshot s = FourNodes();
  for (auto& n : s.nodes) n.metrics.cpu_load_1m = 2;  // pc = 4 - 2 = 2 on every node
  SessionRequest r;
  r.ranks = 6;
  auto p = NetloadAllocator{NetloadConfig{}}.PlaceOne(s, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes().size(), 3u);
  r.ranks = 9;  // 4 nodes x 2 = 8 < 9
  EXPECT_FALSE(NetloadAllocator{NetloadConfig{}}.PlaceOne(s, r));
}

TEST(Netload, WindowStopsAtFirstMisfitAndNeverDoubleBooks) {
  Snapshot s = FourNodes();
  std::vector<SessionRequest> window(3);
  window[0].id = 1;
  window[0].ranks = 10;
  window[1].id = 2;
  window[1].ranks = 6;
  window[2].id = 3;
  window[2].ranks = 1;
  auto a = NetloadAllocator{NetloadConfig{}}.Allocate(s, window);
  ASSERT_EQ(a.size(), 2u);  // 10 + 6 = 16 = all slots; the third does not fit
  std::vector<std::vector<int>> used(4, std::vector<int>(4, 0));
  for (const auto& as : a) {
    for (const auto& r : as.placement.ranks)
      for (int pu : r.pus) EXPECT_EQ(++used[r.node][pu], 1);
  }
}

TEST(Netload, RegistryBuildsIt) {
  auto a = MakeAllocator("netload");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)->name(), "netload");
}

}  // namespace
}  // namespace psched::sched::netload
