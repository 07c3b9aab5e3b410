#include "scheduler/allocator_registry.hpp"

#include "scheduler/allocators/layout_allocator.hpp"

namespace psched::sched {

const std::vector<std::string>& AllocatorNames() {
  static const std::vector<std::string> names = {"compact", "spread"};
  return names;
}

Result<std::unique_ptr<Allocator>> MakeAllocator(std::string_view name,
                                                 const AllocatorConfig& config) {
  (void)config;
  if (name == "compact") return std::make_unique<LayoutAllocator>(Layout::kCompact);
  if (name == "spread") return std::make_unique<LayoutAllocator>(Layout::kSpread);
  std::string valid;
  for (const std::string& n : AllocatorNames()) valid += (valid.empty() ? "" : ", ") + n;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown allocator '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace psched::sched
