// ScheduleQueue's rule (backfill.hpp: FCFS, or EASY with one reservation for the blocked
// head) over any machine state, so that the daemon's nodes-and-placements view and the
// simulator's slot counts run one implementation of it.
//
// A QueueState holds the machine as the rule works on it: it starts as the machine is
// now, and ends with the round's starts added (the rule takes out again whatever else it
// adds). It provides:
//   using Alloc;                       where a session's slots are (a Placement, ...)
//   int FreeSlots();                   free slots now
//   bool HasFits();                    whether Fits answers without building an Alloc
//   bool Fits(int free, request);      Place(request) would succeed (`free`: FreeSlots())
//   std::optional<Alloc> Place(request);
//   int Add(const Alloc&, int delta);  delta uses on its slots; returns how many more are free
//   int Slots(const Alloc&);           the slots it holds
//   int FreeUnder(const Alloc&);       how many of its slots are free now
//   bool CountsSuffice(request);       Fits depends on the free count alone (no need to
//                                      change the state to ask it)
//   bool AnySuspended();               a suspended session holds slots (no reservation)
//   void Holders(now, out);            (estimated end, at least now; Alloc*) of every
//                                      session holding slots, by end (ties: in a fixed order)
// Pure: no clock, no files.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

#include "scheduler/model.hpp"

