// The k-ary daemon tree rooted at the leader (node 0): pure index arithmetic.
// Node i's parent is (i-1)/k, its children k*i+1 .. k*i+k (those < size).
#pragma once

#include <vector>

namespace psched::daemon {

struct Tree {
  int size = 1;
  int fanout = 8;

  int Parent(int node) const { return node == 0 ? -1 : (node - 1) / fanout; }
  std::vector<int> Children(int node) const;
  // True when `node` lies in the subtree rooted at `root` (a node is in its own subtree);
  // false for ids outside the tree. O(depth) steps for fanout > 1, O(1) for a chain.
  bool InSubtree(int root, int node) const;
  // Where `self` sends a message for `target`: self, one of its children, or its parent.
  int NextHop(int self, int target) const;
  // Every node of the subtree rooted at `root`, ascending.
  std::vector<int> Subtree(int root) const;
};

}  // namespace psched::daemon
