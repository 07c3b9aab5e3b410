#include "scheduler/placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace psched::sched {
namespace {

std::vector<Node> Nodes(int count, int packages, int cores, int pus, int gpus = 0) {
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i) {
    nodes.push_back(
        Node::Make(i, "n" + std::to_string(i), NodeTopology::Uniform(packages, cores, pus, gpus)));
  }
  return nodes;
}

SessionRequest Request(int ranks, int threads = 1) {
  SessionRequest r;
  r.id = 1;
  r.ranks = ranks;
  r.threads_per_rank = threads;
  return r;
}

TEST(Placement, CompactFillsFirstNodeFirst) {
  auto nodes = Nodes(4, 2, 20, 1);
  auto p = PlaceRanks(nodes, Request(32));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->ranks.size(), 32u);
  for (int r = 0; r < 32; ++r) {
    EXPECT_EQ(p->ranks[r].node, 0);
    EXPECT_EQ(p->ranks[r].pus, std::vector<int>{r});
  }
}

TEST(Placement, SpreadDistributesRoundRobin) {
  auto nodes = Nodes(4, 2, 20, 1);
  SessionRequest r = Request(32);
  auto p = PlaceRanks(nodes, r, PlaceOptions{Layout::kSpread, 0, {}});
  ASSERT_TRUE(p);
  std::vector<int> per_node(4);
  for (const RankSlots& rs : p->ranks) ++per_node[rs.node];
  EXPECT_EQ(per_node, (std::vector<int>{8, 8, 8, 8}));
  // Ranks are numbered in node blocks.
  EXPECT_EQ(p->ranks[7].node, 0);
  EXPECT_EQ(p->ranks[8].node, 1);
}

TEST(Placement, ThreadsStayOnOneCoreWhenTheyFit) {
  auto nodes = Nodes(1, 2, 4, 2);  // 2 packages x 4 cores x 2 PUs
  auto p = PlaceRanks(nodes, Request(4, 2));
  ASSERT_TRUE(p);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(p->ranks[r].pus, (std::vector<int>{2 * r, 2 * r + 1}));
}

TEST(Placement, ThreadsStayInOnePackage) {
  auto nodes = Nodes(1, 2, 20, 1);  // paper's node: 40 PUs
  // 8 ranks x 5 threads: each rank inside one package (20 PUs = 4 ranks).
  auto p = PlaceRanks(nodes, Request(8, 5));
  ASSERT_TRUE(p);
  for (const RankSlots& rs : p->ranks) {
    ASSERT_EQ(rs.pus.size(), 5u);
    EXPECT_EQ(rs.pus.front() / 20, rs.pus.back() / 20) << "rank " << rs.rank << " crosses packages";
  }
}

TEST(Placement, FailsWhenNotEnoughFreeSlots) {
  auto nodes = Nodes(2, 1, 4, 1);
  EXPECT_FALSE(PlaceRanks(nodes, Request(9)));
  nodes[0].uses[0] = 1;
  EXPECT_FALSE(PlaceRanks(nodes, Request(8)));
  EXPECT_TRUE(PlaceRanks(nodes, Request(7)));
}

TEST(Placement, ExactNodeCountSplitsEvenly) {
  auto nodes = Nodes(4, 1, 8, 1);
  SessionRequest r = Request(6);
  r.nodes = 3;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{0, 1, 2}));
}

TEST(Placement, PpnCapsRanksPerNode) {
  auto nodes = Nodes(4, 1, 8, 1);
  SessionRequest r = Request(6);
  r.ppn = 2;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{0, 1, 2}));
}

TEST(Placement, GpusPerNodeSkipsNodesWithoutThem) {
  auto nodes = Nodes(3, 1, 4, 1, 2);
  nodes[0].gpus_used = 2;
  SessionRequest r = Request(2);
  r.gpus_per_node = 1;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{1}));
}

