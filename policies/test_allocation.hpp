// Test fixtures shared by the policy tests: the paper's allocation, its sessions,
// and helpers that drive a policy the way the daemon does.
#pragma once

#include <string>

#include "policies/policy.hpp"
#include "scheduler/model.hpp"

namespace psched::policies::testing {

// 4 nodes x 40 PUs (2 packages x 20 cores x 1 PU), as in the paper's evaluation.
sched::Snapshot PaperAllocation(int nodes = 4);

sched::SessionRequest Request(sched::SessionId id, int ranks, int threads = 1, bool spread = false);

// Asks `policy` about `request`, applies the plan, returns it.
sched::Plan Arrive(sched::Snapshot& snapshot, const Policy& policy,
                   const sched::SessionRequest& request, const sched::Allocator& allocator);

// Ends session `id` (removes it, releasing its slots), asks the policy, applies the plan.
sched::Plan End(sched::Snapshot& snapshot, const Policy& policy, sched::SessionId id,
                const sched::Allocator& allocator);

// "" when every slot's use count equals the number of held placements on it and
// none is negative; else what is wrong.
std::string CheckUses(const sched::Snapshot& snapshot);

// Uses of node `node`, PUs [begin, end) all equal to `value`?
bool UsesAre(const sched::Snapshot& snapshot, int node, int begin, int end, int value);

int CountActions(const sched::Plan& plan, size_t variant_index);

}  // namespace psched::policies::testing
