#include "scheduler/priorities/owner_histories.hpp"

#include <gtest/gtest.h>

#include "scheduler/priorities/priority_registry.hpp"

namespace psched::sched::prio {
namespace {

Session Queued(SessionId id, const std::string& owner, double submit, double estimate) {
  Session s;
  s.request.id = id;
  s.request.owner = owner;
  s.request.submit_time = submit;
  s.request.estimate_s = estimate;
  return s;
}

TEST(OwnerHistories, ASessionKeepsItsOwnersHistoryAsAtSubmission) {
  OwnerHistories h;
  h.Finished(1, "ann", 100, 100);
  h.Submitted(2, "ann");
  h.Finished(3, "ann", 100, 1);  // ends after 2 arrived: not in 2's view
  h.Submitted(4, "ann");
  ASSERT_EQ(h.AtSubmission(2).size(), 1u);
  EXPECT_EQ(h.AtSubmission(4).size(), 2u);
  EXPECT_TRUE(h.AtSubmission(99).empty());
  h.Forget(2);
  EXPECT_TRUE(h.AtSubmission(2).empty());
}

TEST(OwnerHistories, KeepsOnlyTheLastJobsOfAnOwner) {
  OwnerHistories h(3);
  for (int i = 0; i < 5; ++i) h.Finished(i, "bob", 10, i);
  h.Submitted(9, "bob");
  auto view = h.AtSubmission(9);
  ASSERT_EQ(view.size(), 3u);
  EXPECT_EQ(view.front().runtime_s, 2);
  EXPECT_EQ(view.back().runtime_s, 4);
}

// PSP: an owner whose estimates were far off waits behind an accurate one, whatever
// the arrival order; running sessions keep their priority.
TEST(AssignPriorities, PspOrdersTheQueueByTheOwnersAccuracyAtSubmission) {
  auto psp = MakePriority("psp");
  ASSERT_TRUE(psp);
  OwnerHistories h;
  for (int i = 0; i < 10; ++i) h.Finished(100 + i, "sloppy", 1000, 10);  // accuracy 0.01
  for (int i = 0; i < 10; ++i) h.Finished(200 + i, "careful", 100, 95);  // accuracy 0.95
  Snapshot snap;
  snap.now = 50;
  snap.sessions = {Queued(1, "sloppy", 0, 100), Queued(2, "careful", 10, 100)};
  Session running = Queued(3, "careful", 0, 100);
  running.state = SessionState::kRunning;
  running.request.priority = -7;
  snap.sessions.push_back(running);
  h.Submitted(1, "sloppy");
  h.Submitted(2, "careful");
  AssignPriorities(**psp, h, snap);
  EXPECT_LT(snap.sessions[0].request.priority, snap.sessions[1].request.priority);
  EXPECT_EQ(snap.sessions[2].request.priority, -7);
}

}  // namespace
}  // namespace psched::sched::prio
