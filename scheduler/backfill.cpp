#include "scheduler/backfill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace psched::sched {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

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

// What a NodeSelector may look at in a request (see NodeSelector): requests of one shape
// fit or not alike on the same nodes.
struct Shape {
  int ranks, threads_per_rank, nodes, ppn, gpus_per_node;
  bool spread, contiguous;
  double priority;
  explicit Shape(const SessionRequest& r)
      : ranks(r.ranks),
        threads_per_rank(r.threads_per_rank),
        nodes(r.nodes),
        ppn(r.ppn),
        gpus_per_node(r.gpus_per_node),
        spread(r.spread),
        contiguous(r.contiguous),
        priority(r.priority) {}
  bool operator==(const Shape&) const = default;
};
struct ShapeHash {
  size_t operator()(const Shape& s) const {
    size_t h = std::hash<double>()(s.priority);
    for (long v : {long{s.ranks}, long{s.threads_per_rank}, long{s.nodes}, long{s.ppn},
                   long{s.gpus_per_node}, long{s.spread}, long{s.contiguous}})
      h = h * 1000003 ^ std::hash<long>()(v);
    return h;
  }
};
// Shapes that found no room on the nodes as they are; forgotten whenever a start changes them.
using NoRoom = std::unordered_set<Shape, ShapeHash>;

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
  QueueDecision out;
  if (queue.empty()) return out;
  int free = snapshot.FreePus();
  if (free == 0) return out;  // nothing can start; a reservation changes nothing either
  QueueScratch local;
  QueueScratch& s = scratch != nullptr ? *scratch : local;
  // Decisions look at the snapshot's own nodes until the first start; only then is a
  // working copy needed (most rounds of a busy machine start nothing).
  std::span<const Node> view = snapshot.nodes;
  std::optional<NodeIndex> index;
  auto own = [&] {
    if (index) return;
    s.work = snapshot.nodes;  // reuses the scratch's capacity
    view = s.work;
    index.emplace(s.work);
  };
  // The selector's placement when `fits` says yes, or at once without `fits`.
  auto place = [&](std::span<const Node> nodes, int free_slots,
                   const SessionRequest& req) -> std::optional<Placement> {
    if (fits && !fits(nodes, free_slots, req)) return std::nullopt;
    return select(nodes, req);
  };
  size_t i = 0;
  // FCFS part: the head of the queue starts while it fits.
  for (; i < queue.size(); ++i) {
    const SessionRequest& req = queue[i];
    if (req.SlotsNeeded() > free) break;
    std::optional<Placement> p = place(view, free, req);
    if (!p) break;
    own();
    Count(s.work, *index, *p, +1);
    free -= req.SlotsNeeded();
    out.starts.push_back(Assignment{req.id, std::move(*p)});
  }
  if (backfill == Backfill::kNone || i + 1 >= queue.size() || free == 0) return out;

  const SessionRequest& head = queue[i];
  const size_t head_starts = out.starts.size();
  // The holders' placements are read by address while starts are added: no reallocation.
  out.starts.reserve(queue.size());
  bool reserved = false;  // the reservation is computed once, when a candidate first needs it
  bool have_reservation = false;
  Reservation reservation{head.id, kNever, {}};
  // Holders (by estimated end) released to reach the shadow time, and the starts made
  // before it: what the head's placement is computed on.
  size_t shadow_released = 0, starts_at_reserve = 0;
  auto& running = s.running;
  // Puts the nodes as they were when the reservation was made, with the first
  // `shadow_released` holders gone (delta -1), or back (delta +1).
  auto shadow_state = [&](int delta) {
    int freed = 0;
    for (size_t k = starts_at_reserve; k < out.starts.size(); ++k)
      freed += Count(s.work, *index, out.starts[k].placement, delta);
    for (size_t k = 0; k < shadow_released; ++k)
      freed += Count(s.work, *index, *running[k].second, delta);
    return freed;
  };
  auto reserve = [&] {
    reserved = true;
    // A suspended session returns to its slots at a time nobody knows: no reservation.
    for (const Session& ses : snapshot.sessions)
      if (ses.state == SessionState::kSuspended) return;
    own();
    starts_at_reserve = out.starts.size();
    // Release running sessions (those just started included) in order of estimated end,
    // in place, until the head fits; then put them back. (end, placement) pairs.
    running.clear();
    for (const Session& ses : snapshot.sessions) {
      if (!Holds(ses)) continue;
      double end = ses.request.estimate_s > 0 ? ses.start_time + ses.request.estimate_s : kNever;
      running.emplace_back(std::max(end, snapshot.now), &ses.placement);
    }
    for (size_t k = 0; k < head_starts; ++k) {
      double est = queue[k].estimate_s;
      running.emplace_back(est > 0 ? snapshot.now + est : kNever, &out.starts[k].placement);
    }
    std::stable_sort(running.begin(), running.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t released = 0;
    int shadow_free = 0;
    for (const Node& n : s.work) shadow_free += n.FreePus();
    for (; released < running.size(); ++released) {
      shadow_free += Count(s.work, *index, *running[released].second, -1);
      // Sessions ending at the same time free their slots together.
      if (released + 1 < running.size() && running[released + 1].first == running[released].first)
        continue;
      // The head needs that many free slots, wherever it goes: no need to ask before.
      if (head.SlotsNeeded() > shadow_free) continue;
      // With `fits`, where the head goes is worked out only when a candidate must stay
      // beside it (reservation_placement): most rounds never need to know.
      std::optional<Placement> p;
      if (fits ? !fits(s.work, shadow_free, head) : !(p = select(s.work, head))) continue;
      reservation.start = running[released].first;
      if (p) reservation.placement = std::move(*p);
      have_reservation = true;
      ++released;
      break;
    }
    for (size_t k = 0; k < released && k < running.size(); ++k)
      Count(s.work, *index, *running[k].second, +1);
    shadow_released = have_reservation && fits ? released : 0;
  };
  // The head's placement at its shadow time, on the nodes as they were at reserve().
  bool placed_reservation = !fits;
  auto place_reservation = [&] {
    placed_reservation = true;
    shadow_state(-1);
    std::optional<Placement> p = select(s.work, head);
    shadow_state(+1);
    // `fits` said the head fits there; should the selector disagree, nothing may
    // overtake a head whose place is unknown.
    if (!p) have_reservation = false;
    if (p) reservation.placement = std::move(*p);
  };

  // A long queue holds many requests of the same shape: once one found no room, the
  // others of its shape are not looked at again until a start changes the nodes.
  NoRoom no_room_now, no_room_beside_head;
  for (size_t k = i + 1; k < queue.size() && free > 0; ++k) {
    const SessionRequest& req = queue[k];
    if (req.SlotsNeeded() > free) continue;
    const Shape shape(req);
    if (no_room_now.contains(shape)) continue;
    auto ends_in_time = [&] {
      return req.estimate_s > 0 && std::isfinite(reservation.start) &&
             snapshot.now + req.estimate_s <= reservation.start;
    };
    if (have_reservation && !ends_in_time() && no_room_beside_head.contains(shape)) continue;
    // With `fits`, the placement is built only once the candidate is known to start.
    std::optional<Placement> p;
    if (fits ? !fits(view, free, req) : !(p = select(view, req))) {
      no_room_now.insert(shape);
      continue;  // does not fit now, reservation or not
    }
    if (!reserved) reserve();
    if (!have_reservation) break;  // the head's start is unknown: nothing may overtake it
    if (!ends_in_time()) {
      // It would still run at the shadow time: it may only use what the head does not need.
      if (no_room_beside_head.contains(shape)) continue;
      if (!placed_reservation) {
        place_reservation();
        if (!have_reservation) break;
      }
      const int beside_free = free + Count(s.work, *index, reservation.placement, +1);
      p = place(s.work, beside_free, req);
      Count(s.work, *index, reservation.placement, -1);
      if (!p) {
        no_room_beside_head.insert(shape);
        continue;
      }
    } else if (!p) {
      p = select(view, req);
      if (!p) continue;  // `fits` promised otherwise; never start on a guess
    }
    own();
    no_room_now.clear();
    no_room_beside_head.clear();
    Count(s.work, *index, *p, +1);
    free -= req.SlotsNeeded();
    out.starts.push_back(Assignment{req.id, std::move(*p)});
  }
  if (have_reservation) out.reservation = std::move(reservation);
  return out;
}

}  // namespace psched::sched
