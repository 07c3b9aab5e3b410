#include "scheduler/allocators/auction/nodesets.hpp"

#include <algorithm>

namespace psched::sched::auction {

std::vector<Nodeset> MakeNodesets(std::span<const NodeFree> nodes) {
  int max_gpus = 0;
  for (const NodeFree& n : nodes)
    if (n.cores > 0) max_gpus = std::max(max_gpus, n.gpus);
  std::vector<Nodeset> out;
  const int count = static_cast<int>(nodes.size());
  for (int g = 0; g <= max_gpus; ++g) {
    int i = 0;
    while (i < count) {
      if (nodes[i].cores <= 0 || nodes[i].gpus < g) {
        ++i;
        continue;
      }
      Nodeset s{i, i, 0, g};
      while (i < count && nodes[i].cores > 0 && nodes[i].gpus >= g) {
        s.cores += nodes[i].cores;
        s.last = i++;
      }
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace psched::sched::auction
