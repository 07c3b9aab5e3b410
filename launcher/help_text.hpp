// The parts of the launchers' --help that come from elsewhere: the policies and
// allocators from their registries (one list of names), the defaults from the admin's
// config, and where psched-exec finds its allocation.
#pragma once

#include <string>

#include "common/error.hpp"
#include "config/config.hpp"

namespace psched::launcher {

// "Policies (--policy) ..." with a line per policy and the default from `config`
// (or the reason it could not be read), then the allocators and their default.
std::string PolicyAndAllocatorHelp(const Result<config::Config>& config);

// The same from the config files the daemons will read (/etc/psched/psched.toml,
// $PSCHED_CONF). Reads them: call it when the help is printed, not on every launch.
std::string PolicyAndAllocatorHelpFromConfig();

// Where psched-exec runs its session (psched-alloc, Slurm, or a daemon started on
// first use) and which PSCHED_* variables every rank gets.
std::string AllocationHelp();

}  // namespace psched::launcher
