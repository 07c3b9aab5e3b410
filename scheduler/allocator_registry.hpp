// Builds an allocator from its configured name. The one list of allocator names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/config.hpp"

namespace psched::sched {

// Names in the order `--help` lists them.
const std::vector<std::string>& AllocatorNames();

// An unknown name is an error that lists the valid ones.
Result<std::unique_ptr<Allocator>> MakeAllocator(std::string_view name,
                                                 const AllocatorConfig& config = {});

}  // namespace psched::sched
