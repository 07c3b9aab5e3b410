#include "daemon/net/tree.hpp"

#include <algorithm>

namespace psched::daemon {

std::vector<int> Tree::Children(int node) const {
  std::vector<int> out;
  for (int c = fanout * node + 1; c <= fanout * node + fanout && c < size; ++c) out.push_back(c);
  return out;
}

bool Tree::InSubtree(int root, int node) const {
  while (node > root) node = Parent(node);
  return node == root;
}

int Tree::NextHop(int self, int target) const {
  if (target == self) return self;
  if (!InSubtree(self, target)) return Parent(self);
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
