#include "scheduler/allocator_registry.hpp"

#include "scheduler/allocators/auction/auction.hpp"
#include "scheduler/allocators/ipwindow.hpp"
#include "scheduler/allocators/layout_allocator.hpp"
#include "scheduler/allocators/netload.hpp"

namespace psched::sched {

Result<std::unique_ptr<Allocator>> MakeAllocator(std::string_view name,
                                                 const AllocatorConfig& config) {
  if (name == "compact") return std::make_unique<LayoutAllocator>(Layout::kCompact);
  if (name == "spread") return std::make_unique<LayoutAllocator>(Layout::kSpread);
  if (name == "netload") return std::make_unique<netload::NetloadAllocator>(config.netload);
  if (name == "auction") return std::make_unique<auction::AuctionAllocator>(config.auction);
  if (name == "ipwindow") return std::make_unique<ipwindow::IpWindowAllocator>(config.ipwindow);
  std::string valid;
  for (const std::string& n : AllocatorNames()) valid += (valid.empty() ? "" : ", ") + n;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown allocator '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace psched::sched
