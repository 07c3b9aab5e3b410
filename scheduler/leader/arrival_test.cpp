#include "scheduler/leader/arrival.hpp"

#include <gtest/gtest.h>

#include "scheduler/allocator_registry.hpp"

namespace psched::sched::leader {
namespace {

sched::Snapshot TwoNodes() {
  sched::Snapshot s;
  s.nodes.push_back(sched::Node::Make(0, "a", sched::NodeTopology::Uniform(1, 4, 1)));
  s.nodes.push_back(sched::Node::Make(1, "b", sched::NodeTopology::Uniform(1, 4, 1)));
  return s;
}

sched::SessionRequest Request(int ranks, int threads = 1) {
  sched::SessionRequest r;
  r.id = 1;
  r.ranks = ranks;
  r.threads_per_rank = threads;
  return r;
}

std::string RejectReason(const sched::Plan& plan) {
  if (plan.actions.size() != 1) return "";
  const auto* r = std::get_if<sched::RejectAction>(&plan.actions[0]);
  return r ? r->reason : "";
}

TEST(Arrival, SpawnsWhatFits) {
  auto alloc = sched::MakeAllocator("compact");
  ASSERT_TRUE(alloc);
  sched::Plan plan = DecideArrival(TwoNodes(), Request(6), **alloc);
  ASSERT_EQ(plan.actions.size(), 1u);
  const auto* start = std::get_if<sched::StartRanksAction>(&plan.actions[0]);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->placement.ranks.size(), 6u);
}

TEST(Arrival, TooBigForTheAllocationSaysSo) {
  auto alloc = sched::MakeAllocator("compact");
  std::string why = RejectReason(DecideArrival(TwoNodes(), Request(5, 2), **alloc));
  EXPECT_NE(why.find("needs 10 slots"), std::string::npos) << why;
  EXPECT_NE(why.find("8 slots in all"), std::string::npos) << why;
}

TEST(Arrival, SlotCountThatOverflowsAnIntIsRejectedNotWrapped) {
  auto alloc = sched::MakeAllocator("compact");
  std::string why = RejectReason(DecideArrival(TwoNodes(), Request(65536, 65536), **alloc));
  EXPECT_NE(why.find("needs 4294967296 slots"), std::string::npos) << why;
}

TEST(Arrival, BusySlotsNameFreeCountAndPolicies) {
  auto alloc = sched::MakeAllocator("compact");
  sched::Snapshot s = TwoNodes();
  s.nodes[0].uses = {1, 1, 1, 1};
  std::string why = RejectReason(DecideArrival(s, Request(6), **alloc));
  EXPECT_NE(why.find("4 of 8 are free"), std::string::npos) << why;
  EXPECT_NE(why.find("--policy"), std::string::npos) << why;
}

TEST(Arrival, RejectsZeroRanksAndTooManyNodes) {
  auto alloc = sched::MakeAllocator("compact");
  EXPECT_NE(RejectReason(DecideArrival(TwoNodes(), Request(0), **alloc)).find("-n"),
            std::string::npos);
  sched::SessionRequest r = Request(2);
  r.nodes = 3;
  EXPECT_NE(RejectReason(DecideArrival(TwoNodes(), r, **alloc)).find("-N 3"), std::string::npos);
}

}  // namespace
}  // namespace psched::sched::leader
