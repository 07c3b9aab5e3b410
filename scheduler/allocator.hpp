// Allocators decide where sessions go. One interface, one file per allocator,
// chosen by name through the registry (scheduler/allocator_registry.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scheduler/model.hpp"
#include "scheduler/placement.hpp"

namespace psched::sched {

struct Assignment {
  SessionId session = kNoSession;
  Placement placement;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string_view name() const = 0;

  // A window allocator (auction, ipwindow) decides over the whole queue at once, so
  // the leader's round hands it every waiting session; the others are offered the
  // queue in order. What a caller asks instead of comparing names.
  virtual bool decides_window() const { return false; }
  // How a session's ranks are laid out when the policies place them on slots the
  // allocator did not choose (overbook, sidestep): spread spreads, the rest pack.
  virtual Layout layout() const { return Layout::kCompact; }

  // Chooses placements on the free slots (uses == 0) of `snapshot` for as many of
  // `window` as it can, the window given in priority order. Single-session
  // allocators (compact, spread, netload) place in order and stop at the first that
  // does not fit, so the head is never overtaken; window allocators (auction,
  // ipwindow) decide over the whole window at once. No side effects beyond the
  // allocator itself: window allocators adapt their bid cap or window to solver time-outs
  // (and count rounds), so with a wall-clock solver limit two calls may differ.
  virtual std::vector<Assignment> Allocate(const Snapshot& snapshot,
                                           std::span<const SessionRequest> window) const = 0;

  // Convenience for one session: its placement, or nullopt when it does not fit now.
  std::optional<Placement> PlaceOne(const Snapshot& snapshot, const SessionRequest& request) const;
};

}  // namespace psched::sched