namespace psched::sched {

enum class Backfill { kNone, kEasy };

template <class Alloc>
struct StartOf {
  SessionId session = kNoSession;
  Alloc alloc;
};

template <class Alloc>
struct ReservationOf {
  SessionId session = kNoSession;
  double start = 0;  // the shadow time; infinity when it depends on a session without estimate
  // Where the head goes then. With Fits, only when a candidate had to be checked beside
  // it (else empty: the decision did not need it).
  Alloc alloc{};
};

template <class Alloc>
struct QueueDecisionOf {
  std::vector<StartOf<Alloc>> starts;  // in the order they were decided
  std::optional<ReservationOf<Alloc>> reservation;
};

// Holders by estimated end: what the shadow time is found from (reused between calls).
template <class Alloc>
using HoldersByEnd = std::vector<std::pair<double, const Alloc*>>;

namespace backfill_rule {

// What a selector may look at in a request (see NodeSelector): requests of one shape
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

inline constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace backfill_rule

// `queue`: waiting sessions, highest priority first; `now`: the snapshot's time.
template <class State>
QueueDecisionOf<typename State::Alloc> ScheduleQueueOn(
    State& state, double now, std::span<const SessionRequest> queue, Backfill backfill,
    HoldersByEnd<typename State::Alloc>& running) {
  using Alloc = typename State::Alloc;
  using backfill_rule::kNever;
  QueueDecisionOf<Alloc> out;
  if (queue.empty()) return out;
  int free = state.FreeSlots();
  if (free == 0) return out;  // nothing can start; a reservation changes nothing either
  const bool fits = state.HasFits();
  // The state's placement when Fits says yes, or at once without Fits.
  auto place = [&](int free_slots, const SessionRequest& req) -> std::optional<Alloc> {
    if (fits && !state.Fits(free_slots, req)) return std::nullopt;
    return state.Place(req);
  };
  size_t i = 0;
  // FCFS part: the head of the queue starts while it fits.
  for (; i < queue.size(); ++i) {
    const SessionRequest& req = queue[i];
    if (req.SlotsNeeded() > free) break;
    std::optional<Alloc> p = place(free, req);
    if (!p) break;
    state.Add(*p, +1);
    free -= req.SlotsNeeded();
    out.starts.push_back({req.id, std::move(*p)});
  }
  if (backfill == Backfill::kNone || i + 1 >= queue.size() || free == 0) return out;

  const SessionRequest& head = queue[i];
  const size_t head_starts = out.starts.size();
  // The holders' allocations are read by address while starts are added: no reallocation.
  out.starts.reserve(queue.size());
  bool reserved = false;  // the reservation is computed once, when a candidate first needs it
  bool have_reservation = false;
  ReservationOf<Alloc> reservation{head.id, kNever, {}};
  // Holders (by estimated end) released to reach the shadow time, and the starts made
  // before it: what the head's placement is computed on.
  size_t shadow_released = 0, starts_at_reserve = 0;
  // Puts the state as it was when the reservation was made, with the first
  // `shadow_released` holders gone (delta -1), or back (delta +1).
  auto shadow_state = [&](int delta) {
    for (size_t k = starts_at_reserve; k < out.starts.size(); ++k)
      state.Add(out.starts[k].alloc, delta);
    for (size_t k = 0; k < shadow_released; ++k) state.Add(*running[k].second, delta);
  };
  auto reserve = [&] {
    reserved = true;
    // A suspended session returns to its slots at a time nobody knows: no reservation.
    if (state.AnySuspended()) return;
    starts_at_reserve = out.starts.size();
    // Release running sessions (those just started included) in order of estimated end
    // until the head fits; then put them back.
    running.clear();
    state.Holders(now, running);
    const size_t held_before = running.size();
    for (size_t k = 0; k < head_starts; ++k) {
      double est = queue[k].estimate_s;
      running.emplace_back(est > 0 ? now + est : kNever, &out.starts[k].alloc);
    }
    auto by_end = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(running.begin() + static_cast<long>(held_before), running.end(), by_end);
    std::inplace_merge(running.begin(), running.begin() + static_cast<long>(held_before),
                       running.end(), by_end);
    // When the head's fit depends on the count alone, releasing is counting.
    const bool count_only = fits && state.CountsSuffice(head);
    size_t released = 0;
    int shadow_free = state.FreeSlots();
    for (; released < running.size(); ++released) {
      const Alloc& gone = *running[released].second;
      shadow_free += count_only ? state.Slots(gone) : state.Add(gone, -1);
      // Sessions ending at the same time free their slots together.
      if (released + 1 < running.size() && running[released + 1].first == running[released].first)
        continue;
      // The head needs that many free slots, wherever it goes: no need to ask before.
      if (head.SlotsNeeded() > shadow_free) continue;
      // With Fits, where the head goes is worked out only when a candidate must stay
      // beside it (place_reservation): most rounds never need to know.
      std::optional<Alloc> p;
      if (!fits) p = state.Place(head);
      if (fits ? !state.Fits(shadow_free, head) : !p) continue;
      reservation.start = running[released].first;
      if (p) reservation.alloc = std::move(*p);
      have_reservation = true;
      ++released;
      break;
    }
    if (!count_only) {
      for (size_t k = 0; k < released && k < running.size(); ++k) state.Add(*running[k].second, +1);
    }
    shadow_released = have_reservation && fits ? released : 0;
  };
  // The head's placement at its shadow time, on the state as it was at reserve().
  bool placed_reservation = !fits;
  auto place_reservation = [&] {
    placed_reservation = true;
    shadow_state(-1);
    std::optional<Alloc> p = state.Place(head);
    shadow_state(+1);
    // Fits said the head fits there; should Place disagree, nothing may overtake a head
    // whose place is unknown.
    if (!p) have_reservation = false;
    if (p) reservation.alloc = std::move(*p);
  };

  // A long queue holds many requests of the same shape: once one found no room, the
  // others of its shape are not looked at again until a start changes the nodes.
  backfill_rule::NoRoom no_room_now, no_room_beside_head;
  for (size_t k = i + 1; k < queue.size() && free > 0; ++k) {
    const SessionRequest& req = queue[k];
    if (req.SlotsNeeded() > free) continue;
    const backfill_rule::Shape shape(req);
    if (no_room_now.contains(shape)) continue;
    auto ends_in_time = [&] {
      return req.estimate_s > 0 && std::isfinite(reservation.start) &&
             now + req.estimate_s <= reservation.start;
    };
    if (have_reservation && !ends_in_time() && no_room_beside_head.contains(shape)) continue;
    // With Fits, the placement is built only once the candidate is known to start.
    std::optional<Alloc> p;
    if (!fits) p = state.Place(req);
    if (fits ? !state.Fits(free, req) : !p) {
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
      const bool count_only = fits && state.CountsSuffice(req);
      if (count_only) {
        // Free beside the head: the free slots the head's placement does not hold.
        p.reset();
        if (state.Fits(free - state.FreeUnder(reservation.alloc), req)) {
          state.Add(reservation.alloc, +1);
          p = state.Place(req);
          state.Add(reservation.alloc, -1);
        }
      } else {
        const int beside_free = free + state.Add(reservation.alloc, +1);
        p = place(beside_free, req);
        state.Add(reservation.alloc, -1);
      }
      if (!p) {
        no_room_beside_head.insert(shape);
        continue;
      }
    } else if (!p) {
      p = state.Place(req);
      if (!p) continue;  // Fits promised otherwise; never start on a guess
    }
    no_room_now.clear();
    no_room_beside_head.clear();
    state.Add(*p, +1);
    free -= req.SlotsNeeded();
    out.starts.push_back({req.id, std::move(*p)});
  }
  if (have_reservation) out.reservation = std::move(reservation);
  return out;
}

}  // namespace psched::sched
