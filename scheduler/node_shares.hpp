// How a -N request's ranks are shared among its nodes under the compact layout, from how
// many ranks each node can take: placement.cpp's PlaceRanks (on nodes) and psched-sim's
// slot counts (scheduler/sim/slot_map.cpp) both ask it, so that they decide alike.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "scheduler/model.hpp"

namespace psched::sched {

// The nodes of a -N request under compact, and each one's share of the ranks, given the
// ranks each of `n` nodes (in order) can take, room_of(i) (--ppn applied): the earliest
// nodes that can hold the session together (a node is skipped only when the ones after it
// are needed to hold it), with the ranks as even as their room allows, the first nodes
// taking the extra ones. --ppn caps a node's share (with -n it is a maximum, as srun's
// --ntasks-per-node). (node index, share) pairs; empty when no N nodes can hold it.
std::vector<std::pair<size_t, int>> NodesAndShares(size_t n,
                                                   const std::function<int(size_t)>& room_of,
                                                   const SessionRequest& request);

}  // namespace psched::sched
