#include "pmi/process_mapping.hpp"

#include <gtest/gtest.h>

namespace psched::pmi {
namespace {

TEST(ProcessMapping, BlockPlacementIsOneBlock) {
  EXPECT_EQ(ProcessMapping({0, 0, 1, 1}), "(vector,(0,2,2))");
  EXPECT_EQ(ProcessMapping({0, 0, 0, 0}), "(vector,(0,1,4))");
}

TEST(ProcessMapping, CyclicPlacementRepeatsItsRound) {
  // Flux RFC 13's example for 2 nodes x 2 ranks, cyclic.
  EXPECT_EQ(ProcessMapping({0, 1, 0, 1}), "(vector,(0,2,1),(0,2,1))");
}

TEST(ProcessMapping, UnevenNodesGetTheirOwnBlocks) {
  // 2x2 then 2x4 (RFC 13's third example), and a lone rank at the end.
  EXPECT_EQ(ProcessMapping({0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}), "(vector,(0,2,2),(2,2,4))");
  EXPECT_EQ(ProcessMapping({0, 0, 0, 1}), "(vector,(0,1,3),(1,1,1))");
}

TEST(ProcessMapping, ReadsBackToTheSameNodes) {
  const std::vector<std::vector<int>> cases = {{0},          {0, 1, 2, 3}, {0, 0, 1, 1},
                                               {0, 1, 0, 1}, {1, 1, 0, 0}, {0, 0, 0, 1, 2, 2, 1}};
  for (const auto& nodes : cases) {
    const std::string m = ProcessMapping(nodes);
    EXPECT_EQ(NodesOfMapping(m, static_cast<int>(nodes.size())), nodes) << m;
  }
  EXPECT_TRUE(NodesOfMapping("(vector,(0,2,2))", 3).empty());
  EXPECT_TRUE(NodesOfMapping("(vector,(0,2))", 2).empty());
  EXPECT_TRUE(NodesOfMapping("junk", 1).empty());
}

}  // namespace
}  // namespace psched::pmi
