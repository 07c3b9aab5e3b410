// A script of what happens in one allocation (arrivals, ends, connects, scheduling
// rounds, the user's stops and resumes, lost nodes, failing ranks, kills), stepped
// through the leader's own step function (step.hpp) as pschedd steps what arrives, each
// at its event's index in seconds: an arrival is an Arrival, an end an End (or a Drop
// while queued, as a kill), a connect a Connect, a round a RoundTick, a stop or resume
// a UserControl, a loss NodesLost, a rank's failure RankFailed, a kill SessionKilled
// (then, as pschedd, the failed sessions' NodeDone from the nodes told to kill them,
// and the End of each no node runs any more). Each outcome's plan is applied as pschedd
// applies it once carried out, and printed as stable text with the slot uses and
// sessions after it (a refused arrival as the reject its policy decided; an action
// NodePlan keeps off the nodes marked so). The policy golden tests
// (tests/golden/<policy>/*.events, through psched-cosched) diff that text: a reviewed
// record of what the leader decides with each policy. Pure: text in, text or an error
// out.
//
//   {"nodes": 2, "cores": 4,                 // uniform nodes, one PU per core
//    "allocator": "compact",                 // optional, default compact
//    "overbook_mode": "pinned",              // optional: pinned | float
//    "events": [
//      {"arrive": 1, "ranks": 8, "policy": "wait"},
//      {"arrive": 2, "ranks": 2, "policy": "sidestep", "threads": 1, "spread": false},
//      {"connect": 2, "to": 1},               // 2 connects to 1 (yield.hpp)
//      {"stop": 1},                           // the user stops 1 (Ctrl-Z, psched-ctl suspend)
//      {"stop": 1, "fails": "node 0: ..."},   // ... which fails on the nodes (resume too)
//      {"resume": 1},                         // ... and resumes it (fg, psched-ctl resume)
//      {"round": true},                       // the periodic scheduling round
//      {"lose": [1], "cause": "killed"},      // node 1's daemon is gone (cause optional)
//      {"fail": 2, "rank": 1, "code": 3},     // rank 1 of 2 exits with status 3
//      {"kill": 2},                           // psched-ctl kill 2
//      {"end": 3, "fails": "node 0: ..."},    // its plan fails on the nodes (arrive too)
//      {"end": 2}]}
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"

namespace psched::sched::leader {

// Errors read "<source>: <json path>: <what>", e.g. "case.events: events[2].end: no
// session 7 is known".
Result<std::string> ReplayScript(std::string_view text, std::string_view source);

}  // namespace psched::sched::leader
