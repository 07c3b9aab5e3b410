#include "pmix/session_layout.hpp"

#include <gtest/gtest.h>

namespace psched::pmix {
namespace {

// 5 ranks over nodes 0 and 2 of a 3-node allocation, round-robin.
PmixSessionInfo RoundRobin() {
  PmixSessionInfo s;
  s.session_id = 7;
  s.nspace = "psched.7";
  s.hostnames = {"n0", "n1", "n2"};
  s.ranks = {{0, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}};
  s.universe_size = 8;
  return s;
}

TEST(SessionLayout, ValidLayoutPasses) {
  EXPECT_TRUE(ValidateSessionInfo(RoundRobin()));
}

TEST(SessionLayout, JobNodesSkipNodesWithoutRanks) {
  EXPECT_EQ(JobNodes(RoundRobin()), (std::vector<int>{0, 2}));
  EXPECT_EQ(NodeListCsv(RoundRobin()), "n0,n2");
  EXPECT_EQ(NodeListForSlurm(RoundRobin()), "n0,n2");
}

TEST(SessionLayout, ProcMapListsRanksPerJobNode) {
  EXPECT_EQ(ProcMapList(RoundRobin()), "0,2,4;1,3");
  EXPECT_EQ(RanksOnNode(RoundRobin(), 2), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(JoinRanks(RanksOnNode(RoundRobin(), 0)), "0,2,4");
  EXPECT_TRUE(RanksOnNode(RoundRobin(), 1).empty());
}

TEST(SessionLayout, RanksOnNodeOrderedByLocalRank) {
  auto s = RoundRobin();
  s.ranks = {{0, 1}, {0, 0}};
  EXPECT_EQ(RanksOnNode(s, 0), (std::vector<uint32_t>{1, 0}));
}

TEST(SessionLayout, RejectsBadLayouts) {
  auto expect_bad = [](const PmixSessionInfo& s, const std::string& needle) {
    auto r = ValidateSessionInfo(s);
    ASSERT_FALSE(r) << needle;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find(needle), std::string::npos) << r.error().message();
  };
  auto s = RoundRobin();
  s.nspace = "";
  expect_bad(s, "empty namespace");
  s = RoundRobin();
  s.nspace = std::string(300, 'x');
  expect_bad(s, "longer than 255");
  s = RoundRobin();
  s.ranks.clear();
  expect_bad(s, "no ranks");
  s = RoundRobin();
  s.ranks[1].node = 3;
  expect_bad(s, "unknown node 3");
  s = RoundRobin();
  s.ranks[2].local_rank = 0;
  expect_bad(s, "duplicate local rank");
  s = RoundRobin();
  s.ranks[4].local_rank = 5;
  expect_bad(s, "not 0..2");
  s = RoundRobin();
  s.universe_size = 4;
  expect_bad(s, "universe size 4 < job size 5");
  s = RoundRobin();
  s.this_node = 3;
  expect_bad(s, "this node 3");
  s = RoundRobin();
  s.hostnames[0] = "a,b";
  expect_bad(s, "hostname 'a,b'");
}

TEST(SessionLayout, NoAppSizesIsOneAppOfEveryRank) {
  PmixSessionInfo s = RoundRobin();
  ASSERT_EQ(Apps(s).size(), 1u);
  EXPECT_EQ(Apps(s)[0].leader, 0u);
  EXPECT_EQ(Apps(s)[0].size, 5u);
  EXPECT_EQ(AppOfRank(s), (std::vector<uint32_t>{0, 0, 0, 0, 0}));
}

TEST(SessionLayout, AppsNumberRanksAppAfterApp) {
  PmixSessionInfo s = RoundRobin();
  s.app_sizes = {2, 1, 2};
  ASSERT_TRUE(ValidateSessionInfo(s));
  auto apps = Apps(s);
  ASSERT_EQ(apps.size(), 3u);
  EXPECT_EQ(apps[1].leader, 2u);
  EXPECT_EQ(apps[1].size, 1u);
  EXPECT_EQ(apps[2].leader, 3u);
  EXPECT_EQ(AppOfRank(s), (std::vector<uint32_t>{0, 0, 1, 2, 2}));
}

TEST(SessionLayout, AppSizesMustCoverTheJobExactly) {
  PmixSessionInfo s = RoundRobin();
  s.app_sizes = {2, 2};
  auto r = ValidateSessionInfo(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("apps hold 4 ranks, the job has 5"), std::string::npos)
      << r.error().ToString();
  s.app_sizes = {5, 0};
  r = ValidateSessionInfo(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("app 1 has no ranks"), std::string::npos);
}

}  // namespace
}  // namespace psched::pmix
