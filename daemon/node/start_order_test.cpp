#include "daemon/node/start_order.hpp"

#include <gtest/gtest.h>

namespace psched::daemon {
namespace {

cpu_set_t Cpus(std::initializer_list<int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return set;
}

TEST(RankStartOrder, RanksOnTheDaemonsCpuStartLastEachPartInItsOrder) {
  const std::vector<cpu_set_t> cpus = {Cpus({0}), Cpus({1}), Cpus({0, 2}), Cpus({3}), Cpus({})};
  EXPECT_EQ(RankStartOrder(cpus, 0), (std::vector<size_t>{1, 3, 4, 0, 2}));
  EXPECT_EQ(RankStartOrder(cpus, 3), (std::vector<size_t>{0, 1, 2, 4, 3}));
}

TEST(RankStartOrder, AnUnknownOrUnusedCpuKeepsRankOrder) {
  const std::vector<cpu_set_t> cpus = {Cpus({0}), Cpus({1})};
  EXPECT_EQ(RankStartOrder(cpus, -1), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(RankStartOrder(cpus, 7), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(RankStartOrder(cpus, CPU_SETSIZE), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(RankStartOrder({}, 0).empty());
}

}  // namespace
}  // namespace psched::daemon
