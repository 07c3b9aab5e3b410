#include "scheduler/leader/allocators.hpp"

#include "scheduler/allocator_registry.hpp"

namespace psched::sched::leader {

Result<sched::Allocator*> AllocatorCache::Get(const std::string& name) {
  if (auto it = made_.find(name); it != made_.end()) return it->second.get();
  auto made = sched::MakeAllocator(name, config_);
  if (!made) return Fail(made.error());
  sched::Allocator* raw = made->get();
  made_[name] = std::move(*made);
  return raw;
}

}  // namespace psched::sched::leader