TEST(Placement, LeastUsedOverbooksOnlyWhenFull) {
  auto nodes = Nodes(2, 1, 4, 1);
  auto free = PlaceOnLeastUsed(nodes, Request(4), Layout::kCompact);
  ASSERT_TRUE(free);
  EXPECT_FALSE(free->overbooked);
  for (Node& n : nodes) std::fill(n.uses.begin(), n.uses.end(), 1);
  nodes[1].uses[3] = 2;
  auto over = PlaceOnLeastUsed(nodes, Request(8), Layout::kCompact);
  ASSERT_TRUE(over);
  EXPECT_TRUE(over->overbooked);
}

TEST(Placement, CandidateNodesInTheirOrderWhateverTheIds) {
  // Ids in index order (the O(1) lookup), a subspan of them, and shuffled ids (the hash).
  auto nodes = Nodes(6, 1, 2, 1);
  PlaceOptions only{Layout::kCompact, 0, {4, 1}};
  auto p = PlaceRanks(nodes, Request(4), only);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ranks[0].node, 4);
  EXPECT_EQ(p->ranks[2].node, 1);
  p = PlaceRanks(std::span<const Node>(nodes).subspan(2, 3), Request(4),
                 PlaceOptions{Layout::kCompact, 0, {4, 1, 3}});
  ASSERT_TRUE(p);  // node 1 is not in the subspan
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{3, 4}));
  EXPECT_EQ(p->ranks[0].node, 4);
  std::swap(nodes[0], nodes[5]);
  std::swap(nodes[1], nodes[3]);
  p = PlaceRanks(nodes, Request(6), PlaceOptions{Layout::kCompact, 0, {5, 0, 3, 9}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ranks[0].node, 5);
  EXPECT_EQ(p->ranks[2].node, 0);
  EXPECT_EQ(p->ranks[4].node, 3);
  EXPECT_FALSE(PlaceRanks(nodes, Request(7), PlaceOptions{Layout::kCompact, 0, {5, 0, 3, 9}}));
}

TEST(Placement, ExactNodeCountOnUsedSlotsCountsEachSlotsRemainingLevels) {
  // -N 2 x 3 ranks at use level 1 on 2-slot nodes: node 0 has both slots used once
  // (room for 2 more), node 1 one used (3), node 2 none (4). Compact takes the earliest
  // nodes that hold it together: 0 and 2, node 0 its 2, node 2 the other 4.
  auto nodes = Nodes(3, 1, 2, 1);
  nodes[0].uses = {1, 1};
  nodes[1].uses = {1, 0};
  SessionRequest r = Request(6);
  r.nodes = 2;
  auto p = PlaceRanks(nodes, r, PlaceOptions{Layout::kCompact, 1, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{0, 2}));
  EXPECT_EQ(p->ranks[0].pus, std::vector<int>{0});
  EXPECT_EQ(p->ranks[1].pus, std::vector<int>{1});
  // Node 2: both free slots first, then each a second time.
  EXPECT_EQ(p->ranks[2].pus, std::vector<int>{0});
  EXPECT_EQ(p->ranks[3].pus, std::vector<int>{1});
  EXPECT_EQ(p->ranks[4].pus, std::vector<int>{0});
  EXPECT_EQ(p->ranks[5].pus, std::vector<int>{1});
}

int RanksOn(const Placement& p, NodeId node) {
  return static_cast<int>(std::count_if(p.ranks.begin(), p.ranks.end(),
                                        [&](const RankSlots& r) { return r.node == node; }));
}

// The per-node uses once `p` is applied to `nodes`.
std::vector<std::vector<int>> UsesAfter(std::vector<Node> nodes, const Placement& p) {
  for (const RankSlots& r : p.ranks)
    for (int pu : r.pus) ++nodes[static_cast<size_t>(r.node)].uses[static_cast<size_t>(pu)];
  std::vector<std::vector<int>> out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) out.push_back(n.uses);
  return out;
}

