#include "scheduler/backfill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace psched::sched {

namespace {

// Node ids -> index in the node vector (ids are usually 0..n-1 in order: the fast path).
class NodeIndex {
 public:
  explicit NodeIndex(const std::vector<Node>& nodes) {
    int max_id = -1;
    for (const Node& n : nodes) max_id = std::max(max_id, n.id);
    index_.assign(max_id + 1, -1);
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].id >= 0) index_[nodes[i].id] = static_cast<int>(i);
  }
  int operator()(NodeId id) const {
    return id >= 0 && id < static_cast<int>(index_.size()) ? index_[id] : -1;
  }

 private:
  std::vector<int> index_;
};

// Adds `delta` uses to the slots and GPUs of `p` on `nodes` (a scratch copy). Returns how
// many more slots are free (uses == 0) than before.
int Count(std::vector<Node>& nodes, const NodeIndex& index, const Placement& p, int delta) {
  int freed = 0;
  int last = -1;
  for (const RankSlots& r : p.ranks) {
    int i = index(r.node);
    if (i < 0) continue;
    for (int pu : r.pus) {
      int& uses = nodes[i].uses[pu];
      freed -= uses == 0;
      uses += delta;
      freed += uses == 0;
    }
    // Ranks of one node are adjacent in a placement; GPUs are held once per node.
    if (i != last && p.gpus_per_node > 0) nodes[i].gpus_used += delta * p.gpus_per_node;
    last = i;
  }
  return freed;
}

bool Holds(const Session& s) {
  return s.state == SessionState::kRunning || s.state == SessionState::kOverbooked ||
         s.state == SessionState::kSidestepped;
}

// The rule's state on a snapshot: its nodes (copied once the rule first changes them: most
// rounds of a busy machine start nothing) and its sessions' placements.
class SnapshotQueueState {
 public:
  using Alloc = Placement;
  SnapshotQueueState(const Snapshot& snapshot, const NodeSelector& select, const NodeFits& fits,
                     QueueScratch& scratch)
      : snapshot_(snapshot), select_(select), fits_(fits), scratch_(scratch) {}

  int FreeSlots() const {
    int free = 0;
    for (const Node& n : view_) free += n.FreePus();
    return free;
  }
  bool HasFits() const { return static_cast<bool>(fits_); }
  bool Fits(int free, const SessionRequest& r) const { return fits_(view_, free, r); }
  std::optional<Placement> Place(const SessionRequest& r) const { return select_(view_, r); }
  int Add(const Placement& p, int delta) {
    Own();
    return Count(scratch_.work, *index_, p, delta);
  }
  int Slots(const Placement& p) const {
    int slots = 0;
    for (const RankSlots& r : p.ranks) slots += static_cast<int>(r.pus.size());
    return slots;
  }
  int FreeUnder(const Placement& p) const {
    int free = 0;
    for (const RankSlots& r : p.ranks) {
      const Node* n = FindNode(view_, r.node);
      if (n == nullptr) continue;
      for (int pu : r.pus) free += n->uses[pu] == 0;
    }
    return free;
  }
  // Slots may be shared (overbook): releasing one session need not free its slots.
  bool CountsSuffice(const SessionRequest&) const { return false; }
  bool AnySuspended() const {
    for (const Session& s : snapshot_.sessions)
      if (s.state == SessionState::kSuspended) return true;
    return false;
  }
  void Holders(double now, HoldersByEnd<Placement>& out) const {
    for (const Session& s : snapshot_.sessions) {
      if (!Holds(s)) continue;
      double end =
          s.request.estimate_s > 0 ? s.start_time + s.request.estimate_s : backfill_rule::kNever;
      out.emplace_back(std::max(end, now), &s.placement);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }

 private:
  void Own() {
    if (index_) return;
    scratch_.work = snapshot_.nodes;  // reuses the scratch's capacity
    view_ = scratch_.work;
    index_.emplace(scratch_.work);
  }

  const Snapshot& snapshot_;
  const NodeSelector& select_;
  const NodeFits& fits_;
  QueueScratch& scratch_;
  std::span<const Node> view_ = snapshot_.nodes;
  std::optional<NodeIndex> index_;
};

}  // namespace

NodeSelector AllocatorSelector(const Allocator& allocator, const Snapshot& snapshot) {
  return [&allocator, &snapshot](std::span<const Node> nodes, const SessionRequest& request) {
    // Allocators decide on a Snapshot: the nodes as they are now, the measured links.
    Snapshot view;
    view.nodes.assign(nodes.begin(), nodes.end());
    view.links = snapshot.links;
    view.now = snapshot.now;
    return allocator.PlaceOne(view, request);
  };
}

QueueDecision ScheduleQueue(const Snapshot& snapshot, std::span<const SessionRequest> queue,
                            Backfill backfill, const NodeSelector& select, QueueScratch* scratch,
                            const NodeFits& fits) {
  QueueScratch local;
  QueueScratch& s = scratch != nullptr ? *scratch : local;
  SnapshotQueueState state(snapshot, select, fits, s);
  QueueDecisionOf<Placement> d = ScheduleQueueOn(state, snapshot.now, queue, backfill, s.running);
  QueueDecision out;
  out.starts.reserve(d.starts.size());
  for (StartOf<Placement>& a : d.starts)
    out.starts.push_back(Assignment{a.session, std::move(a.alloc)});
  if (d.reservation) {
    out.reservation =
        Reservation{d.reservation->session, d.reservation->start, std::move(d.reservation->alloc)};
  }
  return out;
}

}  // namespace psched::sched
