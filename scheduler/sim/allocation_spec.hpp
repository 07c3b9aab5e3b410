// The spec psched-sim's allocation mode (allocation_mode.hpp) replays: one allocation's
// size, the policies to compare, and the stream of sessions. Read from a user's JSON
// file, so every field is checked as its type and range, and the stream's size is
// bounded, before anything is simulated (tests/fuzz/allocation_spec_fuzz).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::sim {

struct AllocationSession {
  double submit_s = 0;
  int ranks = 1;
  double runtime_s = 0;   // at full speed
  double estimate_s = 0;  // what the user said (0: the runtime)
  std::string owner = "user";
};

struct AllocationSpec {
  int nodes = 1;
  int pus_per_node = 1;
  std::vector<std::string> policies;  // each runs the whole stream on its own
  std::string allocator = "compact";
  std::string priority = "fcfs";
  double round_s = 1;  // the leader's round interval (config round_interval_s)
  std::vector<AllocationSession> sessions;
};

// Bounds of a spec: an allocation of at most kMaxNodes x kMaxPusPerNode, a stream of at
// most kMaxSessions sessions once "repeat" is expanded.
inline constexpr int kMaxNodes = 65536;
inline constexpr int kMaxPusPerNode = 4096;
inline constexpr int kMaxSessions = 100000;

// The spec from JSON text: {"nodes", "pus_per_node", "policies": [...], "allocator",
// "priority", "round_s", "sessions": [{"submit_s", "ranks", "runtime_s", "estimate_s",
// "owner", "repeat", "every_s"}]} ("repeat": that many sessions, "every_s" apart).
// Errors read "allocation spec: <json path>: <what>"; an unknown key is one.
Result<AllocationSpec> ParseAllocationSpec(std::string_view json);

}  // namespace psched::sim
