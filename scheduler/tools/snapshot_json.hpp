// The JSON snapshot psched-place reads: nodes with their free slots/GPUs and loads,
// measured links, and waiting sessions with their requests and priorities.
// Parsing is pure (text in, values or an error naming the JSON path out).
//
//   {"now": 0,
//    "nodes": [{"id": 0, "hostname": "n0", "pus": 8, "gpus": 2,
//               "free_pus": 8, "free_gpus": 2,
//               "metrics": {"cpu_load_1m": 0.5, "cpu_utilisation": 0.1,
//                           "bandwidth_mbps": 1000, "used_memory_mb": 100,
//                           "total_memory_mb": 16000, "clock_mhz": 2400}}],
//    "links": [{"a": 0, "b": 1, "latency_us": 50, "bandwidth_mbps": 940}],
//    "sessions": [{"id": 1, "ranks": 4, "threads_per_rank": 1, "nodes": 0, "ppn": 0,
//                  "gpus_per_node": 0, "contiguous": false, "priority": 10,
//                  "owner": "ana", "estimate_s": 600, "submit_time": 0}]}
//
// Only "nodes[].pus", "sessions[].id" and "sessions[].ranks" are required; a node's
// used slots are its first pus - free_pus PUs. Unknown keys are errors (typos).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scheduler/model.hpp"

namespace psched::sched::place {

struct PlaceInput {
  Snapshot snapshot;
  std::vector<SessionRequest> waiting;  // by priority, highest first (stable)
};

// Errors read "<source>: <json path>: <what>", e.g.
// "snap.json: nodes[2].pus: expected an integer >= 1, got -3".
Result<PlaceInput> ParseSnapshot(std::string_view text, std::string_view source);

}  // namespace psched::sched::place
