// compact and spread: the two plain layouts, one class parameterised by Layout.
#pragma once

#include "scheduler/allocator.hpp"
#include "scheduler/placement.hpp"

namespace psched::sched {

class LayoutAllocator : public Allocator {
 public:
  explicit LayoutAllocator(Layout layout) : layout_(layout) {}
  std::string_view name() const override {
    return layout_ == Layout::kSpread ? "spread" : "compact";
  }
  Layout layout() const override { return layout_; }
  std::vector<Assignment> Allocate(const Snapshot& snapshot,
                                   std::span<const SessionRequest> window) const override;

 private:
  Layout layout_;
};

}  // namespace psched::sched
