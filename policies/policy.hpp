// Allocation-internal co-scheduling policies (wait, surpass, overbook, sidestep).
//
// A policy is pure: it takes the allocation's snapshot and an event (a session
// arrives, a session ended) and returns the plan the daemon (or the simulator)
// carries out. One interface, one file per policy, chosen by name in the registry
// (policies/policy_registry.hpp). Spread is an option of the request
// (SessionRequest::spread), not a policy.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"

namespace psched::policies {

enum class OverbookMode { kPinned, kFloat };

// Overbooking goes up to this many uses per slot (64, as many as any overbooked
// placement may stack): the default and the largest max_overbook_factor.
inline constexpr int kMaxOverbookLevel = 64;
inline constexpr double kDefaultMaxOverbookFactor = kMaxOverbookLevel;

struct PolicyOptions {
  OverbookMode overbook_mode = OverbookMode::kPinned;
  bool backfill = false;       // wait: a later, smaller session may start if it fits now
  double surpass_grace_s = 0;  // surpass: SIGTSTP first, SIGSTOP after this grace
  // overbook: a session wider than the allocation may need up to this many times its
  // slots (its ranks then share every slot, as mpirun --oversubscribe); 1 forbids it.
  double max_overbook_factor = kDefaultMaxOverbookFactor;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;

  // `request` arrives (it is not in `snapshot` yet). The plan spawns it, possibly
  // after suspending or re-pinning others, or enqueues it, or rejects it.
  virtual sched::Plan OnArrival(const sched::Snapshot& snapshot,
                                const sched::SessionRequest& request,
                                const sched::Allocator& allocator) const = 0;

  // `ended` has ended and is already removed from `snapshot` (its slots released).
  // The plan undoes what `ended` displaced (resume, restore pinning) and starts
  // queued sessions that now fit.
  virtual sched::Plan OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                            const sched::Allocator& allocator) const = 0;
};

}  // namespace psched::policies
