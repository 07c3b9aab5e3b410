// Tree routing (daemon/net/tree.hpp) with the ids a peer could send: a tree's size and
// fan-out, then any number of 32-bit ids, every one checked against the definition
// (node i's parent is (i-1)/k). A walk that grows with an id's value (one coll.contribute
// naming 0x7e000200 once froze a --fanout 1 leader for 16 s) shows as a libFuzzer
// timeout; a wrong answer aborts.
#include <cstdint>
#include <cstdlib>

#include "daemon/net/tree.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace psched::daemon {
namespace {

// By the definition: walk `node`'s parents up to `root`, ids in the tree only. Bounded:
// a chain (fan-out 1) is answered without the walk.
bool InSubtreeByParents(const Tree& t, int root, int node) {
  if (root < 0 || root >= t.size || node < 0 || node >= t.size) return false;
  if (t.fanout == 1) return node >= root;
  while (node > root) node = t.Parent(node);
  return node == root;
}

void Check(const Tree& t, int self, int id) {
  if (t.InSubtree(self, id) != InSubtreeByParents(t, self, id)) std::abort();
  if (self < 0 || self >= t.size) return;  // a daemon's own id is in the tree
  const int hop = t.NextHop(self, id);
  if (id == self) {
    if (hop != self) std::abort();
  } else if (InSubtreeByParents(t, self, id)) {
    // Down: a child of self whose subtree holds the target.
    if (hop < 0 || hop >= t.size || t.Parent(hop) != self || !InSubtreeByParents(t, hop, id))
      std::abort();
  } else if (hop != t.Parent(self)) {  // up, or nowhere from the root (-1)
    std::abort();
  }
}

}  // namespace
}  // namespace psched::daemon

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psched::fuzz::Input in(data, size);
  psched::daemon::Tree tree;
  tree.size =
      1 + static_cast<int>((static_cast<uint32_t>(in.Byte()) << 12 | in.Byte() << 4) % (1u << 20));
  tree.fanout = 1 + in.Byte() % 64;
  const int self = in.Int32() % tree.size;  // negative ids stay negative: checked too
  while (!in.Empty()) {
    const int id = in.Int32();
    psched::daemon::Check(tree, self < 0 ? -self : self, id);
    psched::daemon::Check(tree, id, self);  // ids from the wire as the subtree's root too
  }
  return 0;
}
