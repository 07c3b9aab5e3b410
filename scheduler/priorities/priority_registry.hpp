// Builds a priority module from its configured name. The one list of priority names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scheduler/config.hpp"
#include "scheduler/priorities/priority.hpp"

namespace psched::sched::prio {

// fcfs, psp, psp+aging, multifactor.
const std::vector<std::string>& PriorityNames();

// An unknown name is an error that lists the valid ones.
Result<std::unique_ptr<PriorityModule>> MakePriority(std::string_view name,
                                                     const PriorityConfig& config = {});

}  // namespace psched::sched::prio
