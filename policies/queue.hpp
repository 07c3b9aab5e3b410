// What every policy shares: the wait queue, the view new placements see, the
// reasons shown to users, and starting queued sessions once slots free up.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policies/plan_builder.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/model.hpp"
#include "scheduler/placement.hpp"

namespace psched::policies {

// Sessions that occupy slots now (running, overbooked, sidestepped).
bool HoldsSlots(const sched::Session& session);

// How to lay out ranks on slots that are not free (overbook, sidestep): spread when
// the session asked for it (--spread) or the admin's allocator is "spread".
sched::Layout LayoutFor(const sched::SessionRequest& request, const sched::Allocator& allocator);

// Queued sessions in the order they start: higher priority first, then arrival order.
std::vector<sched::SessionId> QueueOrder(const sched::Snapshot& snapshot);

// Queued sessions that go before `request` (a new arrival: ties go to those already queued).
int SessionsAhead(const sched::Snapshot& snapshot, const sched::SessionRequest& request);

// The snapshot as a new placement should see it: the slots of suspended sessions
// count as taken, so that nobody settles where they must resume. Sessions
// suspended by `except_displacer` are not reserved (they make room for it).
sched::Snapshot ReservedView(const sched::Snapshot& snapshot,
                             sched::SessionId except_displacer = sched::kNoSession);

// Why `request` can never run in this allocation, even if it were empty; nullopt if it can.
std::optional<std::string> NeverFits(const sched::Snapshot& snapshot,
                                     const sched::SessionRequest& request,
                                     const sched::Allocator& allocator);

// "waits for 32 slots: 8 free, 2 sessions ahead, policy wait"
std::string WaitReason(const sched::Snapshot& snapshot, const sched::SessionRequest& request,
                       int ahead, std::string_view policy);

// EASY backfill's reservation for the head of the queue: when the head is expected
// to fit (from the runtime estimates of the sessions holding slots) and the
// allocation as it will be then.
class HeadReservation {
 public:
  // nullopt when none can be computed: a session holding slots has no estimate,
  // a session is suspended (its return is unknown), or the head never fits.
  static std::optional<HeadReservation> Make(const sched::Snapshot& view,
                                             const sched::SessionRequest& head,
                                             const sched::Allocator& allocator);

  // May `candidate`, which fits now at `placement`, start without delaying the head?
  // Yes if it ends (by its estimate) before the reservation, or the head still fits
  // beside it then; in that case it is counted at the reservation from now on.
  bool Admit(const sched::SessionRequest& candidate, const sched::Placement& placement,
             const sched::Allocator& allocator);

  double time() const { return time_; }

 private:
  sched::SessionRequest head_;
  double now_ = 0;
  double time_ = 0;
  sched::Snapshot shadow_;
};

// One-off form of the above, for an arrival.
bool DoesNotDelayHead(const sched::Snapshot& view, const sched::SessionRequest& head,
                      const sched::SessionRequest& candidate, const sched::Placement& placement,
                      const sched::Allocator& allocator);

// Starts queued sessions that fit now, in queue order, stopping at the first that
// does not fit; with backfill, later ones that fit and do not delay it start too.
void StartQueued(PlanBuilder& builder, const sched::Allocator& allocator, bool backfill);

// The end of a session, for every policy: restore the pinning of sidestepped
// sessions, resume suspended sessions whose displacer is gone (when their slots
// are free), then start queued sessions.
sched::Plan EndPlan(const sched::Snapshot& snapshot, const sched::Allocator& allocator,
                    bool backfill);

}  // namespace psched::policies
