#include "scheduler/leader/allocators.hpp"

#include <gtest/gtest.h>

namespace psched::sched::leader {
namespace {

TEST(AllocatorCache, OneInstancePerName) {
  AllocatorCache cache({});
  auto a = cache.Get("auction");
  ASSERT_TRUE(a) << a.error().message();
  auto again = cache.Get("auction");
  ASSERT_TRUE(again);
  EXPECT_EQ(*a, *again);  // the same object: its state survives between rounds
  EXPECT_EQ((*a)->name(), "auction");
  auto ip = cache.Get("ipwindow");
  ASSERT_TRUE(ip);
  EXPECT_NE(static_cast<void*>(*ip), static_cast<void*>(*a));
  EXPECT_EQ(cache.made().size(), 2u);
}

TEST(AllocatorCache, EveryRegisteredNameWorks) {
  AllocatorCache cache({});
  for (const char* name : {"compact", "spread", "netload", "auction", "ipwindow"}) {
    auto a = cache.Get(name);
    ASSERT_TRUE(a) << name << ": " << a.error().message();
    EXPECT_EQ((*a)->name(), name);
  }
}

TEST(AllocatorCache, UnknownNameListsTheValidOnes) {
  AllocatorCache cache({});
  auto a = cache.Get("bestfit");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message().find("bestfit"), std::string::npos) << a.error().message();
  EXPECT_NE(a.error().message().find("netload"), std::string::npos) << a.error().message();
  EXPECT_TRUE(cache.made().empty());
}

}  // namespace
}  // namespace psched::sched::leader
