#include "scheduler/allocators/layout_allocator.hpp"

#include <gtest/gtest.h>

#include "scheduler/allocator_registry.hpp"

namespace psched::sched {
namespace {

TEST(LayoutAllocator, WindowStopsAtFirstSessionThatDoesNotFit) {
  Snapshot s;
  for (int i = 0; i < 2; ++i) s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 4, 1)));
  std::vector<SessionRequest> window(3);
  window[0].id = 1, window[0].ranks = 6;
  window[1].id = 2, window[1].ranks = 4;  // does not fit beside 1
  window[2].id = 3, window[2].ranks = 1;  // would fit, but must not overtake 2
  auto alloc = MakeAllocator("compact");
  ASSERT_TRUE(alloc);
  auto out = (*alloc)->Allocate(s, window);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].session, 1);
}

TEST(AllocatorRegistry, UnknownNameListsValidOnes) {
  auto a = MakeAllocator("nonsense");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message().find("compact"), std::string::npos);
  EXPECT_NE(a.error().message().find("nonsense"), std::string::npos);
}

}  // namespace
}  // namespace psched::sched
