#include "scheduler/model.hpp"

#include <algorithm>
#include <set>

namespace psched::sched {

NodeTopology NodeTopology::Uniform(int packages, int cores_per_package, int pus_per_core,
                                   int gpus) {
  NodeTopology t;
  t.gpus = gpus;
  for (int p = 0; p < packages; ++p) {
    for (int c = 0; c < cores_per_package; ++c)
      for (int u = 0; u < pus_per_core; ++u) t.pus.push_back(Pu{p * cores_per_package + c, p});
  }
  return t;
}

int NodeTopology::NumCores() const {
  std::set<int> cores;
  for (const Pu& pu : pus) cores.insert(pu.core);
  return static_cast<int>(cores.size());
}

int NodeTopology::NumPackages() const {
  std::set<int> packages;
  for (const Pu& pu : pus) packages.insert(pu.package);
  return static_cast<int>(packages.size());
}

Node Node::Make(NodeId id, std::string hostname, NodeTopology topology) {
  Node n;
  n.id = id;
  n.hostname = std::move(hostname);
  n.uses.assign(topology.pus.size(), 0);
  n.topology = std::move(topology);
  return n;
}

const Node* FindNode(std::span<const Node> nodes, NodeId id) {
  if (!nodes.empty()) {
    const int64_t k = static_cast<int64_t>(id) - nodes.front().id;
    if (k >= 0 && k < static_cast<int64_t>(nodes.size()) && nodes[k].id == id) return &nodes[k];
  }
  for (const Node& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

Node* FindNode(std::vector<Node>& nodes, NodeId id) {
  return const_cast<Node*>(FindNode(std::span<const Node>(nodes), id));
}

bool IdsFollowIndexes(std::span<const Node> nodes) {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id != nodes.front().id + static_cast<int64_t>(i)) return false;
  return true;
}

int Node::FreePus() const {
  return static_cast<int>(std::count(uses.begin(), uses.end(), 0));
}

std::vector<NodeId> Placement::Nodes() const {
  std::vector<NodeId> ids;
  ids.reserve(ranks.size());
  for (const RankSlots& r : ranks) ids.push_back(r.node);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const char* SessionStateName(SessionState state) {
  switch (state) {
    case SessionState::kQueued:
      return "queued";
    case SessionState::kRunning:
      return "running";
    case SessionState::kSuspended:
      return "suspended";
    case SessionState::kSidestepped:
      return "sidestepped";
    case SessionState::kOverbooked:
      return "overbooked";
  }
  return "unknown";
}

const Session* Snapshot::Find(SessionId id) const {
  for (const Session& s : sessions)
    if (s.request.id == id) return &s;
  return nullptr;
}

Session* Snapshot::Find(SessionId id) {
  return const_cast<Session*>(static_cast<const Snapshot*>(this)->Find(id));
}

int Snapshot::FreePus() const {
  int n = 0;
  for (const Node& node : nodes) n += node.FreePus();
  return n;
}

int Snapshot::TotalPus() const {
  int n = 0;
  for (const Node& node : nodes) n += node.topology.NumPus();
  return n;
}

Snapshot Snapshot::Emptied() const {
  Snapshot empty;
  empty.now = now;
  empty.nodes = nodes;
  for (Node& n : empty.nodes) {
    std::fill(n.uses.begin(), n.uses.end(), 0);
    n.gpus_used = 0;
  }
  return empty;
}

namespace {

// Adds `delta` to the use count of every slot the placement occupies, and to GPUs held.
void CountUses(Snapshot& snapshot, const Placement& placement, int delta) {
  for (const RankSlots& r : placement.ranks) {
    Node* node = FindNode(snapshot.nodes, r.node);
    if (node == nullptr) continue;
    for (int pu : r.pus)
      if (pu >= 0 && pu < static_cast<int>(node->uses.size())) node->uses[pu] += delta;
  }
  if (placement.gpus_per_node > 0) {
    for (NodeId id : placement.Nodes()) {
      if (Node* node = FindNode(snapshot.nodes, id))
        node->gpus_used += delta * placement.gpus_per_node;
    }
  }
}

bool Holds(const Session& s) {
  return s.state == SessionState::kRunning || s.state == SessionState::kOverbooked ||
         s.state == SessionState::kSidestepped;
}

Session& FindOrAdd(Snapshot& snapshot, SessionId id, const SessionRequest* request) {
  if (Session* s = snapshot.Find(id)) return *s;
  Session s;
  if (request != nullptr && request->id == id) s.request = *request;
  s.request.id = id;
  snapshot.sessions.push_back(std::move(s));
  return snapshot.sessions.back();
}

struct Applier {
  Snapshot& snapshot;
  const SessionRequest* request;

  void operator()(const StartRanksAction& a) {
    Session& s = FindOrAdd(snapshot, a.session, request);
    // Overbooked beyond the allocation, its ranks share slots among themselves too.
    bool shared = a.overbooked;
    for (const RankSlots& r : a.placement.ranks) {
      Node* node = FindNode(snapshot.nodes, r.node);
      if (node == nullptr) continue;
      for (int pu : r.pus) {  // out of range: ignored, as CountUses ignores it
        const bool valid = pu >= 0 && pu < static_cast<int>(node->uses.size());
        shared = shared || (valid && node->uses[pu] > 0);
      }
    }
    s.placement = a.placement;
    s.original = a.placement;
    s.floating = a.floating;
    s.exclusive = a.exclusive;
    s.state = shared ? SessionState::kOverbooked : SessionState::kRunning;
    s.start_time = snapshot.now;
    CountUses(snapshot, s.placement, +1);
  }
  void operator()(const SuspendAction& a) {
    Session* s = snapshot.Find(a.session);
    if (s == nullptr || !Holds(*s)) return;
    CountUses(snapshot, s->placement, -1);
    s->state = SessionState::kSuspended;
    s->displaced_by = a.by;
  }
  void operator()(const ResumeAction& a) {
    Session* s = snapshot.Find(a.session);
    if (s == nullptr || s->state != SessionState::kSuspended) return;
    CountUses(snapshot, s->placement, +1);
    const bool moved = s->placement != s->original;
    s->state = moved ? SessionState::kSidestepped : SessionState::kRunning;
    // Re-pinned, while suspended, off the slots of the session that suspended it (a
    // surpass that yields to a connect, policies/yield.hpp): it runs sidestepped by that
    // session, which holds its slots alone now. Otherwise its displacer is done with it.
    const Session* by = snapshot.Find(s->displaced_by);
    if (!moved || by == nullptr || !by->exclusive) s->displaced_by = kNoSession;
  }
  void operator()(const RepinAction& a) {
    Session* s = snapshot.Find(a.session);
    if (s == nullptr) return;
    bool counted = Holds(*s);
    if (counted) CountUses(snapshot, s->placement, -1);
    s->placement = a.placement;
    if (counted) CountUses(snapshot, s->placement, +1);
    s->displaced_by = a.by;
    if (counted)
      s->state = a.by == kNoSession ? SessionState::kRunning : SessionState::kSidestepped;
    // Whom others move away for holds its slots alone: a sidestepper (its spawn, later in
    // the plan, says so too) or a surpasser that yields to a connect (policies/yield.hpp).
    if (a.by != kNoSession) {
      if (Session* by = snapshot.Find(a.by)) by->exclusive = true;
    }
  }
  void operator()(const EnqueueAction& a) {
    Session& s = FindOrAdd(snapshot, a.session, request);
    s.state = SessionState::kQueued;
  }
  void operator()(const RejectAction&) {}
  void operator()(const KillAction& a) { RemoveSession(snapshot, a.session); }
};

}  // namespace

void ApplyPlan(Snapshot& snapshot, const Plan& plan, const SessionRequest* request) {
  for (const Action& action : plan.actions) std::visit(Applier{snapshot, request}, action);
}

void RemoveSession(Snapshot& snapshot, SessionId id) {
  auto it = std::find_if(snapshot.sessions.begin(), snapshot.sessions.end(),
                         [id](const Session& s) { return s.request.id == id; });
  if (it == snapshot.sessions.end()) return;
  if (Holds(*it)) CountUses(snapshot, it->placement, -1);
  snapshot.sessions.erase(it);
}

}  // namespace psched::sched
