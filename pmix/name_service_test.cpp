#include "pmix/name_service.hpp"

#include <gtest/gtest.h>

namespace psched::pmix {
namespace {

const Publisher kSim{"sim", 0};
const Publisher kAna{"ana", 1};

TEST(NameService, LookupFindsPublishedValue) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"port", "tcp://x"}}));
  std::optional<Result<std::vector<PublishedValue>>> got;
  EXPECT_FALSE(ns.Lookup({"port"}, false, [&](auto r) { got = std::move(r); }));
  ASSERT_TRUE(got && *got);
  ASSERT_EQ((*got)->size(), 1u);
  EXPECT_EQ((**got)[0].value, "tcp://x");
  EXPECT_EQ((**got)[0].publisher, kSim);
}

TEST(NameService, LookupWithoutWaitFailsForMissingKey) {
  NameService ns;
  std::optional<Result<std::vector<PublishedValue>>> got;
  ns.Lookup({"port"}, false, [&](auto r) { got = std::move(r); });
  ASSERT_TRUE(got);
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().code(), ErrorCode::kNotFound);
}

TEST(NameService, WaitingLookupCompletesWhenAllKeysArrive) {
  NameService ns;
  int calls = 0;
  std::vector<PublishedValue> values;
  auto id = ns.Lookup({"a", "b"}, true, [&](auto r) {
    ++calls;
    ASSERT_TRUE(r);
    values = *r;
  });
  ASSERT_TRUE(id);
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}}));
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(ns.Publish(kAna, {{"b", "2"}}));
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[1].publisher, kAna);
  EXPECT_EQ(ns.pending_count(), 0u);
}

TEST(NameService, CancelFailsPendingLookupOnce) {
  NameService ns;
  int calls = 0;
  auto id = ns.Lookup({"a"}, true, [&](auto r) {
    ++calls;
    EXPECT_FALSE(r);
  });
  ns.Cancel(*id, Error(ErrorCode::kTimeout, "late"));
  ns.Cancel(*id, Error(ErrorCode::kTimeout, "late"));
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}}));
  EXPECT_EQ(calls, 1);
}

TEST(NameService, DuplicatePublishIsRefusedAndStateUnchanged) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}}));
  auto r = ns.Publish(kAna, {{"b", "2"}, {"a", "3"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("already published by sim:0"), std::string::npos);
  EXPECT_EQ(ns.published_count(), 1u);
}

TEST(NameService, UnpublishOnlyOwnKeys) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(ns.Unpublish(kAna, {"a"}).error().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(ns.Unpublish(kSim, {"zz"}).error().code(), ErrorCode::kNotFound);
  ASSERT_TRUE(ns.Unpublish(kSim, {"a"}));
  EXPECT_EQ(ns.published_count(), 1u);
  ASSERT_TRUE(ns.Unpublish(kSim, {}));
  EXPECT_EQ(ns.published_count(), 0u);
}

TEST(NameService, DropNamespaceForgetsSessionKeys) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}}));
  ASSERT_TRUE(ns.Publish(kAna, {{"b", "1"}}));
  ns.DropNamespace("sim");
  EXPECT_EQ(ns.published_count(), 1u);
}

TEST(NameService, EmptyRequestsAreErrors) {
  NameService ns;
  EXPECT_FALSE(ns.Publish(kSim, {}));
  EXPECT_FALSE(ns.Publish(kSim, {{"", "x"}}));
  bool failed = false;
  ns.Lookup({}, true, [&](auto r) { failed = !r; });
  EXPECT_TRUE(failed);
}

}  // namespace
}  // namespace psched::pmix
