// Rank placement onto slots: the building block of the compact and spread
// allocators and of the co-scheduling policies.
#pragma once

#include <optional>
#include <span>

#include "scheduler/model.hpp"

namespace psched::sched {

enum class Layout {
  kCompact,  // fill the first nodes before using the next (mpiexec's default)
  kSpread,   // round-robin ranks over as many nodes as possible
};

struct PlaceOptions {
  Layout layout = Layout::kCompact;
  // A slot is usable when its use count is at most this: 0 = free slots only. Ranks take
  // the least-used slots first: every usable slot of use 0 before one of use 1, and so on.
  // Overbooking raises it one level at a time until the session fits.
  int max_uses = 0;
  // Only these nodes may be used (empty = all), in this order of preference.
  std::vector<NodeId> candidate_nodes;
};

// Places every rank of `request` on `nodes`, or returns nullopt when it cannot.
// A rank's threads_per_rank slots are taken from one core if possible, else from
// one package, else from the node, in logical order: neighbours, as mpiexec users expect.
// Honours request.nodes (-N: exactly that many nodes, each taking a share of the ranks as
// even as their room allows), request.ppn (at most that many ranks per node),
// request.gpus_per_node, and request.contiguous:
// then every node used has a rank and their ids are neighbours (one block, as the papers'
// fragmentation counts it), whatever the layout.
std::optional<Placement> PlaceRanks(std::span<const Node> nodes, const SessionRequest& request,
                                    const PlaceOptions& options = {});

// Places on the least-used slots: tries max_uses 0, 1, 2, ... until it fits
// (bounded by `max_level`). Returns the placement and whether any slot is shared.
struct LeastUsedPlacement {
  Placement placement;
  bool overbooked = false;
};
std::optional<LeastUsedPlacement> PlaceOnLeastUsed(std::span<const Node> nodes,
                                                   const SessionRequest& request, Layout layout,
                                                   int max_level = 64);

// Slots a node can still give at use level `max_uses`.
int UsablePus(const Node& node, int max_uses);

}  // namespace psched::sched
