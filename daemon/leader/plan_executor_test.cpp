// The admin's plan timeouts in PlanExecutor ([policy] plan_timeout_s and
// suspend_confirm_timeout_s, config/config.hpp): the configured seconds, not the
// built-in ones, decide when a silent node fails a plan and how long nodes may take
// to confirm a suspend. Node replies are scripted; the timer is the test's.
#include "daemon/leader/plan_executor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "config/config.hpp"

namespace psched::daemon {
namespace {

using Json = proto::Json;

// Session 1: one rank on each of nodes 0, 1 and 2. Session 2: suspended, on node 1.
sched::Snapshot Sessions() {
  sched::Snapshot s;
  sched::Session a;
  a.request.id = 1;
  a.state = sched::SessionState::kRunning;
  for (int n = 0; n < 3; ++n) a.placement.ranks.push_back({n, n, {0}});
  a.original = a.placement;
  sched::Session b = a;
  b.request.id = 2;
  b.state = sched::SessionState::kSuspended;
  b.placement.ranks = {{0, 1, {1}}};
  b.original = b.placement;
  s.sessions = {a, b};
  return s;
}

// An executor built the way the leader builds it: from a parsed admin config.
struct Harness {
  explicit Harness(const config::Config& c)
      : executor(
            [this](int node, const std::string& data) { sent[node].push_back(Json::parse(data)); },
            [this](int64_t txn, double seconds) { timers.emplace_back(txn, seconds); },
            c.plan_timeout_s, c.suspend_confirm_timeout_s) {}
  void Reply(int node, bool ok, std::vector<int> done) {
    executor.OnReply(Json{
        {"txn", sent.at(node).back()["txn"]},
        {"node", node},
        {"ok", ok},
        {"done", done}}.dump());
  }
  std::map<int, std::vector<Json>> sent;           // node -> orders, in order
  std::vector<std::pair<int64_t, double>> timers;  // (txn, seconds) armed
  PlanExecutor executor;
  std::optional<Result<void>> result;
};

config::Config Configured(std::string_view toml) {
  auto c = config::ParseConfig(toml, "t.toml");
  EXPECT_TRUE(c) << c.error().message();
  return c ? *c : config::DefaultConfig();
}

TEST(PlanTimeoutsTest, DefaultsAreTheBuiltInOnes) {
  Harness h(config::DefaultConfig());
  EXPECT_DOUBLE_EQ(h.executor.timeout_s(), 10);
  EXPECT_DOUBLE_EQ(h.executor.confirm_s(), 5);
  EXPECT_DOUBLE_EQ(PlanExecutor::kDefaultTimeoutS, config::DefaultConfig().plan_timeout_s);
  EXPECT_DOUBLE_EQ(PlanExecutor::kDefaultConfirmS,
                   config::DefaultConfig().suspend_confirm_timeout_s);
}

// A node that never answers fails the plan after the configured seconds (plus the
// surpass grace): the plan is rolled back and the report names those seconds.
TEST(PlanTimeoutsTest, ASilentNodeFailsThePlanAfterTheConfiguredTimeout) {
  Harness h(Configured("[policy]\nplan_timeout_s = 2.5\nsuspend_confirm_timeout_s = 0.75\n"));
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  h.executor.Run(Sessions(), plan, 0.5, [&](Result<void> r) { h.result = r; });
  ASSERT_EQ(h.timers.size(), 1u);
  EXPECT_DOUBLE_EQ(h.timers[0].second, 3.0) << "plan_timeout_s plus the surpass grace";
  h.Reply(0, true, {0});
  h.Reply(1, true, {0});
  h.executor.OnTimeout(h.timers[0].first);  // node 2 never answered
  ASSERT_EQ(h.timers.size(), 2u);
  EXPECT_DOUBLE_EQ(h.timers[1].second, 2.5) << "the rollback gets plan_timeout_s too";
  for (int n : {0, 1, 2}) {
    ASSERT_EQ(h.sent[n].size(), 2u) << "node " << n;
    EXPECT_EQ(h.sent[n][1]["ops"][0]["op"], "resume") << "node " << n;
  }
  h.Reply(0, true, {0});
  h.Reply(1, true, {0});
  ASSERT_TRUE(h.result.has_value());
  ASSERT_FALSE(h.result->has_value()) << "a plan with a silent node must fail";
  const std::string& why = h.result->error().message();
  EXPECT_NE(why.find("node 2 did not answer within 2.5 s (step suspend session 1)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("[policy] plan_timeout_s"), std::string::npos) << why;
  EXPECT_NE(why.find("rolled back on nodes 0, 1"), std::string::npos) << why;
}

// Every suspend order carries the configured confirmation time (the nodes use it,
// cosched_node_test), also the suspend that undoes a resume.
TEST(PlanTimeoutsTest, SuspendOrdersCarryTheConfiguredConfirmationTime) {
  Harness h(Configured("[policy]\nsuspend_confirm_timeout_s = 1.25\n"));
  sched::Plan plan;
  plan.actions.push_back(sched::SuspendAction{1, 3});
  plan.actions.push_back(sched::ResumeAction{2});
  h.executor.Run(Sessions(), plan, 0, [&](Result<void> r) { h.result = r; });
  ASSERT_EQ(h.sent.size(), 3u);
  for (int n : {0, 1, 2}) {
    ASSERT_EQ(h.sent[n].size(), 1u) << "node " << n;
    EXPECT_EQ(h.sent[n][0]["ops"][0]["op"], "suspend") << "node " << n;
    EXPECT_DOUBLE_EQ(h.sent[n][0]["ops"][0].value("confirm_s", 0.0), 1.25) << "node " << n;
  }
  EXPECT_DOUBLE_EQ(h.timers.at(0).second, 10) << "plan_timeout_s keeps its default";
  // Node 1 fails the resume: its undo suspends session 2 again, with the same time.
  h.Reply(0, true, {0});
  h.Reply(2, true, {0});
  h.Reply(1, false, {0});
  ASSERT_EQ(h.sent[1].size(), 2u);
  const Json& undo = h.sent[1][1]["ops"];
  ASSERT_EQ(undo.size(), 2u) << undo.dump();
  EXPECT_EQ(undo[0]["op"], "suspend") << undo.dump();
  EXPECT_EQ(undo[0]["session"], 2) << undo.dump();
  EXPECT_DOUBLE_EQ(undo[0].value("confirm_s", 0.0), 1.25) << undo.dump();
  EXPECT_EQ(undo[1]["op"], "resume") << undo.dump();
}

}  // namespace
}  // namespace psched::daemon
