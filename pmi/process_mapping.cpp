#include "pmi/process_mapping.hpp"

#include <cstdio>

namespace psched::pmi {

namespace {

struct Block {
  int start = 0;
  int nodes = 0;
  int ppn = 0;
};

}  // namespace

std::string ProcessMapping(const std::vector<int>& node_of_rank) {
  // Runs of consecutive ranks on one node, then runs of equal length on consecutive
  // nodes merged into one block: a block placement is one block, cyclic is one per round.
  std::vector<Block> blocks;
  for (size_t r = 0; r < node_of_rank.size();) {
    size_t end = r;
    while (end < node_of_rank.size() && node_of_rank[end] == node_of_rank[r]) ++end;
    const int node = node_of_rank[r];
    const int run = static_cast<int>(end - r);
    Block* last = blocks.empty() ? nullptr : &blocks.back();
    if (last != nullptr && last->ppn == run && last->start + last->nodes == node) {
      ++last->nodes;
    } else {
      blocks.push_back({node, 1, run});
    }
    r = end;
  }
  std::string out = "(vector";
  for (const Block& b : blocks) {
    out += ",(" + std::to_string(b.start) + "," + std::to_string(b.nodes) + "," +
           std::to_string(b.ppn) + ")";
  }
  return out + ")";
}

std::vector<int> NodesOfMapping(const std::string& mapping, int size) {
  std::vector<int> nodes;
  const std::string head = "(vector";
  if (!mapping.starts_with(head) || !mapping.ends_with(")")) return {};
  size_t i = head.size();
  while (i + 1 < mapping.size()) {
    int start = 0, count = 0, ppn = 0, used = 0;
    if (std::sscanf(mapping.c_str() + i, ",(%d,%d,%d)%n", &start, &count, &ppn, &used) != 3 ||
        used == 0 || start < 0 || count < 1 || ppn < 1)
      return {};
    i += static_cast<size_t>(used);
    for (int n = 0; n < count; ++n)
      for (int k = 0; k < ppn; ++k) nodes.push_back(start + n);
    if (static_cast<int>(nodes.size()) > size) return {};
  }
  if (i + 1 != mapping.size() || static_cast<int>(nodes.size()) != size) return {};
  return nodes;
}

}  // namespace psched::pmi
