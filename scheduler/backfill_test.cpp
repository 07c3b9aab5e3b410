#include "scheduler/backfill.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/allocator_registry.hpp"
#include "scheduler/placement.hpp"

namespace psched::sched {
namespace {

// `n` single-core nodes.
Snapshot Machine(int n) {
  Snapshot s;
  for (int i = 0; i < n; ++i) s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 1, 1)));
  return s;
}

SessionRequest Request(SessionId id, int ranks, double estimate) {
  SessionRequest r;
  r.id = id;
  r.ranks = ranks;
  r.estimate_s = estimate;
  return r;
}

// Starts `r` now on exactly these nodes.
void RunOn(Snapshot& s, const SessionRequest& r, std::vector<NodeId> nodes) {
  Placement p;
  for (size_t i = 0; i < nodes.size(); ++i)
    p.ranks.push_back(RankSlots{static_cast<int>(i), nodes[i], {0}});
  ApplyPlan(s, Plan{{StartRanksAction{r.id, p, false}}}, &r);
}

std::optional<Placement> Compact(std::span<const Node> nodes, const SessionRequest& r) {
  return PlaceRanks(nodes, r);
}

std::vector<SessionId> Started(const QueueDecision& d) {
  std::vector<SessionId> ids;
  ids.reserve(d.starts.size());
  for (const Assignment& a : d.starts) ids.push_back(a.session);
  return ids;
}

TEST(ScheduleQueueTest, FcfsStartsFromTheHeadAndStopsAtTheFirstThatDoesNotFit) {
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 2, 100), {0, 1});
  std::vector<SessionRequest> queue = {Request(2, 1, 10), Request(3, 2, 10), Request(4, 1, 10)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kNone, Compact);
  EXPECT_EQ(Started(d), std::vector<SessionId>{2});  // 4 would fit but must not pass 3
  EXPECT_FALSE(d.reservation);
  EXPECT_EQ(d.starts[0].placement.Nodes(), std::vector<NodeId>{2});
}

