#include "policies/queue.hpp"

#include <algorithm>

#include "policies/displace.hpp"
#include "scheduler/backfill.hpp"

namespace psched::policies {

using sched::Allocator;
using sched::Node;
using sched::Placement;
using sched::Session;
using sched::SessionId;
using sched::SessionRequest;
using sched::SessionState;
using sched::Snapshot;

bool HoldsSlots(const Session& session) {
  return session.state == SessionState::kRunning || session.state == SessionState::kOverbooked ||
         session.state == SessionState::kSidestepped;
}

sched::Layout LayoutFor(const SessionRequest& request, const Allocator& allocator) {
  return request.spread ? sched::Layout::kSpread : allocator.layout();
}

std::vector<SessionId> QueueOrder(const Snapshot& snapshot) {
  std::vector<const Session*> queued;
  for (const Session& s : snapshot.sessions)
    if (s.state == SessionState::kQueued) queued.push_back(&s);
  // Sessions are in arrival order: a stable sort keeps it among equal priorities (fcfs).
  std::stable_sort(queued.begin(), queued.end(), [](const Session* a, const Session* b) {
    return a->request.priority > b->request.priority;
  });
  std::vector<SessionId> ids;
  ids.reserve(queued.size());
  for (const Session* s : queued) ids.push_back(s->request.id);
  return ids;
}

int SessionsAhead(const Snapshot& snapshot, const SessionRequest& request) {
  int ahead = 0;
  for (const Session& s : snapshot.sessions) {
    if (s.state == SessionState::kQueued && s.request.id != request.id &&
        s.request.priority >= request.priority)
      ++ahead;
  }
  return ahead;
}

Snapshot ReservedView(const Snapshot& snapshot, SessionId except_displacer) {
  Snapshot view = snapshot;
  for (const Session& s : snapshot.sessions) {
    if (s.state != SessionState::kSuspended) continue;
    if (except_displacer != sched::kNoSession && s.displaced_by == except_displacer) continue;
    // Slots its displacers hold (or reserve in turn) go back to them first: a nested
    // surpass may take the slots of the session it suspends.
    SlotMask chain;
    const Session* d = snapshot.Find(s.displaced_by);
    for (size_t hops = 0; d != nullptr && hops < snapshot.sessions.size(); ++hops) {
      MarkSlots(chain, snapshot, d->placement);
      d = snapshot.Find(d->displaced_by);
    }
    for (const sched::RankSlots& r : s.placement.ranks) {
      Node* n = sched::FindNode(view.nodes, r.node);
      if (n == nullptr) continue;
      auto mask = chain.find(r.node);
      for (int pu : r.pus)
        if (mask == chain.end() || !mask->second[pu]) ++n->uses[pu];
    }
    // Its GPUs too: suspending released them, resuming takes them back.
    for (sched::NodeId id : s.placement.Nodes())
      if (Node* n = sched::FindNode(view.nodes, id)) n->gpus_used += s.placement.gpus_per_node;
  }
  return view;
}

std::optional<std::string> NeverFits(const Snapshot& snapshot, const SessionRequest& request,
                                     const Allocator& allocator, bool suggest_overbook) {
  if (allocator.PlaceOne(snapshot.Emptied(), request)) return std::nullopt;
  std::string why = "cannot run in this allocation even when it is empty: needs " +
                    std::to_string(request.ranks) + " ranks x " +
                    std::to_string(request.threads_per_rank) +
                    " threads = " + std::to_string(request.SlotsNeeded()) + " slots";
  if (request.nodes > 0) why += " on " + std::to_string(request.nodes) + " nodes";
  if (request.ppn > 0) why += ", " + std::to_string(request.ppn) + " per node";
  if (request.gpus_per_node > 0)
    why += ", " + std::to_string(request.gpus_per_node) + " GPUs per node";
  why += "; the allocation has " + std::to_string(snapshot.TotalPus()) + " slots on " +
         std::to_string(snapshot.nodes.size()) + " nodes";
  // What users of mpirun --oversubscribe reach for (the overbook policy's own refusals
  // say why it cannot either).
  if (suggest_overbook && request.SlotsNeeded() > snapshot.TotalPus())
    why += "; --policy overbook runs it anyway on shared slots, as mpirun --oversubscribe";
  return why;
}

std::string WaitReason(const Snapshot& snapshot, const SessionRequest& request, int ahead,
                       std::string_view policy) {
  return "waits for " + std::to_string(request.SlotsNeeded()) +
         " slots: " + std::to_string(snapshot.FreePus()) + " free, " + std::to_string(ahead) +
         " session" + (ahead == 1 ? "" : "s") + " ahead, policy " + std::string(policy);
}

std::optional<Placement> BackfillArrival(const Snapshot& view, const SessionRequest& head,
                                         const SessionRequest& arrival,
                                         const Allocator& allocator) {
  // EASY protects the head only: the queue as ScheduleQueue sees it is the head, then it.
  const SessionRequest queue[] = {head, arrival};
  sched::QueueDecision decision = sched::ScheduleQueue(view, queue, sched::Backfill::kEasy,
                                                       sched::AllocatorSelector(allocator, view));
  for (sched::Assignment& a : decision.starts)
    if (a.session == arrival.id) return std::move(a.placement);
  return std::nullopt;
}

void StartQueued(PlanBuilder& builder, const Allocator& allocator, bool backfill) {
  const std::vector<SessionId> order = QueueOrder(builder.work());
  if (order.empty()) return;
  // Suspended sessions' slots count as taken: nobody settles where they must resume.
  const Snapshot view = ReservedView(builder.work());
  std::vector<SessionRequest> queue;
  queue.reserve(order.size());
  for (SessionId id : order) queue.push_back(view.Find(id)->request);
  sched::QueueDecision decision =
      sched::ScheduleQueue(view, queue, backfill ? sched::Backfill::kEasy : sched::Backfill::kNone,
                           sched::AllocatorSelector(allocator, view));
  for (sched::Assignment& a : decision.starts)
    builder.Add(sched::StartRanksAction{a.session, std::move(a.placement), false});
}

namespace {

// Suspended sessions whose displacer has ended, in the reverse order of their
// suspension (a surpass suspends the most recent first): oldest first.
void ResumeOrphans(PlanBuilder& builder) {
  std::vector<const Session*> orphans;
  for (const Session& s : builder.work().sessions) {
    if (s.state == SessionState::kSuspended && s.displaced_by != sched::kNoSession &&
        builder.work().Find(s.displaced_by) == nullptr)
      orphans.push_back(&s);
  }
  std::stable_sort(orphans.begin(), orphans.end(), [](const Session* a, const Session* b) {
    return a->start_time < b->start_time;
  });
  std::vector<SessionId> ids;
  ids.reserve(orphans.size());
  for (const Session* s : orphans) ids.push_back(s->request.id);
  for (SessionId id : ids) {
    const Snapshot& work = builder.work();
    const Session& s = *work.Find(id);
    // Resume only onto free slots and GPUs; otherwise it stays suspended until they free up.
    bool free = true;
    for (const sched::RankSlots& r : s.placement.ranks) {
      if (const Node* n = sched::FindNode(work.nodes, r.node))
        for (int pu : r.pus) free = free && n->uses[pu] == 0;
    }
    for (sched::NodeId id : s.placement.Nodes()) {
      if (const Node* n = sched::FindNode(work.nodes, id))
        free = free && n->FreeGpus() >= s.placement.gpus_per_node;
    }
    if (free) builder.Add(sched::ResumeAction{id});
  }
}

}  // namespace

sched::Plan EndPlan(const Snapshot& snapshot, const Allocator& allocator, bool backfill) {
  PlanBuilder builder(snapshot);
  RestoreSidestepped(builder);
  ResumeOrphans(builder);
  // A session resumed just now may have been sidestepped before it was suspended, by a
  // session that has ended since: it goes back to its own slots now, not at the next end.
  RestoreSidestepped(builder);
  StartQueued(builder, allocator, backfill);
  return builder.Take();
}

}  // namespace psched::policies
