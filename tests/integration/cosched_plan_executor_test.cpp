// PlanExecutor (daemon/leader/plan_executor.hpp) with scripted node replies: a plan is a
// transaction across nodes, committed only when every node confirmed, otherwise
// what was done is undone and the failure reported.
#include "daemon/leader/plan_executor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

namespace psched::daemon {
namespace {

using Json = proto::Json;

sched::Placement OnePerNode(std::vector<int> nodes, std::vector<int> pus) {
  sched::Placement p;
  for (size_t i = 0; i < nodes.size(); ++i)
    p.ranks.push_back({static_cast<int>(i), nodes[i], {pus[i]}});
  return p;
}

sched::Snapshot TwoSessions() {
  sched::Snapshot s;
  sched::Session a;
  a.request.id = 1;
  a.state = sched::SessionState::kRunning;
  a.placement = OnePerNode({0, 1, 2}, {0, 0, 0});
  a.original = a.placement;
  sched::Session b = a;
  b.request.id = 2;
  b.placement = OnePerNode({1, 2}, {5, 6});
  b.original = b.placement;
  s.sessions = {a, b};
  return s;
}

struct Harness {
  std::map<int, std::vector<Json>> sent;           // node -> orders, in order
  std::vector<std::pair<int64_t, double>> timers;  // (txn, seconds) armed
  PlanExecutor executor{
      [this](int node, const std::string& data) { sent[node].push_back(Json::parse(data)); },
      [this](int64_t txn, double seconds) { timers.emplace_back(txn, seconds); }, 10};
  std::optional<Result<void>> result;
  void Reply(int node, bool ok, std::vector<int> done, const std::string& error = "") {
    const Json& order = sent.at(node).back();
    Json r{{"txn", order["txn"]}, {"node", node}, {"ok", ok}, {"done", done}};
    if (!ok) r["error"] = error;
    executor.OnReply(r.dump());
  }
};

TEST(PlanExecutorTest, PlanWithoutNodeOperationsCompletesAtOnce) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::StartRanksAction{3, OnePerNode({0}, {1})});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  ASSERT_TRUE(h.result.has_value());
  EXPECT_TRUE(h.result->has_value());
  EXPECT_TRUE(h.sent.empty());
  EXPECT_FALSE(h.executor.busy());
}

TEST(PlanExecutorTest, SuspendGoesToEveryNodeOfTheSessionAndCommitsWhenAllConfirm) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  h.executor.Run(TwoSessions(), plan, 0.5, [&](Result<void> r) { h.result = r; });
  ASSERT_EQ(h.sent.size(), 3u);
  for (int n : {0, 1, 2}) {
    ASSERT_EQ(h.sent[n].size(), 1u);
    EXPECT_EQ(h.sent[n][0]["ops"][0]["op"], "suspend");
    EXPECT_EQ(h.sent[n][0]["ops"][0]["session"], 1);
    EXPECT_EQ(h.sent[n][0]["ops"][0]["grace_s"], 0.5);
  }
  EXPECT_TRUE(h.executor.busy());
  h.Reply(0, true, {0});
  h.Reply(2, true, {0});
  EXPECT_FALSE(h.result.has_value()) << "committed before node 1 confirmed";
  h.Reply(1, true, {0});
  ASSERT_TRUE(h.result.has_value());
  EXPECT_TRUE(h.result->has_value());
  EXPECT_FALSE(h.executor.busy());
}

TEST(PlanExecutorTest, AFailingNodeRollsBackWhatTheOthersDid) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  sched::Placement moved = OnePerNode({1, 2}, {7, 8});
  plan.actions.push_back(sched::RepinAction{2, moved, 3});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  ASSERT_EQ(h.sent[1][0]["ops"].size(), 2u);
  EXPECT_EQ(h.sent[1][0]["ops"][1]["ranks"][0]["pus"], Json::array({7}));
  h.Reply(0, true, {0});
  h.Reply(1, true, {0, 1});
  h.Reply(2, false, {0}, "node 2: thread 77 of process 12 is bound to 0-1 after re-pinning");
  EXPECT_FALSE(h.result.has_value()) << "reported before the rollback finished";
  // Node 1 undoes its re-pin (back to slot 5) and then its suspend, in reverse order.
  ASSERT_EQ(h.sent[1].size(), 2u);
  Json undo = h.sent[1][1]["ops"];
  ASSERT_EQ(undo.size(), 2u);
  EXPECT_EQ(undo[0]["op"], "repin");
  EXPECT_EQ(undo[0]["ranks"][0]["pus"], Json::array({5}));
  EXPECT_EQ(undo[1]["op"], "resume");
  ASSERT_EQ(h.sent[0].size(), 2u);
  EXPECT_EQ(h.sent[0][1]["ops"][0]["op"], "resume");
  // Node 2's suspend was done before its re-pin failed; the re-pin may be half done
  // (some ranks moved): both are undone, the re-pin first.
  ASSERT_EQ(h.sent[2].size(), 2u);
  ASSERT_EQ(h.sent[2][1]["ops"].size(), 2u);
  EXPECT_EQ(h.sent[2][1]["ops"][0]["op"], "repin");
  EXPECT_EQ(h.sent[2][1]["ops"][0]["ranks"][0]["pus"], Json::array({6}));
  EXPECT_EQ(h.sent[2][1]["ops"][1]["op"], "resume");
  h.Reply(0, true, {0});
  h.Reply(1, true, {0, 1});
  h.Reply(2, true, {0, 1});
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value());
  EXPECT_NE(h.result->error().message().find("node 2 failed step 're-pin session 2'"),
            std::string::npos)
      << h.result->error().message();
  EXPECT_NE(h.result->error().message().find("thread 77"), std::string::npos)
      << h.result->error().message();
  EXPECT_FALSE(h.executor.busy());
}