TEST(ScheduleQueueTest, LongJobOffTheReservedSlotsIsBackfilled) {
  // A (3 cores) runs until 100; B wants 2: shadow 100, reserved on A's first nodes.
  // C (1 core, 1000 s) runs past the shadow time but the free node is not reserved.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 3, 100), {0, 1, 2});
  std::vector<SessionRequest> queue = {Request(2, 2, 10), Request(3, 1, 1000)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  ASSERT_TRUE(d.reservation);
  EXPECT_EQ(d.reservation->session, 2);
  EXPECT_EQ(d.reservation->start, 100);
  EXPECT_EQ(d.reservation->placement.Nodes(), (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(Started(d), std::vector<SessionId>{3});
  EXPECT_EQ(d.starts[0].placement.Nodes(), std::vector<NodeId>{3});
  d = ScheduleQueue(s, queue, Backfill::kNone, Compact);
  EXPECT_TRUE(d.starts.empty());
  EXPECT_FALSE(d.reservation);
}

TEST(ScheduleQueueTest, ALongJobOnReservedSlotsWaitsAShortOneStarts) {
  // A (3 cores) until 100; the head needs all 4: every free slot is reserved.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 3, 100), {0, 1, 2});
  s.now = 10;
  std::vector<SessionRequest> queue = {Request(2, 4, 10), Request(3, 1, 91), Request(4, 1, 90)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  EXPECT_EQ(Started(d), std::vector<SessionId>{4});  // 10 + 90 <= 100; 10 + 91 is not
}

TEST(ScheduleQueueTest, SessionsEndingTogetherFreeTheirSlotsTogether) {
  // A on node 0 and B on node 1 both end at 100; C holds node 2 until 1000. The head
  // needs 2 nodes: at 100 it gets nodes 0 and 1. D (long) on node 3 does not delay it.
  // Releasing A alone would leave the head nodes 0 and 3 and refuse D.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 1, 100), {0});
  RunOn(s, Request(2, 1, 100), {1});
  RunOn(s, Request(3, 1, 1000), {2});
  std::vector<SessionRequest> queue = {Request(4, 2, 10), Request(5, 1, 5000)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  ASSERT_TRUE(d.reservation);
  EXPECT_EQ(d.reservation->placement.Nodes(), (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(Started(d), std::vector<SessionId>{5});
}

TEST(ScheduleQueueTest, ACandidateWithoutEstimateMayUseOnlyUnreservedSlots) {
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 2, 100), {0, 1});
  // The head needs 3 nodes at 100 (0, 1, 2): node 3 stays unreserved.
  std::vector<SessionRequest> queue = {Request(2, 3, 10), Request(3, 2, 0), Request(4, 1, 0)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  EXPECT_EQ(Started(d), std::vector<SessionId>{4});
  EXPECT_EQ(d.starts[0].placement.Nodes(), std::vector<NodeId>{3});  // off the head's node 2
}

TEST(ScheduleQueueTest, AHolderWithoutEstimateLeavesTheShadowTimeUnknown) {
  // A (no estimate) holds nodes 0-1; the head needs 3 nodes: it must wait for A, whose end
  // nobody knows. A short job would "end before" an infinite shadow time, yet it could
  // still delay the head if A ends early: it must stay off the reserved slots too.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 2, 0), {0, 1});
  std::vector<SessionRequest> queue = {Request(2, 3, 10), Request(3, 2, 5), Request(4, 1, 5)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  ASSERT_TRUE(d.reservation);
  EXPECT_TRUE(std::isinf(d.reservation->start));
  EXPECT_EQ(Started(d), std::vector<SessionId>{4});
  EXPECT_EQ(d.starts[0].placement.Nodes(), std::vector<NodeId>{3});
}

TEST(ScheduleQueueTest, NoBackfillWhileASessionIsSuspended) {
  // A suspended session returns to its slots at an unknown time: no reservation holds.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 2, 100), {0, 1});
  RunOn(s, Request(9, 1, 100), {2});
  ApplyPlan(s, Plan{{SuspendAction{9, 1}}});
  ++s.nodes[2].uses[0];  // its slot stays taken, as policies' ReservedView counts it
  std::vector<SessionRequest> queue = {Request(2, 3, 10), Request(3, 1, 1)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  EXPECT_TRUE(d.starts.empty());
  EXPECT_FALSE(d.reservation);
}

TEST(ScheduleQueueTest, NoBackfillWhenTheHeadNeverFits) {
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 2, 100), {0, 1});
  std::vector<SessionRequest> queue = {Request(2, 1, 10), Request(3, 1, 1)};
  auto refuse_head = [](std::span<const Node> nodes, const SessionRequest& r) {
    return r.id == 2 ? std::nullopt : PlaceRanks(nodes, r);
  };
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, refuse_head);
  EXPECT_TRUE(d.starts.empty());
}

TEST(ScheduleQueueTest, SessionsStartedInTheRoundCountInTheReservation) {
  // 1 runs on node 0 until 100. The queue's first (1 node, 500 s) starts now on node 1;
  // the head (3 nodes) then waits until 100 on nodes 0, 2, 3, not on the new one's.
  Snapshot s = Machine(4);
  RunOn(s, Request(1, 1, 100), {0});
  std::vector<SessionRequest> queue = {Request(2, 1, 500), Request(3, 3, 10), Request(4, 1, 1000)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, Compact);
  ASSERT_TRUE(d.reservation);
  EXPECT_EQ(d.reservation->start, 100);
  EXPECT_EQ(d.reservation->placement.Nodes(), (std::vector<NodeId>{0, 2, 3}));
  EXPECT_EQ(Started(d), std::vector<SessionId>{2});  // 4 would take a reserved node
}

TEST(ScheduleQueueTest, ARequestShapeWithoutRoomIsNotAskedAgainUntilAStart) {
  // Nodes 2-4 free; the head needs all 5 at 100. 3 (2 nodes, long) fits now but not off
  // the head's nodes; 4, of the same shape, is not asked again; 5 (short) starts; then
  // 6, of the same shape as 3, is asked again: the nodes changed.
  Snapshot s = Machine(5);
  RunOn(s, Request(1, 2, 100), {0, 1});
  int asked_for_two = 0;
  auto counting = [&](std::span<const Node> nodes, const SessionRequest& r) {
    if (r.ranks == 2) ++asked_for_two;
    return PlaceRanks(nodes, r);
  };
  std::vector<SessionRequest> queue = {Request(2, 5, 10), Request(3, 2, 1000), Request(4, 2, 1000),
                                       Request(5, 1, 1), Request(6, 2, 1000)};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kEasy, counting);
  EXPECT_EQ(Started(d), std::vector<SessionId>{5});
  EXPECT_EQ(asked_for_two, 4);  // 3: now and beside the head; 6: the same; 4: not at all
}

TEST(ScheduleQueueTest, AllocatorSelectorPlacesLikeTheAllocator) {
  Snapshot s;
  for (int i = 0; i < 2; ++i) s.nodes.push_back(Node::Make(i, "n", NodeTopology::Uniform(1, 4, 1)));
  std::unique_ptr<Allocator> spread = *MakeAllocator("spread");
  SessionRequest r = Request(1, 2, 0);
  std::vector<SessionRequest> queue = {r};
  QueueDecision d = ScheduleQueue(s, queue, Backfill::kNone, AllocatorSelector(*spread, s));
  ASSERT_EQ(d.starts.size(), 1u);
  EXPECT_EQ(d.starts[0].placement, *spread->PlaceOne(s, r));
  EXPECT_EQ(d.starts[0].placement.Nodes(), (std::vector<NodeId>{0, 1}));
}

}  // namespace
}  // namespace psched::sched
