#include "scheduler/allocators/rank_layout.hpp"

#include "scheduler/placement.hpp"

namespace psched::sched {

int RankCapacity(const Node& node, const SessionRequest& request) {
  return node.FreePus() / std::max(1, request.threads_per_rank);
}

std::optional<Placement> LayRanks(std::vector<Node>& nodes, const SessionRequest& request,
                                  const std::vector<NodeShare>& shares) {
  std::vector<Node> work = nodes;  // a failed call leaves `nodes` unchanged
  Placement out;
  out.gpus_per_node = request.gpus_per_node;
  int rank = 0;
  for (const NodeShare& share : shares) {
    if (share.ranks <= 0) continue;
    Node& node = work.at(share.node_index);
    if (node.FreeGpus() < request.gpus_per_node) return std::nullopt;
    SessionRequest part = request;
    part.ranks = share.ranks;
    part.nodes = 1;
    part.ppn = 0;
    part.spread = false;
    std::optional<Placement> p = PlaceRanks(std::span<const Node>(&node, 1), part);
    if (!p) return std::nullopt;
    for (RankSlots& r : p->ranks) {
      for (int pu : r.pus) ++node.uses.at(pu);
      r.rank = rank++;
      out.ranks.push_back(std::move(r));
    }
    node.gpus_used += request.gpus_per_node;
  }
  if (rank != request.ranks) return std::nullopt;
  nodes = std::move(work);
  return out;
}

}  // namespace psched::sched
