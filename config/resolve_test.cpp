#include "config/resolve.hpp"

#include <gtest/gtest.h>

namespace psched::config {
namespace {

Config Restricted() {
  auto c = ParseConfig(
      "[policy]\ndefault = \"overbook\"\nallowed = [\"overbook\", \"wait\"]\n"
      "overbook_mode = \"float\"\nspread_allowed = false\n[allocator]\nallowed = [\"compact\"]\n",
      "site.toml");
  EXPECT_TRUE(c) << c.error().message();
  return *c;
}

TEST(ResolvePolicy, EmptyRequestGetsTheDefaultWithItsOptions) {
  auto r = ResolvePolicy(Restricted(), "", false);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->name, "overbook");
  EXPECT_EQ(r->options.overbook_mode, policies::OverbookMode::kFloat);
  EXPECT_FALSE(r->spread);
}

TEST(ResolvePolicy, AllowedRequestIsGranted) {
  auto r = ResolvePolicy(Restricted(), "wait", false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "wait");
}

TEST(ResolvePolicy, DefaultsAllowEveryPolicyAndSpread) {
  for (const char* name : {"wait", "surpass", "overbook", "sidestep"}) {
    auto r = ResolvePolicy(DefaultConfig(), name, true);
    ASSERT_TRUE(r) << name;
    EXPECT_TRUE(r->spread);
  }
}

TEST(ResolvePolicy, NonsenseNamesTheAllowedSet) {
  auto r = ResolvePolicy(Restricted(), "nonsense", false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message(), "unknown policy 'nonsense'; allowed here: overbook, wait");
}

TEST(ResolvePolicy, ForbiddenPolicyNamesTheAllowedSetAndWhereItIsSet) {
  auto r = ResolvePolicy(Restricted(), "sidestep", false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(r.error().message(),
            "policy 'sidestep' is not allowed in this allocation; allowed here: overbook, wait "
            "(set by site.toml)");
}

TEST(ResolvePolicy, ForbiddenSpread) {
  auto r = ResolvePolicy(Restricted(), "wait", true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "--spread is not allowed in this allocation (spread_allowed = false in site.toml)");
}

TEST(ResolveAllocator, DefaultAllowedAndForbidden) {
  EXPECT_EQ(*ResolveAllocator(Restricted(), ""), "compact");
  auto r = ResolveAllocator(Restricted(), "spread");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "allocator 'spread' is not allowed in this allocation; allowed here: compact (set by "
            "site.toml)");
  EXPECT_FALSE(ResolveAllocator(Restricted(), "nonsense"));
}

}  // namespace
}  // namespace psched::config
