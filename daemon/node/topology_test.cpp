#include "daemon/node/topology.hpp"

#include <gtest/gtest.h>

namespace psched::daemon {
namespace {

TEST(Topology, SyntheticWithPackSpelling) {
  auto t = LoadNodeTopology("pack:2 core:20 pu:1");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->NumPus(), 40);
  EXPECT_EQ(t->NumCores(), 40);
  EXPECT_EQ(t->NumPackages(), 2);
  EXPECT_EQ(t->pus[19].package, 0);
  EXPECT_EQ(t->pus[20].package, 1);
}

TEST(Topology, HyperthreadsShareACore) {
  auto t = LoadNodeTopology("package:1 core:2 pu:2");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->NumPus(), 4);
  EXPECT_EQ(t->pus[0].core, t->pus[1].core);
  EXPECT_NE(t->pus[1].core, t->pus[2].core);
}

TEST(Topology, BadSyntheticIsAClearError) {
  auto t = LoadNodeTopology("bogus:7");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("invalid synthetic topology"), std::string::npos);
  EXPECT_FALSE(LoadNodeTopology("/nonexistent/topo.xml"));
}

TEST(Topology, RealMachineAndModuloBinding) {
  auto real = RealPuOsIndices();
  ASSERT_TRUE(real);
  ASSERT_FALSE(real->empty());
  auto t = LoadNodeTopology("");
  ASSERT_TRUE(t);
  EXPECT_GE(t->NumPus(), 1);
  std::vector<int> fake = {0, 1, 2};
  cpu_set_t set = CpuSetFor({0, 4}, std::vector<int>{5, 7});  // 0 -> 5, 4 % 2 = 0 -> 5
  EXPECT_TRUE(CPU_ISSET(5, &set));
  EXPECT_FALSE(CPU_ISSET(7, &set));
  EXPECT_EQ(CPU_COUNT(&set), 1);
  set = CpuSetFor({1, 2}, fake);
  EXPECT_TRUE(CPU_ISSET(1, &set) && CPU_ISSET(2, &set));
}

// Emulated nodes take turns on the host's PUs: node n starts where node n-1 ended.
TEST(Topology, EmulatedNodesSpreadOverTheRealPus) {
  const std::vector<int> real = {4, 5, 6};
  EXPECT_EQ(RealPusOfEmulatedNode(real, 0, 1), real);
  EXPECT_EQ(RealPusOfEmulatedNode(real, 1, 1), (std::vector<int>{5, 6, 4}));
  EXPECT_EQ(RealPusOfEmulatedNode(real, 2, 1), (std::vector<int>{6, 4, 5}));
  EXPECT_EQ(RealPusOfEmulatedNode(real, 3, 1), real);
  // Two PUs per node: node 1's PU 0 follows node 0's PU 1 (real 5).
  EXPECT_EQ(RealPusOfEmulatedNode(real, 1, 2), (std::vector<int>{6, 4, 5}));
  // A node as large as the host (or a multiple) starts at the first real PU.
  EXPECT_EQ(RealPusOfEmulatedNode(real, 5, 3), real);
  EXPECT_EQ(RealPusOfEmulatedNode(real, 7, 6), real);
  // Large node and PU numbers do not overflow the offset.
  EXPECT_EQ(RealPusOfEmulatedNode(real, 1 << 30, 1 << 30), (std::vector<int>{5, 6, 4}));
  // One PU on two nodes of one PU each: node 1 binds to real PU 5, node 0 to 4.
  cpu_set_t node1 = CpuSetFor({0}, RealPusOfEmulatedNode({4, 5}, 1, 1));
  EXPECT_TRUE(CPU_ISSET(5, &node1));
  EXPECT_EQ(CPU_COUNT(&node1), 1);
}

}  // namespace
}  // namespace psched::daemon

namespace psched::daemon {
namespace {
TEST(Topology, PuLevelDefaultsToOnePerCore) {
  auto t = LoadNodeTopology("core:16");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->NumPus(), 16);
}
}  // namespace
}  // namespace psched::daemon
