#include "pmix/session_links.hpp"

#include <gtest/gtest.h>

namespace psched::pmix {
namespace {

using Names = std::vector<std::string>;

TEST(SessionLinks, EveryInteractingSessionIsLinkedToTheOthers) {
  SessionLinks links;
  links.Link({"parent", "children"});
  links.Link({"sim", "ana1", "ana2"});
  EXPECT_EQ(links.PeersOf("parent"), Names{"children"});
  EXPECT_EQ(links.PeersOf("children"), Names{"parent"});
  EXPECT_EQ(links.PeersOf("sim"), (Names{"ana1", "ana2"}));
  EXPECT_EQ(links.PeersOf("ana1"), (Names{"ana2", "sim"}));
  EXPECT_TRUE(links.PeersOf("unknown").empty());
}

TEST(SessionLinks, ASessionAloneIsLinkedToNothing) {
  SessionLinks links;
  links.Link({"parent"});
  links.Link({"parent", "parent"});
  EXPECT_TRUE(links.PeersOf("parent").empty());
  EXPECT_EQ(links.size(), 0u);
}

// A failed session's peers are told once: it is forgotten with its links.
TEST(SessionLinks, EndReturnsThePeersOnceAndForgetsTheSession) {
  SessionLinks links;
  links.Link({"sim", "ana1"});
  links.Link({"sim", "ana2"});
  links.Link({"ana1", "sim"});  // the other side's lookup: the same link
  EXPECT_EQ(links.End("sim"), (Names{"ana1", "ana2"}));
  EXPECT_TRUE(links.End("sim").empty());
  EXPECT_TRUE(links.PeersOf("ana1").empty());
  EXPECT_EQ(links.size(), 0u);  // nothing kept for ended sessions
}

TEST(SessionLinks, EndingOnePeerKeepsTheOthersLinks) {
  SessionLinks links;
  links.Link({"sim", "ana1"});
  links.Link({"sim", "ana2"});
  EXPECT_EQ(links.End("ana1"), Names{"sim"});
  EXPECT_EQ(links.PeersOf("sim"), Names{"ana2"});
  EXPECT_EQ(links.PeersOf("ana2"), Names{"sim"});
}

}  // namespace
}  // namespace psched::pmix
