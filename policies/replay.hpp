// A script of arrivals and ends in one allocation, run through the co-scheduling
// policies the way the leader runs them (OnArrival, ApplyPlan; RemoveSession, OnEnd,
// ApplyPlan), each plan printed as stable text with the slot uses after it. The policy
// golden tests (tests/golden/<policy>/*.events, through psched-cosched) diff that text:
// a reviewed record of what each policy decides. Pure: text in, text or an error out.
//
//   {"nodes": 2, "cores": 4,                 // uniform nodes, one PU per core
//    "allocator": "compact",                 // optional, default compact
//    "overbook_mode": "pinned",              // optional: pinned | float
//    "events": [
//      {"arrive": 1, "ranks": 8, "policy": "wait"},
//      {"arrive": 2, "ranks": 2, "policy": "sidestep", "threads": 1, "spread": false},
//      {"connect": 2, "to": 1},               // 2 connects to 1 (yield.hpp)
//      {"end": 2}]}
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"

namespace psched::policies {

// Errors read "<source>: <json path>: <what>", e.g. "case.events: events[2].end: no
// session 7 is known".
Result<std::string> ReplayScript(std::string_view text, std::string_view source);

}  // namespace psched::policies
