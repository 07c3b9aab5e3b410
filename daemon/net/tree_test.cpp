#include "daemon/net/tree.hpp"

#include <gtest/gtest.h>

namespace psched::daemon {
namespace {

TEST(Tree, ParentsAndChildren) {
  Tree t{.size = 20, .fanout = 3};
  EXPECT_EQ(t.Parent(0), -1);
  EXPECT_EQ(t.Parent(1), 0);
  EXPECT_EQ(t.Parent(3), 0);
  EXPECT_EQ(t.Parent(4), 1);
  EXPECT_EQ(t.Children(0), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(t.Children(6), (std::vector<int>{19}));
  EXPECT_TRUE(t.Children(7).empty());
}

TEST(Tree, EveryNodeReachableFromEveryNode) {
  Tree t{.size = 64, .fanout = 4};
  for (int from = 0; from < t.size; ++from) {
    for (int to = 0; to < t.size; ++to) {
      int at = from, hops = 0;
      while (at != to && hops < 64) {
        at = t.NextHop(at, to);
        ++hops;
      }
      ASSERT_EQ(at, to) << from << "->" << to;
    }
  }
}

TEST(Tree, Subtree) {
  Tree t{.size = 10, .fanout = 2};
  EXPECT_EQ(t.Subtree(1), (std::vector<int>{1, 3, 4, 7, 8, 9}));
  EXPECT_EQ(t.Subtree(0).size(), 10u);
  EXPECT_TRUE(t.InSubtree(1, 9));
  EXPECT_FALSE(t.InSubtree(2, 9));
}

TEST(Tree, FanoutOneIsAChain) {
  Tree t{.size = 5, .fanout = 1};
  EXPECT_EQ(t.NextHop(0, 4), 1);
  EXPECT_EQ(t.NextHop(4, 0), 3);
}

}  // namespace
}  // namespace psched::daemon
