// Which references a run is measured against. Pure: runs in, metrics out.
//
// Each run is compared with the reference runs of its own round (paired): the machine's
// speed drifts over a demo (on an idle 2-core VM the simulation alone took 6.2 s in some
// rounds and 4.0 s in others of the same demo), and a run compared with the median of
// every round's references had its real slowdown, so E_sim and D, off by that factor: the
// baseline's D came out bimodal (0.5-0.9 in slow rounds, 1.2-1.45 in fast ones) and its
// 95% interval too wide to decide the verdict. A run whose round has no complete reference
// runs falls back to the medians of all rounds (what the table shows as the references).
#pragma once

#include <vector>

#include "common/error.hpp"
#include "djsb/results.hpp"

namespace psched::djsb {

// Medians of the family's reference runs (execution alone, static wait); round >= 0: of
// that round's runs only (ScenarioRun::repeat), round < 0: of every round's.
References ReferencesOf(const FamilyReferences& family, const DjsbConfig& config, int round);

// Every run's metrics against its own round's references.
Result<std::vector<RunMetrics>> PairedMetrics(const std::vector<ScenarioRun>& runs,
                                              const FamilyReferences& family,
                                              const DjsbConfig& config);

}  // namespace psched::djsb
