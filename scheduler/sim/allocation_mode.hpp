// psched-sim's allocation mode: a stream of sessions inside one allocation, decided
// by the leader's own step function (scheduler/leader/step.hpp) with the same
// policies, priorities and rounds as pschedd, time simulated instead of read. Each
// session has a runtime at full speed: it progresses at full speed on slots of its
// own, at 1/k on slots k ranks share (overbook), not at all while suspended. A
// policy's displacement (surpass's suspend, sidestep's re-pin) is counted against
// the session displaced.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "scheduler/model.hpp"
#include "scheduler/sim/allocation_spec.hpp"

namespace psched::sim {

struct AllocationSessionResult {
  sched::SessionId id = sched::kNoSession;
  double submit_s = 0, start_s = -1, end_s = -1;
  int displaced = 0;  // times a policy suspended or re-pinned it for another session
  bool refused = false;
  std::string refusal;
};

struct AllocationRun {
  std::string policy;
  std::vector<AllocationSessionResult> sessions;  // in submission order
  double mean_wait_s = 0, max_wait_s = 0, makespan_s = 0;
  int displacements = 0, refused = 0;
};

// Runs the stream under each of the spec's policies.
Result<std::vector<AllocationRun>> RunAllocation(const AllocationSpec& spec);

// One line per policy (sessions, waits, displacements, makespan), then per session.
std::string AllocationReport(const std::vector<AllocationRun>& runs);

}  // namespace psched::sim
