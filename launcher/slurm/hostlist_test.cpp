#include "launcher/slurm/hostlist.hpp"

#include <gtest/gtest.h>

namespace psched::slurm {
namespace {

using Hosts = std::vector<std::string>;

Hosts Expand(std::string_view expression) {
  auto hosts = ExpandHostlist(expression);
  EXPECT_TRUE(hosts.has_value()) << expression << ": " << hosts.error().ToString();
  return hosts.value_or(Hosts{});
}

// The error message for a malformed expression; empty if it (wrongly) parsed.
std::string ErrorOf(std::string_view expression) {
  auto hosts = ExpandHostlist(expression);
  if (hosts) return "";
  EXPECT_EQ(hosts.error().code(), ErrorCode::kInvalidArgument);
  return hosts.error().message();
}

TEST(Hostlist, PlainNames) {
  EXPECT_EQ(Expand("n1"), (Hosts{"n1"}));
  EXPECT_EQ(Expand("alpha,beta,gamma"), (Hosts{"alpha", "beta", "gamma"}));
  EXPECT_EQ(Expand("node-1.cluster"), (Hosts{"node-1.cluster"}));
}

TEST(Hostlist, RangesAndSingles) {
  EXPECT_EQ(Expand("n[1-3,5],m7"), (Hosts{"n1", "n2", "n3", "n5", "m7"}));
  EXPECT_EQ(Expand("n[1-4]"), (Hosts{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(Expand("n[7]"), (Hosts{"n7"}));
  EXPECT_EQ(Expand("n[9-11]"), (Hosts{"n9", "n10", "n11"}));
}

TEST(Hostlist, ZeroPaddingFollowsTheLowerBound) {
  EXPECT_EQ(Expand("n[01-03]"), (Hosts{"n01", "n02", "n03"}));
  EXPECT_EQ(Expand("n[08-10]"), (Hosts{"n08", "n09", "n10"}));
  EXPECT_EQ(Expand("c[001-002,010]"), (Hosts{"c001", "c002", "c010"}));
  EXPECT_EQ(Expand("n[0-1]"), (Hosts{"n0", "n1"}));
}

TEST(Hostlist, SuffixAndSeveralGroupsMultiplyLeftToRight) {
  EXPECT_EQ(Expand("n[1-2]-ib"), (Hosts{"n1-ib", "n2-ib"}));
  EXPECT_EQ(Expand("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
  EXPECT_EQ(Expand("[1-2]x"), (Hosts{"1x", "2x"}));
}

TEST(Hostlist, OrderAndDuplicatesAreKept) {
  EXPECT_EQ(Expand("b,a[2-3],a1,b"), (Hosts{"b", "a2", "a3", "a1", "b"}));
}

TEST(Hostlist, LargeButBoundedRanges) {
  auto hosts = Expand("n[00001-10000]");
  ASSERT_EQ(hosts.size(), 10000u);
  EXPECT_EQ(hosts.front(), "n00001");
  EXPECT_EQ(hosts.back(), "n10000");
}

TEST(Hostlist, MalformedExpressionsAreRejectedWithTheReason) {
  EXPECT_NE(ErrorOf("").find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1-3").find("never closed"), std::string::npos);
  EXPECT_NE(ErrorOf("n1-3]").find("unmatched ']'"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1-[2]]").find("nested"), std::string::npos);
  EXPECT_NE(ErrorOf("n1,,n2").find("empty host name"), std::string::npos);
  EXPECT_NE(ErrorOf("n1,").find("empty host name"), std::string::npos);
  EXPECT_NE(ErrorOf(",n1").find("empty host name"), std::string::npos);
  EXPECT_NE(ErrorOf("n[]").find("empty range"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1,,2]").find("empty range"), std::string::npos);
  EXPECT_NE(ErrorOf("n[a-c]").find("'a-c' is not N or N-M"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1-]").find("'1-' is not N or N-M"), std::string::npos);
  EXPECT_NE(ErrorOf("n[-3]").find("not N or N-M"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1-2-3]").find("not N or N-M"), std::string::npos);
  EXPECT_NE(ErrorOf("n[+1]").find("not N or N-M"), std::string::npos);
  EXPECT_NE(ErrorOf("n[5-3]").find("descending"), std::string::npos);
  EXPECT_NE(ErrorOf("n1 n2").find("whitespace"), std::string::npos);
  EXPECT_NE(ErrorOf("n[1-9999999999999999999]").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf("n[0-99999999]").find("more than"), std::string::npos);
  EXPECT_NE(ErrorOf("a[1-2000]b[1-2000]").find("more than"), std::string::npos);
}

// The host count alone did not bound the memory: slurm_env_fuzz found a 600-byte list of
// bracket groups that expanded to a million names of 600 characters (over 2 GB). A name
// is at most 255 characters, as a DNS name.
TEST(Hostlist, HostNamesAreAtMost255Characters) {
  const std::string longest(254, 'n');
  EXPECT_EQ(Expand(longest + "[8-9]"), (Hosts{longest + "8", longest + "9"}));
  EXPECT_EQ(ErrorOf(longest + "[9-10]"),
            "hostlist '" + longest + "[9-10]': a host name longer than 255 characters");
  EXPECT_NE(ErrorOf(std::string(256, 'n')).find("a host name longer than 255 characters"),
            std::string::npos);
  // Each group's number lengthens every name: 50 groups make names of 300 characters.
  std::string groups;
  for (int i = 0; i < 50; ++i) groups += "rack[01]";
  EXPECT_NE(ErrorOf(groups).find("longer than 255"), std::string::npos);
}

TEST(Hostlist, ErrorNamesTheWholeExpression) {
  EXPECT_EQ(ErrorOf("n[5-3]"), "hostlist 'n[5-3]': range '5-3' is descending");
}

}  // namespace
}  // namespace psched::slurm
