// The leader's allocators, one instance per name for the daemon's lifetime: the
// window allocators (auction, ipwindow) carry state from one scheduling round to
// the next (bid cap, window size after a solver time-out), so every session and
// every round that names one must reach the same object. Names are checked
// against the admin config (config::ResolveAllocator) before they get here.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "scheduler/allocator.hpp"
#include "scheduler/config.hpp"

namespace psched::sched::leader {

class AllocatorCache {
 public:
  explicit AllocatorCache(sched::AllocatorConfig config) : config_(config) {}

  // The allocator called `name`, made on first use; an unknown name is an error
  // listing the valid ones.
  Result<sched::Allocator*> Get(const std::string& name);
  // Allocators made so far, by name (for the periodic round: only those in use).
  const std::map<std::string, std::unique_ptr<sched::Allocator>>& made() const { return made_; }

 private:
  sched::AllocatorConfig config_;
  std::map<std::string, std::unique_ptr<sched::Allocator>> made_;
};

}  // namespace psched::sched::leader
