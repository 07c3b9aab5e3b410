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
  EXPECT_FALSE(ns.Lookup(kAna, {"port"}, false, [&](auto r) { got = std::move(r); }));
  ASSERT_TRUE(got && *got);
  ASSERT_EQ((*got)->size(), 1u);
  EXPECT_EQ((**got)[0].value, "tcp://x");
  EXPECT_EQ((**got)[0].publisher, kSim);
}

TEST(NameService, LookupWithoutWaitFailsForMissingKey) {
  NameService ns;
  std::optional<Result<std::vector<PublishedValue>>> got;
  ns.Lookup(kAna, {"port"}, false, [&](auto r) { got = std::move(r); });
  ASSERT_TRUE(got);
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().code(), ErrorCode::kNotFound);
}

TEST(NameService, WaitingLookupCompletesWhenAllKeysArrive) {
  NameService ns;
  int calls = 0;
  std::vector<PublishedValue> values;
  auto id = ns.Lookup(kAna, {"a", "b"}, true, [&](auto r) {
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
  auto id = ns.Lookup(kAna, {"a"}, true, [&](auto r) {
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

// Open MPI's connect/accept: each side's data is read once, then the same keys can be
// published again for the next connection on the same port.
TEST(NameService, FirstReadValueIsDeletedByTheLookupThatReturnsIt) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"port:accept", "1"}}, Persistence::kFirstRead));
  std::optional<Result<std::vector<PublishedValue>>> got;
  ns.Lookup(kAna, {"port:accept"}, false, [&](auto r) { got = std::move(r); });
  ASSERT_TRUE(got && *got);
  EXPECT_EQ((**got)[0].value, "1");
  EXPECT_EQ(ns.published_count(), 0u);
  got.reset();
  ns.Lookup(kAna, {"port:accept"}, false, [&](auto r) { got = std::move(r); });
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  EXPECT_TRUE(ns.Publish(kSim, {{"port:accept", "2"}}, Persistence::kFirstRead));
}

TEST(NameService, FirstReadValueGoesToTheEarliestWaitingLookupOnly) {
  NameService ns;
  std::vector<std::string> order;
  ns.Lookup(kAna, {"k"}, true,
            [&](auto r) { order.push_back(r ? "first:" + (*r)[0].value : "x"); });
  ns.Lookup(kAna, {"k"}, true,
            [&](auto r) { order.push_back(r ? "second:" + (*r)[0].value : "x"); });
  ASSERT_TRUE(ns.Publish(kSim, {{"k", "1"}}, Persistence::kFirstRead));
  EXPECT_EQ(order, std::vector<std::string>{"first:1"});
  EXPECT_EQ(ns.pending_count(), 1u);
  ASSERT_TRUE(ns.Publish(kSim, {{"k", "2"}}, Persistence::kFirstRead));
  EXPECT_EQ(order, (std::vector<std::string>{"first:1", "second:2"}));
  EXPECT_EQ(ns.published_count(), 0u);
}

// A lookup of several keys takes none of the first-read ones until all are there.
TEST(NameService, IncompleteLookupDeletesNothing) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"a", "1"}}, Persistence::kFirstRead));
  bool failed = false;
  ns.Lookup(kAna, {"a", "b"}, false, [&](auto r) { failed = !r; });
  EXPECT_TRUE(failed);
  EXPECT_EQ(ns.published_count(), 1u);
}

TEST(NameService, SessionAndIndefiniteValuesOutliveTheirPublisher) {
  NameService ns;
  ASSERT_TRUE(ns.Publish(kSim, {{"app", "1"}}, Persistence::kApplication));
  ASSERT_TRUE(ns.Publish(kSim, {{"proc", "1"}}, Persistence::kProcess));
  ASSERT_TRUE(ns.Publish(kSim, {{"once", "1"}}, Persistence::kFirstRead));
  ASSERT_TRUE(ns.Publish(kSim, {{"alloc", "1"}}, Persistence::kSession));
  ASSERT_TRUE(ns.Publish(kSim, {{"forever", "1"}}, Persistence::kIndefinite));
  ns.DropNamespace("sim");
  EXPECT_EQ(ns.published_count(), 2u);
  bool found = false;
  ns.Lookup(kAna, {"alloc", "forever"}, false, [&](auto r) { found = r.has_value(); });
  EXPECT_TRUE(found);
  ASSERT_TRUE(ns.Unpublish(kSim, {"forever"}));
  EXPECT_EQ(ns.published_count(), 1u);
}

// A killed analysis that waited for the simulation's data must not take it from the
// next analysis.
TEST(NameService, EndedSessionsWaitingLookupsFailAndTakeNothing) {
  NameService ns;
  const Publisher dead{"dead", 0};
  std::string dead_got, live_got;
  ns.Lookup(dead, {"k"}, true, [&](auto r) { dead_got = r ? "value" : r.error().message(); });
  ns.Lookup(kAna, {"k"}, true, [&](auto r) { live_got = r ? (*r)[0].value : "error"; });
  ns.DropNamespace("dead");
  EXPECT_NE(dead_got.find("session dead ended"), std::string::npos) << dead_got;
  EXPECT_EQ(ns.pending_count(), 1u);
  ASSERT_TRUE(ns.Publish(kSim, {{"k", "1"}}, Persistence::kFirstRead));
  EXPECT_EQ(live_got, "1");
}

TEST(NameService, PersistenceFromPmixNumbers) {
  EXPECT_EQ(PersistenceFromPmix(1), Persistence::kFirstRead);
  EXPECT_EQ(PersistenceFromPmix(4), Persistence::kSession);
  EXPECT_FALSE(PersistenceFromPmix(5));
  EXPECT_FALSE(PersistenceFromPmix(255));
}

TEST(NameService, EmptyRequestsAreErrors) {
  NameService ns;
  EXPECT_FALSE(ns.Publish(kSim, {}));
  EXPECT_FALSE(ns.Publish(kSim, {{"", "x"}}));
  bool failed = false;
  ns.Lookup(kAna, {}, true, [&](auto r) { failed = !r; });
  EXPECT_TRUE(failed);
}

}  // namespace
}  // namespace psched::pmix
