#include "policies/displace.hpp"

#include <algorithm>

#include "policies/queue.hpp"

namespace psched::policies {

using sched::Node;
using sched::Placement;
using sched::RankSlots;
using sched::Session;
using sched::SessionId;
using sched::Snapshot;

namespace {

bool Masked(const SlotMask& mask, sched::NodeId node, int pu) {
  auto it = mask.find(node);
  return it != mask.end() && pu >= 0 && pu < static_cast<int>(it->second.size()) && it->second[pu];
}

// The live exclusive session whose slots `placement` touches, preferring `prefer`.
SessionId Displacer(const Snapshot& snapshot, const Placement& placement, SessionId prefer) {
  SessionId found = sched::kNoSession;
  for (const Session& s : snapshot.sessions) {
    if (!s.exclusive || !HoldsSlots(s)) continue;
    SlotMask one;
    MarkSlots(one, snapshot, s.placement);
    if (!Intersects(placement, one)) continue;
    if (s.request.id == prefer) return prefer;
    found = s.request.id;  // the most recent wins: it sidestepped last
  }
  return found;
}

}  // namespace

void MarkSlots(SlotMask& mask, const Snapshot& snapshot, const Placement& placement) {
  for (const RankSlots& r : placement.ranks) {
    std::vector<bool>& bits = mask[r.node];
    if (bits.empty()) {
      if (const Node* n = sched::FindNode(snapshot.nodes, r.node))
        bits.assign(n->uses.size(), false);
    }
    for (int pu : r.pus)
      if (pu >= 0 && pu < static_cast<int>(bits.size())) bits[pu] = true;
  }
}

SlotMask ExclusiveSlots(const Snapshot& snapshot, SessionId except) {
  SlotMask mask;
  for (const Session& s : snapshot.sessions) {
    // A suspended sidestepper resumes onto its slots: they stay reserved for it.
    const bool holds_or_will = HoldsSlots(s) || s.state == sched::SessionState::kSuspended;
    if (s.exclusive && holds_or_will && s.request.id != except)
      MarkSlots(mask, snapshot, s.placement);
  }
  return mask;
}

bool Intersects(const Placement& placement, const SlotMask& mask) {
  for (const RankSlots& r : placement.ranks) {
    for (int pu : r.pus)
      if (Masked(mask, r.node, pu)) return true;
  }
  return false;
}

std::optional<Placement> Displace(const Snapshot& snapshot, const Session& session,
                                  const SlotMask& mask) {
  // Use counts without this session's own ranks: they are what it moves.
  std::map<sched::NodeId, std::vector<int>> uses;
  for (const Node& n : snapshot.nodes) uses[n.id] = n.uses;
  if (HoldsSlots(session)) {
    for (const RankSlots& r : session.placement.ranks)
      for (int pu : r.pus) --uses[r.node][pu];
  }

  Placement out = session.original;
  // Kept slots count first, so displaced threads see the node as it will be.
  for (const RankSlots& r : out.ranks) {
    for (int pu : r.pus)
      if (!Masked(mask, r.node, pu)) ++uses[r.node][pu];
  }
  for (RankSlots& r : out.ranks) {
    std::vector<int>& node_uses = uses[r.node];
    for (int& pu : r.pus) {
      if (!Masked(mask, r.node, pu)) continue;
      int best = -1;
      for (int cand = 0; cand < static_cast<int>(node_uses.size()); ++cand) {
        if (Masked(mask, r.node, cand)) continue;
        // Keep a rank's threads on distinct slots while the node allows it.
        bool own = std::find(r.pus.begin(), r.pus.end(), cand) != r.pus.end();
        auto key = [&](int c, bool o) { return std::pair{o, node_uses[c]}; };
        if (best < 0 ||
            key(cand, own) < key(best, std::find(r.pus.begin(), r.pus.end(), best) != r.pus.end()))
          best = cand;
      }
      if (best < 0) return std::nullopt;
      pu = best;
      ++node_uses[best];
    }
    std::sort(r.pus.begin(), r.pus.end());
  }
  return out;
}

void RestoreSidestepped(PlanBuilder& builder) {
  std::vector<SessionId> ids;
  for (const Session& s : builder.work().sessions)
    if (s.state == sched::SessionState::kSidestepped) ids.push_back(s.request.id);
  for (SessionId id : ids) {
    const Snapshot& work = builder.work();
    const Session& s = *work.Find(id);
    SlotMask mask = ExclusiveSlots(work, id);
    if (!Intersects(s.original, mask)) {
      builder.Add(sched::RepinAction{id, s.original, sched::kNoSession});
      continue;
    }
    std::optional<Placement> target = Displace(work, s, mask);
    if (!target || *target == s.placement) continue;  // no better pinning yet
    SessionId by = Displacer(work, s.original, s.displaced_by);
    builder.Add(sched::RepinAction{id, std::move(*target), by});
  }
}

}  // namespace psched::policies