// Overbooking takes the least-used slots: the free ones before any used one, and a slot
// used once before one used twice (it stacked ranks on the first usable slot while
// others stayed idle: 2 2 2 0 here).
TEST(Placement, OverbookFillsTheLeastUsedSlotsFirst) {
  auto nodes = Nodes(1, 1, 4, 1);
  nodes[0].uses = {1, 1, 0, 0};
  auto p = PlaceOnLeastUsed(nodes, Request(4), Layout::kCompact);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->overbooked);
  EXPECT_EQ(UsesAfter(nodes, p->placement), (std::vector<std::vector<int>>{{2, 2, 1, 1}}));
  // A full node and a free one: the free slots go first, whatever the layout.
  auto two = Nodes(2, 1, 4, 1);
  two[0].uses = {1, 1, 1, 1};
  for (Layout layout : {Layout::kCompact, Layout::kSpread}) {
    auto q = PlaceOnLeastUsed(two, Request(6), layout);
    ASSERT_TRUE(q);
    // 4 + 6 uses on 8 slots: none left at 0, two at 2.
    int idle = 0, twice = 0;
    for (const auto& node : UsesAfter(two, q->placement)) {
      idle += static_cast<int>(std::count(node.begin(), node.end(), 0));
      twice += static_cast<int>(std::count(node.begin(), node.end(), 2));
    }
    EXPECT_EQ(idle, 0);
    EXPECT_EQ(twice, 2);
    // Ranks stay in node order (a block distribution).
    for (size_t i = 1; i < q->placement.ranks.size(); ++i) {
      EXPECT_LE(q->placement.ranks[i - 1].node, q->placement.ranks[i].node);
      EXPECT_EQ(q->placement.ranks[i].rank, static_cast<int>(i));
    }
  }
}

// -N with nodes of different room: the shares follow the room (2 + 3), instead of
// refusing because the first node cannot take the larger even share.
TEST(Placement, ExactNodeCountSharesFollowEachNodesRoom) {
  std::vector<Node> nodes;
  nodes.push_back(Node::Make(0, "n0", NodeTopology::Uniform(1, 2, 1)));
  nodes.push_back(Node::Make(1, "n1", NodeTopology::Uniform(1, 3, 1)));
  SessionRequest r = Request(5);
  r.nodes = 2;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(RanksOn(*p, 0), 2);
  EXPECT_EQ(RanksOn(*p, 1), 3);
  // Two 4-slot nodes, two slots of the first busy: 2 + 3.
  auto same = Nodes(2, 1, 4, 1);
  same[0].uses = {1, 1, 0, 0};
  p = PlaceRanks(same, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(RanksOn(*p, 0), 2);
  EXPECT_EQ(RanksOn(*p, 1), 3);
  // The first node can take its share only if the later ones can hold the rest.
  auto three = Nodes(3, 1, 4, 1);
  three[1].uses = {1, 1, 1, 0};  // room 1
  r.ranks = 8;
  p = PlaceRanks(three, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{0, 2}));
  // Nothing holds 9 on 2 nodes of 4.
  r.ranks = 9;
  EXPECT_FALSE(PlaceRanks(three, r));
}

// --ppn with -n is a maximum per node (srun's --ntasks-per-node with --ntasks): -n 4 -N 2
// --ppn 4 runs 2 + 2; -n 9 -N 2 --ppn 4 cannot run.
TEST(Placement, PpnWithExactNodeCountIsAMaximum) {
  auto nodes = Nodes(2, 1, 4, 1);
  SessionRequest r = Request(4);
  r.nodes = 2;
  r.ppn = 4;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(RanksOn(*p, 0), 2);
  EXPECT_EQ(RanksOn(*p, 1), 2);
  r.ranks = 9;
  EXPECT_FALSE(PlaceRanks(nodes, r));
  r.ranks = 8;
  ASSERT_TRUE(PlaceRanks(nodes, r));
}

// Nodes of 8 free slots, except the listed ones, which are full.
std::vector<Node> NodesWithFull(int count, std::initializer_list<int> full) {
  auto nodes = Nodes(count, 1, 8, 1);
  for (int i : full) nodes[i].uses.assign(8, 1);
  return nodes;
}

SessionRequest Contiguous(int ranks) {
  SessionRequest r = Request(ranks);
  r.contiguous = true;
  return r;
}

