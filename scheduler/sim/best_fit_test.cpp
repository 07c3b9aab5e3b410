// BestFitFits must answer exactly as PlaceBestFit: ScheduleQueue trusts its yes and no
// (a disagreement would change which jobs start, or start one on a guess).
#include <gtest/gtest.h>

#include <random>

#include "scheduler/sim/best_fit.hpp"

namespace psched::sched {
namespace {

TEST(BestFitFits, AgreesWithPlaceBestFitOnRandomNodesAndRequests) {
  std::mt19937_64 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int fits = 0, cases = 0;
  for (int round = 0; round < 400; ++round) {
    // 1..24 nodes of 1..2 packages x 1..4 cores x 1..2 PUs and 0..2 GPUs, partly used.
    const NodeTopology topo = NodeTopology::Uniform(pick(1, 2), pick(1, 4), pick(1, 2), pick(0, 2));
    std::vector<Node> nodes;
    const int n = pick(1, 24);
    for (int i = 0; i < n; ++i) {
      Node node = Node::Make(i, "n" + std::to_string(i), topo);
      for (int& u : node.uses) u = pick(0, 2) == 0 ? 1 : 0;
      node.gpus_used = pick(0, topo.gpus);
      nodes.push_back(std::move(node));
    }
    int free = 0;
    for (const Node& node : nodes) free += node.FreePus();
    for (int q = 0; q < 20; ++q) {
      SessionRequest r;
      r.id = q + 1;
      r.ranks = pick(0, 2 * free + 2);
      r.threads_per_rank = pick(0, 3) == 0 ? pick(1, 4) : 1;
      r.ppn = pick(0, 3) == 0 ? pick(1, 4) : 0;
      r.gpus_per_node = pick(0, 4) == 0 ? pick(1, 2) : 0;
      r.nodes = pick(0, 5) == 0 ? pick(1, n) : 0;
      r.contiguous = pick(0, 4) == 0;
      const bool placed = PlaceBestFit(nodes, r).has_value();
      EXPECT_EQ(BestFitFits(nodes, free, r), placed)
          << "round " << round << ": ranks " << r.ranks << " x" << r.threads_per_rank << " ppn "
          << r.ppn << " gpus " << r.gpus_per_node << " -N " << r.nodes << " contiguous "
          << r.contiguous << " on " << n << " nodes, " << free << " free slots";
      fits += placed;
      ++cases;
    }
  }
  // Both answers occur often enough for the agreement to mean something.
  EXPECT_GT(fits, cases / 5);
  EXPECT_LT(fits, cases * 4 / 5);
}

}  // namespace
}  // namespace psched::sched
