// Nodesets of AUCSCHED (Soner & Özturan, section 4): over the 1-D array of nodes,
// for each GPU level g, the maximal runs of consecutive nodes with free cores and at
// least g free GPUs, as 4-tuples (first, last, cores, g).
#pragma once

#include <span>
#include <vector>

namespace psched::sched::auction {

struct NodeFree {
  int cores = 0;  // A_n^cpu: free slots
  int gpus = 0;   // A_n^gpu
};

struct Nodeset {
  int first = 0;  // index of the first node (0-based)
  int last = 0;   // index of the last node, inclusive
  int cores = 0;  // sum of free cores over first..last
  int gpus = 0;   // g: every node has at least this many free GPUs
  bool operator==(const Nodeset&) const = default;
};

// Every level g = 0 .. max free GPUs of any node, in order of g then position:
//   A_n^cpu > 0 and A_n^gpu >= g for all n in first..last, maximal, cores = sum A_n^cpu.
std::vector<Nodeset> MakeNodesets(std::span<const NodeFree> nodes);

}  // namespace psched::sched::auction
