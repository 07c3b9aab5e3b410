// The one place launcher/slurm reads the real process environment. Everything else in
// launcher/slurm is pure and takes an Environment (see slurm_allocation.hpp).
#pragma once

#include <optional>

#include "common/error.hpp"
#include "launcher/slurm/slurm_allocation.hpp"

namespace psched::slurm {

// A copy of this process's environ. Entries without '=' are skipped.
Environment CurrentEnvironment();

// ParseAllocation(CurrentEnvironment()): the allocation this process runs in, std::nullopt
// outside Slurm, an error when the SLURM_* variables are malformed.
Result<std::optional<SlurmAllocation>> DetectAllocation();

}  // namespace psched::slurm
