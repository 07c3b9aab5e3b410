#include "scheduler/leader/failure_report.hpp"

#include <gtest/gtest.h>
#include <signal.h>

namespace psched::sched::leader {
namespace {

std::string Node(int n) {
  return "node " + std::to_string(n);
}

RankExit Exit(int rank, int node, int code, int signal, std::string cause) {
  return {4, rank, node, code, signal, std::move(cause)};
}

TEST(DescribeFailures, TheFirstAloneWhenTheOthersEndedAtTheKill) {
  EXPECT_EQ(
      DescribeFailures("rank 1 exited with status 7", {Exit(0, 0, 143, SIGTERM, "t")}, 1, Node),
      "rank 1 exited with status 7");
}

TEST(DescribeFailures, OtherFailuresAndRanksThatOutlivedSigtermAreListed) {
  std::vector<RankExit> later = {
      Exit(0, 0, 1, 0, "exited with status 1"),
      Exit(2, 1, 143, SIGTERM, "killed by signal 15 (Terminated)"),
      Exit(3, 1, 137, SIGKILL, "killed by signal 9 (Killed)"),
  };
  EXPECT_EQ(DescribeFailures("first", later, 1.5, Node),
            "first\n"
            "  also rank 0 on node 0 exited with status 1\n"
            "  also rank 3 on node 1 outlived SIGTERM and was killed after 1.5 s");
  // Without a grace SIGKILL is the kill itself.
  EXPECT_EQ(DescribeFailures("first", later, 0, Node),
            "first\n  also rank 0 on node 0 exited with status 1");
}

TEST(DescribeFailures, ManyFailuresAreCountedBeyondTheListed) {
  std::vector<RankExit> later;
  for (int r = 0; r < static_cast<int>(kMaxListedFailures) + 3; ++r)
    later.push_back(Exit(r, 0, 2, 0, "exited with status 2"));
  std::string text = DescribeFailures("first", later, 1, Node);
  EXPECT_NE(text.find("also rank 7 on node 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("also rank 8 "), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("\n  and 3 more ranks")) << text;
}

}  // namespace
}  // namespace psched::sched::leader
