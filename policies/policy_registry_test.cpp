#include "policies/policy_registry.hpp"

#include <gtest/gtest.h>

namespace psched::policies {
namespace {

TEST(PolicyRegistry, EveryListedNameBuildsThePolicyOfThatName) {
  for (const std::string& name : PolicyNames()) {
    auto policy = MakePolicy(name);
    ASSERT_TRUE(policy) << name;
    EXPECT_EQ((*policy)->name(), name);
  }
}

TEST(PolicyRegistry, UnknownNameListsTheValidOnes) {
  auto policy = MakePolicy("nonsense");
  ASSERT_FALSE(policy);
  EXPECT_EQ(policy.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(policy.error().message(),
            "unknown policy 'nonsense' (valid: wait, surpass, overbook, sidestep)");
}

TEST(PolicyRegistry, EmptyNameIsUnknown) {
  EXPECT_FALSE(MakePolicy(""));
}

}  // namespace
}  // namespace psched::policies
