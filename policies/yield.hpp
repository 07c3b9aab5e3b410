// A surpass that yields to interaction (issue #20, item 7).
//
// A session that surpassed another (suspended it to start) and then connects to it (a
// PMIx connect naming both, or a name-service lookup of a name its victim published)
// would wait on a stopped process: an analysis that asks the simulation it surpassed
// for data. The leader then asks `YieldToConnect`, which turns the displacement into a
// sidestep: the victim is re-pinned, while still stopped, off the connector's slots
// (and off every other exclusive session's) onto the rest of its nodes, then resumed;
// the connector keeps its slots, exclusively from now on, and when it ends the usual
// end plan (EndPlan) restores the victim's pinning. One plan, carried out as a
// transaction like every other.
//
// Where a node has no slot left outside the connector's (one-slot nodes, say), the
// victim is resumed where it was, sharing the connector's slots as overbook would: an
// interaction that waits forever on a stopped session helps nobody.
#pragma once

#include <string>

#include "scheduler/model.hpp"

namespace psched::policies {

struct Yield {
  sched::Plan plan;     // empty: nothing to yield (see YieldToConnect)
  bool shares = false;  // the victim resumes on its own slots, sharing the connector's
  std::string note;     // for people: what the plan does and why
};

// `connector` connected to `victim`. An empty plan unless `victim` is suspended by
// `connector` (a surpass) and `connector` holds its slots (runs); empty too, with a
// note, when the victim's own slots are another sidestepper's now and it has nowhere
// else to go (it resumes when the connector ends, as before).
Yield YieldToConnect(const sched::Snapshot& snapshot, sched::SessionId connector,
                     sched::SessionId victim);

}  // namespace psched::policies
