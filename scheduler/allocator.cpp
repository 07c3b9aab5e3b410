#include "scheduler/allocator.hpp"

namespace psched::sched {

std::optional<Placement> Allocator::PlaceOne(const Snapshot& snapshot,
                                             const SessionRequest& request) const {
  std::vector<Assignment> a = Allocate(snapshot, std::span<const SessionRequest>(&request, 1));
  if (a.empty()) return std::nullopt;
  return std::move(a.front().placement);
}

}  // namespace psched::sched
