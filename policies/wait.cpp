#include "policies/wait.hpp"

#include "policies/queue.hpp"

namespace psched::policies {

sched::Plan WaitPolicy::OnArrival(const sched::Snapshot& snapshot,
                                  const sched::SessionRequest& request,
                                  const sched::Allocator& allocator) const {
  if (auto why = NeverFits(snapshot, request, allocator))
    return sched::Plan{{sched::RejectAction{request.id, *why}}};
  const int ahead = SessionsAhead(snapshot, request);
  sched::Snapshot view = ReservedView(snapshot);
  std::optional<sched::Placement> p = allocator.PlaceOne(view, request);
  if (p && ahead > 0) {
    // Sessions are ahead: with backfill it may pass them if it does not delay the head
    // (possibly elsewhere than `p`: off the head's reserved slots).
    p = options_.backfill
            ? BackfillArrival(view, snapshot.Find(QueueOrder(snapshot).front())->request, request,
                              allocator)
            : std::nullopt;
  }
  if (p) return sched::Plan{{sched::StartRanksAction{request.id, std::move(*p), false}}};
  return sched::Plan{{sched::EnqueueAction{request.id, WaitReason(view, request, ahead, name())}}};
}

sched::Plan WaitPolicy::OnEnd(const sched::Snapshot& snapshot, const sched::Session& ended,
                              const sched::Allocator& allocator) const {
  (void)ended;  // its slots are already released; the queue decides the rest
  return EndPlan(snapshot, allocator, options_.backfill);
}

}  // namespace psched::policies
