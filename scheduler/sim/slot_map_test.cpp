// The simulator's slot counts must decide as the nodes do: best fit on a SlotMap takes
// the very nodes and PUs that sched's PlaceBestFit takes on the same nodes (the golden
// CSVs rest on it), and its uses count up and down as a node's do.
#include <gtest/gtest.h>

#include <random>

#include "scheduler/sim/best_fit.hpp"
#include "scheduler/sim/slot_map.hpp"
#include "scheduler/sim/workload.hpp"

namespace psched::sim {
namespace {

using sched::SessionRequest;

// Where a placement is, as a SlotMap says it: PUs per node.
SlotRuns RunsOf(const sched::Placement& p) {
  std::vector<std::pair<int, uint64_t>> pus;
  for (const sched::RankSlots& r : p.ranks) {
    uint64_t mask = 0;
    for (int pu : r.pus) mask |= uint64_t{1} << pu;
    pus.emplace_back(r.node, mask);
  }
  std::sort(pus.begin(), pus.end());
  SlotRuns out;
  out.gpus_per_node = p.gpus_per_node;
  for (size_t k = 0; k < pus.size();) {
    uint64_t mask = 0;
    const int node = pus[k].first;
    for (; k < pus.size() && pus[k].first == node; ++k) mask |= pus[k].second;
    out.Append(node, mask);
  }
  return out;
}

TEST(SlotMapTest, BestFitTakesTheNodesAndPusOfPlaceBestFit) {
  std::mt19937_64 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int placed = 0;
  for (int round = 0; round < 300; ++round) {
    // Nodes of 1 core (a bit each in the use planes), up to 12 (several per word), and 64
    // (a word each).
    const int cores = pick(0, 3) == 0 ? 1 : (pick(0, 5) == 0 ? 64 : pick(1, 12));
    const Machine machine{pick(1, 24), cores, pick(0, 2)};
    std::vector<sched::Node> nodes = MakeNodes(machine);
    SlotMap map(machine.nodes, machine.cores_per_node, machine.gpus_per_node);
    int free = 0;
    for (sched::Node& node : nodes) {
      SlotRuns taken;
      uint64_t mask = 0;
      for (size_t pu = 0; pu < node.uses.size(); ++pu) {
        if (pick(0, 2) == 0) {
          node.uses[pu] = 1;
          mask |= uint64_t{1} << pu;
        }
      }
      node.gpus_used = pick(0, machine.gpus_per_node);
      taken.gpus_per_node = node.gpus_used;
      if (mask != 0 || node.gpus_used > 0) taken.Append(node.id, mask);
      map.Add(taken, +1);
      free += node.FreePus();
    }
    ASSERT_EQ(map.FreeSlots(), free);
    for (int q = 0; q < 25; ++q) {
      SessionRequest r;
      r.id = q + 1;
      r.ranks = pick(0, 2 * free + 2);
      r.threads_per_rank = pick(0, 3) == 0 ? pick(1, 4) : 1;
      r.ppn = pick(0, 3) == 0 ? pick(1, 4) : 0;
      r.gpus_per_node = pick(0, 4) == 0 ? pick(1, 2) : 0;
      r.nodes = pick(0, 4) == 0 ? pick(1, machine.nodes) : 0;
      r.contiguous = pick(0, 3) == 0;
      const std::optional<sched::Placement> want = sched::PlaceBestFit(nodes, r);
      const std::optional<SlotRuns> got = sched::PlaceBestFit(map, r);
      const std::string what = "round " + std::to_string(round) + ": ranks " +
                               std::to_string(r.ranks) + " x" + std::to_string(r.threads_per_rank) +
                               " ppn " + std::to_string(r.ppn) + " gpus " +
                               std::to_string(r.gpus_per_node) + " -N " + std::to_string(r.nodes) +
                               " contiguous " + std::to_string(r.contiguous);
      ASSERT_EQ(want.has_value(), got.has_value()) << what;
      EXPECT_EQ(sched::BestFitFits(map, free, r), got.has_value()) << what;
      if (!want) continue;
      EXPECT_EQ(RunsOf(*want), *got) << what;
      ++placed;
    }
  }
  // Placements of every kind occur often enough for the agreement to mean something.
  EXPECT_GT(placed, 1000);
}

TEST(SlotMapTest, UsesCountUpAndDownAsANodesDo) {
  SlotMap map(4, 8, 2);
  SlotRuns job;  // PUs 0..3 of nodes 0 and 1, 1 GPU each
  job.gpus_per_node = 1;
  job.Append(0, 0x0f);
  job.Append(1, 0x0f);
  EXPECT_EQ(job.runs.size(), 1u);
  EXPECT_EQ(job.slots, 8);
  EXPECT_EQ(map.Add(job, +1), -8);
  EXPECT_EQ(map.FreeSlots(), 24);
  EXPECT_EQ(map.FreeGpus(1), 1);
  SlotRuns reserved;  // laid over the job's PUs 2..3 and four free ones on node 1
  reserved.Append(1, 0x3c);
  EXPECT_EQ(map.FreeUnder(reserved), 2);
  EXPECT_EQ(map.Add(reserved, +1), -2);
  EXPECT_EQ(map.FreePus(1), 0xc0u);
  EXPECT_EQ(map.Add(job, -1), 6);  // PUs 2, 3 of node 1 stay taken by the reservation
  EXPECT_EQ(map.FreePus(1), 0xc3u);
  EXPECT_EQ(map.Add(reserved, -1), 4);
  EXPECT_EQ(map.FreeSlots(), 32);
  EXPECT_EQ(map.FreeGpus(0), 2);

  // One-core nodes, 64 to a word: runs across words.
  SlotMap single(200, 1, 0);
  SlotRuns wide;
  wide.Append(10, 150, 1);
  EXPECT_EQ(single.Add(wide, +1), -140);
  SlotRuns over;
  over.Append(140, 200, 1);
  EXPECT_EQ(single.FreeUnder(over), 50);
  EXPECT_EQ(single.Add(over, +1), -50);
  EXPECT_EQ(single.FreeSlots(), 10);
  EXPECT_EQ(single.Add(wide, -1), 130);
  EXPECT_EQ(single.FreeCount(145), 0);
  EXPECT_EQ(single.FreeCount(139), 1);
  EXPECT_EQ(single.Add(over, -1), 60);
  EXPECT_EQ(single.FreeSlots(), 200);
}

// The free runs are read a 64-node word at a time: runs that cross words, fill them, or
// end at the last node must come out as a walk over the nodes finds them.
TEST(SlotMapTest, FreeRunsAreTheRunsOfNodesWithAFreePu) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 300)(rng);
    SlotMap map(n, 1 + round % 3, 0);
    SlotRuns taken;
    for (int i = 0; i < n; ++i) {
      // Long stretches of used and free nodes, and single ones.
      if (std::uniform_int_distribution<int>(0, round % 2 == 0 ? 1 : 40)(rng) == 0)
        taken.Append(i, 1 + round % 3 == 1 ? 1 : 0x3);
    }
    map.Add(taken, +1);
    std::vector<std::pair<int, int>> want, got;
    for (int i = 0; i < n; ++i) {
      if (map.FreeCount(i) == 0) continue;
      if (want.empty() || want.back().second != i) want.emplace_back(i, i);
      want.back().second = i + 1;
    }
    map.ForEachFreeRun([&](int begin, int end) { got.emplace_back(begin, end); });
    EXPECT_EQ(got, want) << n << " nodes, round " << round;
  }
}

}  // namespace
}  // namespace psched::sim
