#include "pmix/layout_directory.hpp"

#include <gtest/gtest.h>

namespace psched::pmix {
namespace {

using Outcome = LayoutDirectory::PullOutcome;

TEST(LayoutDirectory, PullReturnsTheOwnersBytesAndSubscribesThePuller) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "layout-bytes", 1));
  auto p = d.Pull("psched.1.4", 7);
  EXPECT_EQ(p.outcome, Outcome::kFound);
  EXPECT_EQ(p.session, 4);
  EXPECT_EQ(p.layout, "layout-bytes");
  ASSERT_NE(d.subscribers(4), nullptr);
  EXPECT_EQ(*d.subscribers(4), (std::set<int>{7}));
}

// The laziness: a session nobody pulled ends without telling any node.
TEST(LayoutDirectory, SessionNobodyPulledEndsWithoutSubscribers) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "x", 1));
  EXPECT_TRUE(d.End(4).empty());
  EXPECT_EQ(d.running(), 0u);
}

// Only the nodes that pulled must deregister, each once however often it pulled.
TEST(LayoutDirectory, EndReturnsExactlyThePullers) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "x", 1));
  ASSERT_TRUE(d.Add(5, "psched.1.5", "y", 1));
  d.Pull("psched.1.4", 3);
  d.Pull("psched.1.4", 9);
  d.Pull("psched.1.4", 3);
  d.Pull("psched.1.5", 2);
  EXPECT_EQ(d.End(4), (std::set<int>{3, 9}));
  EXPECT_EQ(d.End(5), (std::set<int>{2}));
  EXPECT_TRUE(d.End(5).empty());  // a second end is a no-op
}

TEST(LayoutDirectory, PullAfterTheEndSaysEnded) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "x", 1));
  d.End(4);
  auto p = d.Pull("psched.1.4", 3);
  EXPECT_EQ(p.outcome, Outcome::kEnded);
  EXPECT_EQ(p.session, 4);
  EXPECT_TRUE(p.layout.empty());
}

TEST(LayoutDirectory, NeverPublishedNamespaceIsUnknown) {
  LayoutDirectory d;
  EXPECT_EQ(d.Pull("psched.1.99", 3).outcome, Outcome::kUnknown);
  EXPECT_EQ(d.subscribers(99), nullptr);
}

TEST(LayoutDirectory, SecondPublicationIsIgnored) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "first", 1));
  EXPECT_FALSE(d.Add(4, "psched.1.4", "second", 1));
  EXPECT_FALSE(d.Add(6, "psched.1.4", "same nspace", 1));
  EXPECT_EQ(d.Pull("psched.1.4", 1).layout, "first");
}

// A lost node never says its sessions ended: the directory names them, and ending
// them gives the usual answers (subscribers to drop, later pulls "ended").
TEST(LayoutDirectory, PublishedByNamesTheRunningSessionsOfOneNode) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(7, "psched.1.7", "x", 2));
  ASSERT_TRUE(d.Add(4, "psched.1.4", "y", 2));
  ASSERT_TRUE(d.Add(5, "psched.1.5", "z", 0));
  ASSERT_TRUE(d.Add(6, "psched.1.6", "w", 2));
  d.End(6);
  d.Pull("psched.1.7", 3);
  EXPECT_EQ(d.PublishedBy(2), (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(d.PublishedBy(0), (std::vector<int64_t>{5}));
  EXPECT_TRUE(d.PublishedBy(3).empty());  // a subscriber publishes nothing
  EXPECT_EQ(d.NspaceOf(7), "psched.1.7");
  EXPECT_EQ(d.NspaceOf(6), "");  // ended
  for (int64_t s : d.PublishedBy(2)) d.End(s);
  EXPECT_TRUE(d.PublishedBy(2).empty());
  EXPECT_EQ(d.Pull("psched.1.7", 1).outcome, Outcome::kEnded);
  EXPECT_EQ(d.Pull("psched.1.5", 1).outcome, Outcome::kFound);
}

// The first publication's owner stays the owner.
// A lost subscriber is forgotten everywhere; the other subscribers still get the end.
TEST(LayoutDirectory, UnsubscribedNodeIsNotReturnedByTheEnd) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "x", 1));
  ASSERT_TRUE(d.Add(5, "psched.1.5", "y", 2));
  d.Pull("psched.1.4", 3);
  d.Pull("psched.1.4", 9);
  d.Pull("psched.1.5", 3);
  d.Unsubscribe(3);
  EXPECT_EQ(d.End(4), (std::set<int>{9}));
  EXPECT_TRUE(d.End(5).empty());
}

TEST(LayoutDirectory, SecondPublicationDoesNotChangeTheOwner) {
  LayoutDirectory d;
  ASSERT_TRUE(d.Add(4, "psched.1.4", "x", 1));
  EXPECT_FALSE(d.Add(4, "psched.1.4", "x", 2));
  EXPECT_EQ(d.PublishedBy(1), (std::vector<int64_t>{4}));
  EXPECT_TRUE(d.PublishedBy(2).empty());
}

TEST(LayoutDirectory, RemembersOnlyTheLastEndedNamespaces) {
  LayoutDirectory d;
  const int64_t n = LayoutDirectory::kEndedRemembered + 1;
  for (int64_t s = 0; s < n; ++s) {
    ASSERT_TRUE(d.Add(s, "ns." + std::to_string(s), "x", 1));
    d.End(s);
  }
  EXPECT_EQ(d.Pull("ns.0", 1).outcome, Outcome::kUnknown);
  EXPECT_EQ(d.Pull("ns.1", 1).outcome, Outcome::kEnded);
  EXPECT_EQ(d.Pull("ns." + std::to_string(n - 1), 1).outcome, Outcome::kEnded);
}

}  // namespace
}  // namespace psched::pmix
