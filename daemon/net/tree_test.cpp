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

// Ids from the wire are checked where they are decoded; the tree arithmetic answers
// for any id too, at once. Walking parents from node 0x7e000200 with fanout 1 took
// ~2e9 steps and froze the leader's loop for 16 s (and found it in node 0's subtree).
TEST(Tree, IdsOutsideTheTreeAreInNoSubtree) {
  for (int fanout : {1, 2, 8}) {
    Tree t{.size = 4, .fanout = fanout};
    for (int id : {0x7e000200, 4, -1, -2147483647 - 1, 2147483647}) {
      EXPECT_FALSE(t.InSubtree(0, id)) << "fanout " << fanout << ", id " << id;
      EXPECT_FALSE(t.InSubtree(id, 0)) << "fanout " << fanout << ", root " << id;
    }
  }
}

// The closed form agrees with walking up the parents, for every pair of a few trees.
TEST(Tree, InSubtreeAgreesWithTheParentWalk) {
  for (int fanout : {1, 2, 3, 8}) {
    Tree t{.size = 70, .fanout = fanout};
    for (int root = 0; root < t.size; ++root) {
      for (int node = 0; node < t.size; ++node) {
        int up = node;
        while (up > root) up = t.Parent(up);
        ASSERT_EQ(t.InSubtree(root, node), up == root)
            << "fanout " << fanout << ": " << node << " under " << root;
        if (node != root) {
          int hop = t.NextHop(root, node);
          ASSERT_TRUE(hop == t.Parent(root) || t.Parent(hop) == root) << root << "->" << node;
        }
      }
    }
  }
}

}  // namespace
}  // namespace psched::daemon
