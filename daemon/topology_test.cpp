#include "daemon/topology.hpp"

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