TEST(PlanExecutorTest, ALostNodeFailsThePlan) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::ResumeAction{2});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  h.Reply(1, true, {0});
  h.executor.NodesLost({2});
  // Node 1 resumed: the rollback suspends it again.
  ASSERT_EQ(h.sent[1].size(), 2u);
  EXPECT_EQ(h.sent[1][1]["ops"][0]["op"], "suspend");
  h.Reply(1, true, {0});
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value());
  EXPECT_NE(h.result->error().message().find("node 2 was lost"), std::string::npos);
  EXPECT_NE(h.result->error().message().find("rolled back on node 1"), std::string::npos)
      << h.result->error().message();
}

TEST(PlanExecutorTest, StaleRepliesAreIgnored) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{2, 3});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  h.executor.OnReply(Json{{"txn", 999}, {"node", 1}, {"ok", true}, {"done", {0}}}.dump());
  h.executor.OnReply("not json");
  h.Reply(1, true, {0});
  EXPECT_FALSE(h.result.has_value());
  h.Reply(2, true, {0});
  ASSERT_TRUE(h.result.has_value());
  EXPECT_TRUE(h.result->has_value());
}

TEST(PlanExecutorTest, TheFailingStepIsNamedAndUndoneToo) {
  // A suspend that fails half way (some processes stopped, one not) must be undone
  // on that node as well: its resume goes out with the others'.
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  h.Reply(0, true, {0});
  h.Reply(1, true, {0});
  h.Reply(2, false, {}, "node 2: process 4242 did not stop (state D)");
  for (int n : {0, 1, 2}) {
    ASSERT_EQ(h.sent[n].size(), 2u) << "node " << n;
    EXPECT_EQ(h.sent[n][1]["ops"], Json::array({Json{{"op", "resume"}, {"session", 1}}}));
  }
  for (int n : {0, 1, 2}) h.Reply(n, true, {0});
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value());
  const std::string& why = h.result->error().message();
  EXPECT_NE(why.find("node 2 failed step 'suspend session 1': process 4242 did not stop"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("rolled back on nodes 0, 1, 2"), std::string::npos) << why;
}

TEST(PlanExecutorTest, ASilentNodeTimesOutAndIsSentTheWholeUndo) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  h.executor.Run(TwoSessions(), plan, 2.5, [&](Result<void> r) { h.result = r; });
  ASSERT_EQ(h.timers.size(), 1u);
  EXPECT_DOUBLE_EQ(h.timers[0].second, 12.5) << "the timeout covers the surpass grace";
  int64_t txn = h.timers[0].first;
  h.Reply(0, true, {0});
  h.Reply(1, true, {0});
  h.executor.OnTimeout(txn + 100);  // a stale timer: ignored
  EXPECT_TRUE(h.executor.busy());
  h.executor.OnTimeout(txn);
  // Everyone gets the undo, the silent node too (it runs orders in order if it wakes),
  // but only the nodes that answered are waited for.
  for (int n : {0, 1, 2}) {
    ASSERT_EQ(h.sent[n].size(), 2u) << "node " << n;
    EXPECT_EQ(h.sent[n][1]["ops"][0]["op"], "resume") << "node " << n;
  }
  ASSERT_EQ(h.timers.size(), 2u);
  EXPECT_FALSE(h.result.has_value());
  h.Reply(0, true, {0});
  h.Reply(1, true, {0});
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value());
  const std::string& why = h.result->error().message();
  EXPECT_NE(why.find("node 2 did not answer within 10 s (step suspend session 1)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("rolled back on nodes 0, 1"), std::string::npos) << why;
  EXPECT_NE(why.find("node 2 will undo when it answers"), std::string::npos) << why;
  EXPECT_FALSE(h.executor.busy());
}

TEST(PlanExecutorTest, ANodeSilentDuringTheRollbackEndsTheTransactionToo) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::ResumeAction{2});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  h.Reply(1, true, {0});
  h.Reply(2, false, {}, "boom");
  ASSERT_EQ(h.timers.size(), 2u);
  h.Reply(2, true, {0});
  h.executor.OnTimeout(h.timers.back().first);  // node 1 never confirms its undo
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value());
  const std::string& why = h.result->error().message();
  EXPECT_NE(why.find("node 2 failed step 'resume session 2': boom"), std::string::npos) << why;
  EXPECT_NE(why.find("the rollback is incomplete: node 1 did not answer"), std::string::npos)
      << why;
  EXPECT_FALSE(h.executor.busy());
}

TEST(PlanExecutorTest, AllNodesSilentStillFinishes) {
  Harness h;
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{2, 3});
  h.executor.Run(TwoSessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  h.executor.OnTimeout(h.timers.back().first);
  ASSERT_TRUE(h.result.has_value()) << "nobody to wait for: the rollback is only sent";
  ASSERT_FALSE(h.result->has_value());
  EXPECT_EQ(h.sent[1].size(), 2u);
  EXPECT_EQ(h.sent[2].size(), 2u);
  EXPECT_FALSE(h.executor.busy());
}

}  // namespace
}  // namespace psched::daemon
