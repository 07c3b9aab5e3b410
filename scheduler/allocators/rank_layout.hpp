// Turns a window allocator's decision ("session S gets k ranks on node n") into
// rank-to-slot placements, and keeps the working copy of the nodes up to date so
// the next session of the same decision sees what this one took.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "scheduler/model.hpp"

namespace psched::sched {

struct NodeShare {
  int node_index = 0;  // index into the node vector (not NodeId)
  int ranks = 0;
};

// Places request.ranks ranks as `shares` says (shares' ranks must sum to request.ranks),
// taking neighbouring free slots on each node like the compact layout does, and
// marks the slots and request.gpus_per_node GPUs used in `nodes`. Ranks are numbered
// node by node in the order of `shares`. nullopt (and `nodes` untouched) when a node
// lacks the slots or GPUs.
std::optional<Placement> LayRanks(std::vector<Node>& nodes, const SessionRequest& request,
                                  const std::vector<NodeShare>& shares);

// Rank capacity of a node for a session: free slots / threads_per_rank.
int RankCapacity(const Node& node, const SessionRequest& request);

}  // namespace psched::sched
