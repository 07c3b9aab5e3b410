#include "scheduler/leader/round.hpp"

#include "policies/queue.hpp"

namespace psched::sched::leader {
namespace {

// Suspended or sidestepped by a session that is no longer there (its end plan
// failed, or found no room yet): a round has something to undo.
bool LeftDisplaced(const sched::Snapshot& snapshot) {
  for (const sched::Session& s : snapshot.sessions) {
    if (s.state == sched::SessionState::kSidestepped) return true;
    if (s.state == sched::SessionState::kSuspended && s.displaced_by != sched::kNoSession &&
        snapshot.Find(s.displaced_by) == nullptr)
      return true;
  }
  return false;
}

Result<sched::Allocator*> HeadAllocator(const sched::Snapshot& snapshot,
                                        const std::vector<sched::SessionId>& queue,
                                        AllocatorCache& allocators,
                                        const std::string& default_allocator) {
  const sched::Session* head = queue.empty() ? nullptr : snapshot.Find(queue.front());
  return allocators.Get(head && !head->request.allocator.empty() ? head->request.allocator
                                                                 : default_allocator);
}

void AddWindow(const sched::Snapshot& snapshot, const std::vector<sched::SessionId>& queue,
               const sched::Allocator& allocator, sched::Plan& plan) {
  std::vector<sched::SessionRequest> window;
  for (sched::SessionId id : queue)
    if (const sched::Session* s = snapshot.Find(id)) window.push_back(s->request);
  if (window.empty()) return;
  for (sched::Assignment& a : allocator.Allocate(snapshot, window)) {
    sched::StartRanksAction start;
    start.session = a.session;
    start.placement = std::move(a.placement);
    plan.actions.push_back(std::move(start));
  }
}

}  // namespace

Result<sched::Plan> RoundPlan(const sched::Snapshot& snapshot, AllocatorCache& allocators,
                              const std::string& default_allocator, bool backfill) {
  std::vector<sched::SessionId> queue = policies::QueueOrder(snapshot);
  if (queue.empty() && !LeftDisplaced(snapshot)) return sched::Plan{};
  auto allocator = HeadAllocator(snapshot, queue, allocators, default_allocator);
  if (!allocator) return Fail(allocator.error());
  if (!(*allocator)->decides_window()) return policies::EndPlan(snapshot, **allocator, backfill);
  // The window decides over the allocation as it is once the undoing is done.
  sched::Snapshot undo_view = snapshot;
  for (sched::SessionId id : queue) sched::RemoveSession(undo_view, id);
  sched::Plan plan = policies::EndPlan(undo_view, **allocator, false);
  sched::Snapshot after = snapshot;
  sched::ApplyPlan(after, plan);
  // Sessions that stay suspended keep their slots, as for every other allocator.
  AddWindow(policies::ReservedView(after), queue, **allocator, plan);
  return plan;
}

Result<sched::Plan> QueuePlanWithoutUndo(const sched::Snapshot& snapshot,
                                         AllocatorCache& allocators,
                                         const std::string& default_allocator, bool backfill) {
  std::vector<sched::SessionId> queue = policies::QueueOrder(snapshot);
  if (queue.empty()) return sched::Plan{};
  // A sidestepped session returns to its original slots: keep those it does not
  // hold now out of reach (the queue pass reserves suspended sessions' slots itself).
  sched::Snapshot view = snapshot;
  for (const sched::Session& s : snapshot.sessions) {
    if (s.state != sched::SessionState::kSidestepped) continue;
    for (const sched::RankSlots& r : s.original.ranks) {
      for (sched::Node& n : view.nodes) {
        if (n.id != r.node) continue;
        for (int pu : r.pus) {
          bool held = false;
          for (const sched::RankSlots& now : s.placement.ranks) {
            if (now.node == r.node)
              for (int p : now.pus) held = held || p == pu;
          }
          if (!held && pu >= 0 && pu < static_cast<int>(n.uses.size())) ++n.uses[pu];
        }
      }
    }
  }
  auto allocator = HeadAllocator(snapshot, queue, allocators, default_allocator);
  if (!allocator) return Fail(allocator.error());
  sched::Plan plan;
  if ((*allocator)->decides_window()) {
    AddWindow(policies::ReservedView(view), queue, **allocator, plan);
    return plan;
  }
  policies::PlanBuilder builder(view);
  policies::StartQueued(builder, **allocator, backfill);
  return builder.Take();
}

}  // namespace psched::sched::leader
