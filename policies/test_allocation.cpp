#include "policies/test_allocation.hpp"

#include <map>

#include "policies/queue.hpp"

namespace psched::policies::testing {

sched::Snapshot PaperAllocation(int nodes) {
  sched::Snapshot s;
  for (int i = 0; i < nodes; ++i) {
    s.nodes.push_back(
        sched::Node::Make(i, "node" + std::to_string(i), sched::NodeTopology::Uniform(2, 20, 1)));
  }
  return s;
}

sched::SessionRequest Request(sched::SessionId id, int ranks, int threads, bool spread) {
  sched::SessionRequest r;
  r.id = id;
  r.ranks = ranks;
  r.threads_per_rank = threads;
  r.spread = spread;
  return r;
}

sched::Plan Arrive(sched::Snapshot& snapshot, const Policy& policy,
                   const sched::SessionRequest& request, const sched::Allocator& allocator) {
  sched::Plan plan = policy.OnArrival(snapshot, request, allocator);
  sched::ApplyPlan(snapshot, plan, &request);
  return plan;
}

sched::Plan End(sched::Snapshot& snapshot, const Policy& policy, sched::SessionId id,
                const sched::Allocator& allocator) {
  sched::Session ended = *snapshot.Find(id);
  sched::RemoveSession(snapshot, id);
  sched::Plan plan = policy.OnEnd(snapshot, ended, allocator);
  sched::ApplyPlan(snapshot, plan);
  return plan;
}

std::string CheckUses(const sched::Snapshot& snapshot) {
  std::map<int, std::vector<int>> expected;
  for (const sched::Node& n : snapshot.nodes) expected[n.id].assign(n.uses.size(), 0);
  for (const sched::Session& s : snapshot.sessions) {
    if (HoldsSlots(s)) {
      for (const sched::RankSlots& r : s.placement.ranks)
        for (int pu : r.pus) ++expected[r.node][pu];
    }
  }
  for (const sched::Node& n : snapshot.nodes) {
    for (size_t pu = 0; pu < n.uses.size(); ++pu) {
      if (n.uses[pu] < 0)
        return "node " + std::to_string(n.id) + " PU " + std::to_string(pu) + " has negative uses";
      if (n.uses[pu] != expected[n.id][pu]) {
        return "node " + std::to_string(n.id) + " PU " + std::to_string(pu) + " has " +
               std::to_string(n.uses[pu]) + " uses, holders add up to " +
               std::to_string(expected[n.id][pu]);
      }
    }
  }
  return "";
}

bool UsesAre(const sched::Snapshot& snapshot, int node, int begin, int end, int value) {
  for (int pu = begin; pu < end; ++pu)
    if (snapshot.nodes[node].uses[pu] != value) return false;
  return true;
}

int CountActions(const sched::Plan& plan, size_t variant_index) {
  int n = 0;
  for (const sched::Action& a : plan.actions) n += a.index() == variant_index ? 1 : 0;
  return n;
}

}  // namespace psched::policies::testing
