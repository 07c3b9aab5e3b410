#include "daemon/net/tree.hpp"

#include <algorithm>
#include <cstdint>

namespace psched::daemon {

std::vector<int> Tree::Children(int node) const {
  std::vector<int> out;
  for (int c = fanout * node + 1; c <= fanout * node + fanout && c < size; ++c) out.push_back(c);
  return out;
}

// Ids outside the tree are in no subtree. With fanout 1 the tree is a chain: node's
// subtree is every node from it on, and walking parents would take `node - root` steps.
bool Tree::InSubtree(int root, int node) const {
  if (root < 0 || root >= size || node < root || node >= size) return false;
  if (fanout == 1) return true;
  // The subtree's nodes at each depth below root are one run [first, last] of ids.
  int64_t first = root, last = root;
  while (first <= node) {
    if (node <= last) return true;
    first = first * fanout + 1;
    last = last * fanout + fanout;
  }
  return false;
}

int Tree::NextHop(int self, int target) const {
  if (target == self) return self;
  if (!InSubtree(self, target)) return Parent(self);
  if (fanout == 1) return self + 1;  // a chain: the one child
  int hop = target;
  while (Parent(hop) != self) hop = Parent(hop);
  return hop;
}

std::vector<int> Tree::Subtree(int root) const {
  std::vector<int> out;
  std::vector<int> todo{root};
  while (!todo.empty()) {
    int n = todo.back();
    todo.pop_back();
    out.push_back(n);
    for (int c : Children(n)) todo.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace psched::daemon