TEST(Placement, CompactContiguousTakesTheFirstRunThatHoldsIt) {
  auto nodes = NodesWithFull(5, {1});
  auto loose = PlaceRanks(nodes, Request(12));
  ASSERT_TRUE(loose);
  EXPECT_EQ(loose->Nodes(), (std::vector<NodeId>{0, 2}));  // what contiguity must prevent
  auto p = PlaceRanks(nodes, Contiguous(12));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{2, 3}));
  EXPECT_EQ(p->ranks.size(), 12u);
  // Fits in the first run: stays there, as compact does.
  p = PlaceRanks(nodes, Contiguous(8));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{0}));
}

TEST(Placement, SpreadContiguousUsesTheLongestRun) {
  auto nodes = NodesWithFull(7, {2});
  auto p = PlaceRanks(nodes, Contiguous(4), PlaceOptions{Layout::kSpread, 0, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{3, 4, 5, 6}));
  for (const RankSlots& rs : p->ranks) EXPECT_EQ(rs.pus.size(), 1u);
}

TEST(Placement, ExactNodeCountContiguousSlidesPastNodesWithoutRoom) {
  // -N 3, 4 per node: node 2 has only 2 free slots, so the window starts after it.
  auto nodes = NodesWithFull(6, {});
  for (int pu = 0; pu < 6; ++pu) nodes[2].uses[pu] = 1;
  SessionRequest r = Contiguous(12);
  r.nodes = 3;
  r.ppn = 4;
  auto p = PlaceRanks(nodes, r);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{3, 4, 5}));
  r.contiguous = false;
  EXPECT_EQ(PlaceRanks(nodes, r)->Nodes(), (std::vector<NodeId>{0, 1, 3}));
  // Spread with -N 3 picks the roomiest nodes, here 0, 1, 3; contiguous keeps them neighbours.
  r.contiguous = true;
  p = PlaceRanks(nodes, r, PlaceOptions{Layout::kSpread, 0, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{3, 4, 5}));
}

TEST(Placement, ContiguousFailsWhenNoRunHoldsIt) {
  auto nodes = NodesWithFull(4, {1, 3});
  EXPECT_TRUE(PlaceRanks(nodes, Request(12)));
  EXPECT_FALSE(PlaceRanks(nodes, Contiguous(12)));
  EXPECT_FALSE(PlaceRanks(nodes, Contiguous(12), PlaceOptions{Layout::kSpread, 0, {}}));
  // Candidate nodes in any order: contiguity is about ids, not the candidates' order.
  auto free = NodesWithFull(4, {});
  auto p = PlaceRanks(free, Contiguous(16), PlaceOptions{Layout::kCompact, 0, {3, 0, 2}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes(), (std::vector<NodeId>{2, 3}));
}

TEST(Placement, SpreadExactNodeCountFailsWhenFewerNodesHaveRoom) {
  // -N 3 spread over 3 nodes of which one is full: two nodes would hold the 4 ranks,
  // but the request asked for three (compact refuses it the same way).
  auto nodes = NodesWithFull(3, {2});
  SessionRequest r = Request(4);
  r.nodes = 3;
  EXPECT_FALSE(PlaceRanks(nodes, r));
  EXPECT_FALSE(PlaceRanks(nodes, r, PlaceOptions{Layout::kSpread, 0, {}}));
  // With room on all three, spread deals the ranks over exactly three.
  nodes = NodesWithFull(4, {});
  auto p = PlaceRanks(nodes, r, PlaceOptions{Layout::kSpread, 0, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes().size(), 3u);
  // Fewer ranks than nodes: one node per rank, as compact does.
  r.ranks = 2;
  p = PlaceRanks(nodes, r, PlaceOptions{Layout::kSpread, 0, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Nodes().size(), 2u);
}

TEST(Placement, ZeroRanksIsRejected) {
  EXPECT_FALSE(PlaceRanks(Nodes(1, 1, 4, 1), Request(0)));
}

}  // namespace
}  // namespace psched::sched
