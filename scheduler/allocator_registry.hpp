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

// Names in the order `--help` lists them:
//   compact, spread  scheduler/allocators/layout_allocator.hpp
//   netload          scheduler/allocators/netload.hpp (config.netload)
//   auction          scheduler/allocators/auction/auction.hpp (config.auction; keeps the
//                    bid cap between rounds, so keep one instance per scheduler)
//   ipwindow         scheduler/allocators/ipwindow.hpp (config.ipwindow; keeps the
//                    window size between rounds, likewise)
// The priority modules (fcfs, psp, psp+aging) have their own registry:
// scheduler/priorities/priority_registry.hpp.
const std::vector<std::string>& AllocatorNames();

// An unknown name is an error that lists the valid ones.
Result<std::unique_ptr<Allocator>> MakeAllocator(std::string_view name,
                                                 const AllocatorConfig& config = {});

}  // namespace psched::sched
