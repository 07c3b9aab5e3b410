// A co-scheduling plan is a transaction across nodes (daemon/leader/plan_executor.hpp):
// these tests make one fail on one node for a real reason while it runs on the
// others (a daemon killed, a daemon stopped, a rank SIGSTOP cannot stop) and check
// for real that the other nodes are rolled back (process states from /proc,
// pinning unchanged), that the launcher is told which node and which step failed,
// that the daemons keep serving, and that a failed end-of-session plan is retried
// by the periodic round without stranding the queue.
//
// Emulated allocation: 4 nodes x 4 PUs, compact placement (a session of 8 ranks
// fills two nodes, the lowest free first).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::testing {
namespace {

using Json = nlohmann::json;
constexpr int kNodes = 4;

class CoschedRollbackTest : public ::testing::Test {
 protected:
  void TearDown() override {
    // A daemon the test stopped must not hold up the allocation's shutdown.
    for (pid_t pid : stopped_) kill(pid, SIGCONT);
    alloc_.reset();
  }
  void StartAlloc(const std::string& toml = "") {
    alloc_ = std::make_unique<EmulatedAlloc>(kNodes, "pack:1 core:4 pu:1", 8, toml);
    ASSERT_TRUE(alloc_->ok()) << alloc_->Diagnosis();
  }
  void StopDaemon(int node) {
    pid_t pid = alloc_->DaemonPid(node);
    ASSERT_GT(pid, 0);
    stopped_.push_back(pid);
    ASSERT_EQ(kill(pid, SIGSTOP), 0);
    ASSERT_TRUE(Eventually([&] { return ProcessState(pid) == 'T'; }));
  }
  void ContinueDaemon(int node) { kill(alloc_->DaemonPid(node), SIGCONT); }

  std::unique_ptr<Proc> Exec(std::vector<std::string> args) {
    return alloc_->Exec(std::move(args));
  }
  Json Status() { return alloc_->Status(); }
  Json Session(int id) { return SessionOf(Status(), id); }
  bool SessionIs(int id, const std::string& detail) {
    return Session(id).value("state_detail", "") == detail;
  }
  // The rank processes of session `id` (named `comm`) in this allocation, by rank.
  std::map<int, RankProc> Ranks(int id, const std::string& comm) {
    std::map<int, RankProc> out;
    for (RankProc& r : AllocationRanks(alloc_->dir(), comm))
      if (r.session == id) out[r.rank] = std::move(r);
    return out;
  }
  // Waits until session `id` has `count` ranks named `comm`; returns them.
  std::map<int, RankProc> WaitRanks(int id, const std::string& comm, int count) {
    std::map<int, RankProc> ranks;
    EXPECT_TRUE(Eventually(
        [&] {
          ranks = Ranks(id, comm);
          return static_cast<int>(ranks.size()) == count;
        },
        60))
        << "session " << id << ": " << ranks.size() << " of " << count << " " << comm;
    return ranks;
  }
  // Every rank (on `nodes`, or all) reaches `state`.
  void ExpectStates(const std::map<int, RankProc>& ranks, char state, std::vector<int> nodes = {}) {
    for (const auto& [rank, r] : ranks) {
      if (!nodes.empty() && std::find(nodes.begin(), nodes.end(), r.node) == nodes.end()) continue;
      EXPECT_TRUE(Eventually([&] { return ProcessState(r.pid) == state; }, 30))
          << "rank " << rank << " (pid " << r.pid << ", node " << r.node << ") is '"
          << ProcessState(r.pid) << "', not '" << state << "'";
    }
  }
  std::map<int, std::string> Pinning(const std::map<int, RankProc>& ranks) {
    std::map<int, std::string> cpus;
    for (const auto& [rank, r] : ranks) cpus[rank] = CpusAllowed(r.pid);
    return cpus;
  }
  void Kill(int id) { RunCmd({Bin("psched-ctl"), "kill", std::to_string(id)}, alloc_->Env()); }

  // Sessions 1 (8 ranks on nodes 0 and 1) and 2 (8 ranks on nodes 2 and 3), sleeping.
  void StartTwo() {
    a_ = Exec({"-n", "8", "sleep", "1000"});
    a_ranks_ = WaitRanks(1, "sleep", 8);
    b_ = Exec({"-n", "8", "sleep", "1000"});
    b_ranks_ = WaitRanks(2, "sleep", 8);
    ASSERT_EQ(Session(1).value("nodes", Json::array()), Json::array({0, 1}));
    ASSERT_EQ(Session(2).value("nodes", Json::array()), Json::array({2, 3}));
  }

  std::unique_ptr<EmulatedAlloc> alloc_;
  std::vector<pid_t> stopped_;
  std::unique_ptr<Proc> a_, b_;
  std::map<int, RankProc> a_ranks_, b_ranks_;
};

TEST_F(CoschedRollbackTest, DaemonKilledDuringASurpassRollsBackTheOtherNodes) {
  StartAlloc();
  StartTwo();
  auto pinned = Pinning(a_ranks_);
  // Node 3 cannot answer: the plan (suspend sessions 2 and 1, start 3 on all 16
  // slots) is done on nodes 0-2 and waits for node 3, whose daemon is then killed.
  StopDaemon(3);
  auto surpass = Exec({"--policy", "surpass", "-n", "16", "sleep", "1000"});
  ASSERT_TRUE(Eventually([&] { return SessionIs(1, "suspended by 3"); })) << Status().dump();
  ExpectStates(a_ranks_, 'T');
  ExpectStates(b_ranks_, 'T', {2});
  ASSERT_EQ(kill(alloc_->DaemonPid(3), SIGKILL), 0);

  EXPECT_NE(surpass->Wait(), 0);
  EXPECT_NE(surpass->err().find("session 3 could not start"), std::string::npos) << surpass->err();
  EXPECT_NE(surpass->err().find("node 3 was lost"), std::string::npos) << surpass->err();
  EXPECT_NE(surpass->err().find("suspend session 2"), std::string::npos) << surpass->err();
  EXPECT_NE(surpass->err().find("rolled back on nodes 0, 1, 2"), std::string::npos)
      << surpass->err();
  // Session 1 had nothing on node 3: it runs on, resumed, pinned as before.
  ExpectStates(a_ranks_, 'S');
  EXPECT_EQ(Pinning(a_ranks_), pinned);
  EXPECT_TRUE(Eventually([&] { return SessionIs(1, "running"); })) << Status().dump();
  // Session 2 lost a node: it fails, its launcher says why, none of its ranks is left.
  EXPECT_NE(b_->Wait(), 0);
  EXPECT_NE(b_->err().find("lost node 3"), std::string::npos) << b_->err();
  for (const auto& [rank, r] : b_ranks_)
    EXPECT_TRUE(Eventually([&] { return ProcessGone(r.pid); })) << "rank " << rank;

  // The daemons keep serving: a later session runs on the free node.
  auto later = RunCmd({Bin("psched-exec"), "-n", "4", "echo", "later"}, alloc_->Env());
  EXPECT_EQ(later.code, 0) << later.err;
  EXPECT_EQ(std::count(later.out.begin(), later.out.end(), '\n'), 4) << later.out;
  Kill(1);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
}

// A node the arrival is placed on dies while its plan is in flight (a surpass grace, or
// here a node slow to confirm), but the plan itself only acts on the other nodes (it
// suspends session 1 there): the arrival must not be sent to the dead node, where it
// would never start nor end. It fails naming the node, and session 1, which it
// displaced, resumes.
TEST_F(CoschedRollbackTest, NodeLostWhileThePlanRunsFailsTheArrivalPlacedThere) {
  StartAlloc("[policy]\nplan_timeout_s = 60\n");
  a_ = Exec({"-n", "12", "sleep", "1000"});
  a_ranks_ = WaitRanks(1, "sleep", 12);
  ASSERT_EQ(Session(1).value("nodes", Json::array()), Json::array({0, 1, 2}));
  // Node 1 holds the plan (suspend session 1, start session 2 on all 16 slots) in
  // flight until it is continued; node 3, which the plan does not act on, dies meanwhile.
  StopDaemon(1);
  TempDir dir;
  const std::string marker = dir / "started";
  auto surpass = Exec({"--policy", "surpass", "-n", "16", "touch", marker});
  ASSERT_TRUE(Eventually([&] { return SessionIs(1, "suspended by 2"); })) << Status().dump();
  ASSERT_EQ(kill(alloc_->DaemonPid(3), SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] {
    for (const Json& n : Status().value("nodes", Json::array()))
      if (n.value("id", -1) == 3 && n.value("state", "") == "lost") return true;
    return false;
  })) << Status().dump();
  ContinueDaemon(1);

  // Fails fast where the launcher would hang: the checks below would wait for each rank.
  ASSERT_EQ(surpass->Wait(), 1) << surpass->err();
  EXPECT_NE(surpass->err().find("session 2: lost node 3"), std::string::npos) << surpass->err();
  EXPECT_NE(surpass->err().find("before it could start"), std::string::npos) << surpass->err();
  EXPECT_FALSE(std::filesystem::exists(marker)) << "session 2 started without node 3";
  EXPECT_TRUE(Eventually([&] { return SessionIs(1, "running"); })) << Status().dump();
  ExpectStates(a_ranks_, 'S');
  EXPECT_TRUE(Session(2).empty()) << Status().dump();
  Kill(1);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
  EXPECT_TRUE(Eventually([&] { return Status().value("free", -1) == 12; })) << Status().dump();
}

TEST_F(CoschedRollbackTest, StoppedDaemonTimesOutTheRollbackAndServesAfterwards) {
  StartAlloc();
  StartTwo();
  auto pinned = Pinning(a_ranks_);
  StopDaemon(3);
  auto surpass = Exec({"--policy", "surpass", "-n", "16", "sleep", "1000"});
  ASSERT_TRUE(Eventually([&] { return SessionIs(1, "suspended by 3"); })) << Status().dump();
  ExpectStates(a_ranks_, 'T');
  // No reply from node 3: the executor's timeout ends the wait, nothing hangs.
  EXPECT_NE(surpass->Wait(120), 0);
  const std::string& err = surpass->err();
  EXPECT_NE(err.find("session 3 could not start"), std::string::npos) << err;
  EXPECT_NE(err.find("node 3 did not answer"), std::string::npos) << err;
  EXPECT_NE(err.find("suspend session 2"), std::string::npos) << err;
  EXPECT_NE(err.find("rolled back on nodes 0, 1, 2"), std::string::npos) << err;
  ExpectStates(a_ranks_, 'S');
  ExpectStates(b_ranks_, 'S', {2});
  EXPECT_EQ(Pinning(a_ranks_), pinned);
  EXPECT_TRUE(SessionIs(1, "running")) << Status().dump();
  EXPECT_TRUE(SessionIs(2, "running")) << Status().dump();
  // The sessions that were to be suspended hear about it.
  EXPECT_TRUE(a_->WaitStderr([](const std::string& e) {
    return e.find("session 1 was to be suspended") != std::string::npos;
  })) << a_->err();

  // Node 3 wakes up: it carries out the stale suspend and then its undo, in order;
  // the next surpass works on every node and its end resumes everyone.
  ContinueDaemon(3);
  auto again = Exec({"--policy", "surpass", "-n", "16", "true"});
  EXPECT_EQ(again->Wait(120), 0) << again->err();
  ExpectStates(a_ranks_, 'S');
  ExpectStates(b_ranks_, 'S');
  EXPECT_EQ(Pinning(a_ranks_), pinned);
  Kill(1);
  Kill(2);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
  EXPECT_EQ(b_->Wait(), 128 + SIGKILL);
}

TEST_F(CoschedRollbackTest, RankThatCannotStopFailsTheSuspendStepEverywhere) {
  StartAlloc();
  // Rank 9 (node 2) waits in uninterruptible sleep: SIGSTOP never takes, the node's
  // suspend step fails; the ranks it did stop there and on every other node resume.
  auto sim = Exec({"-n", "16", "sh", "-c",
                   "if [ \"$PSCHED_RANK\" = 9 ]; then exec " + Bin("cosched_stuck") +
                       "; else exec sleep 1000; fi"});
  auto sleepers = WaitRanks(1, "sleep", 15);
  auto stuck = WaitRanks(1, "cosched_stuck", 1);
  ASSERT_EQ(stuck.count(9), 1u);
  ASSERT_EQ(stuck[9].node, 2);
  ASSERT_TRUE(Eventually([&] { return StuckInVfork(stuck[9].pid); }));
  auto pinned = Pinning(sleepers);

  auto surpass = Exec({"--policy", "surpass", "-n", "4", "true"});
  EXPECT_NE(surpass->Wait(120), 0);
  const std::string& err = surpass->err();
  EXPECT_NE(err.find("session 2 could not start"), std::string::npos) << err;
  EXPECT_NE(err.find("node 2 failed step 'suspend session 1'"), std::string::npos) << err;
  EXPECT_NE(err.find("did not stop (state D)"), std::string::npos) << err;
  EXPECT_NE(err.find("rolled back on nodes 0, 1, 2, 3"), std::string::npos) << err;
  ExpectStates(sleepers, 'S');  // node 2's too: the failed step was undone there as well
  EXPECT_EQ(Pinning(sleepers), pinned);
  EXPECT_TRUE(SessionIs(1, "running")) << Status().dump();

  // The daemons keep serving.
  Kill(1);
  EXPECT_EQ(sim->Wait(), 128 + SIGKILL);
  auto later = RunCmd({Bin("psched-exec"), "-n", "16", "true"}, alloc_->Env());
  EXPECT_EQ(later.code, 0) << later.err;
}

TEST_F(CoschedRollbackTest, FailedEndPlanIsRetriedByTheRoundAndDoesNotStrandTheQueue) {
  StartAlloc("[allocator]\nround_interval_s = 1\n");
  StartTwo();
  GoFile go;
  // Session 3 suspends session 2 (the most recent) and takes its slots on node 2.
  auto surpass = Exec({"--policy", "surpass", "-n", "4", "sh", "-c", go.WaitCmd()});
  ASSERT_TRUE(Eventually([&] { return SessionIs(2, "suspended by 3"); })) << Status().dump();
  // Session 2 shows suspended as soon as that step is done; session 3's nodes follow
  // once its launch step is.
  ASSERT_TRUE(Eventually([&] {
    return Session(3).value("nodes", Json::array()) == Json::array({2});
  })) << Status().dump();
  ExpectStates(b_ranks_, 'T');
  // Session 4 waits: node 3's slots are kept for session 2.
  auto queued = Exec({"--policy", "wait", "-n", "4", "sleep", "1000"});
  ASSERT_TRUE(Eventually([&] { return SessionIs(4, "queued at position 1"); })) << Status().dump();

  // Session 3 ends while node 3's daemon is stopped: the end plan (resume session 2
  // on nodes 2 and 3) times out and is rolled back; session 2 hears why.
  StopDaemon(3);
  go.Go();
  EXPECT_EQ(surpass->Wait(), 0) << surpass->err();
  EXPECT_TRUE(b_->WaitStderr(
      [](const std::string& e) {
        return e.find("session 2 could not be resumed") != std::string::npos &&
               e.find("node 3 did not answer") != std::string::npos;
      },
      90))
      << b_->err();
  ExpectStates(b_ranks_, 'T', {2});
  // Session 1 ends: its slots are free, and session 4 starts there although session
  // 2's resume still fails on node 3 (it is no part of session 4's start).
  Kill(1);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
  auto q_ranks = WaitRanks(4, "sleep", 4);
  for (const auto& [rank, r] : q_ranks) EXPECT_LT(r.node, 2) << "rank " << rank;
  EXPECT_EQ(ProcessState(alloc_->DaemonPid(3)), 'T') << "node 3 must still be stopped";

  // Node 3 wakes up: a later round resumes session 2 on both nodes, no event needed.
  ContinueDaemon(3);
  EXPECT_TRUE(Eventually([&] { return SessionIs(2, "running"); }, 90)) << Status().dump();
  ExpectStates(b_ranks_, 'S');
  Kill(2);
  Kill(4);
  EXPECT_EQ(b_->Wait(), 128 + SIGKILL);
  EXPECT_EQ(queued->Wait(), 128 + SIGKILL);
}

// A queued session killed while a plan runs stays gone when that plan fails and is
// rolled back: the rollback must not bring it back queued with nobody to end it, to
// start on the first slots that free up and keep them for good.
TEST_F(CoschedRollbackTest, QueuedSessionKilledDuringAFailedPlanStaysGone) {
  StartAlloc("[policy]\nplan_timeout_s = 2\nsuspend_confirm_timeout_s = 1\n");
  StartTwo();
  auto queued = Exec({"--policy", "wait", "-n", "4", "sleep", "1000"});
  ASSERT_TRUE(Eventually([&] { return SessionIs(3, "queued at position 1"); })) << Status().dump();
  // The surpass (session 4) waits for node 3, which does not answer: the plan fails.
  StopDaemon(3);
  auto surpass = Exec({"--policy", "surpass", "-n", "16", "sleep", "1000"});
  ASSERT_TRUE(Eventually([&] { return SessionIs(1, "suspended by 4"); })) << Status().dump();
  Kill(3);
  EXPECT_EQ(queued->Wait(), 128 + SIGKILL) << queued->err();
  EXPECT_NE(surpass->Wait(120), 0);
  EXPECT_NE(surpass->err().find("node 3 did not answer"), std::string::npos) << surpass->err();
  ContinueDaemon(3);
  EXPECT_TRUE(SessionIs(1, "running")) << Status().dump();

  // Sessions 1 and 2 end: every slot is free again, nothing started in their place,
  // and the leader keeps nothing of any session (the failed arrival included).
  Kill(1);
  Kill(2);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
  EXPECT_EQ(b_->Wait(), 128 + SIGKILL);
  Json st;
  EXPECT_TRUE(Eventually([&] {
    st = Status();
    return st.value("sessions", Json::array()).empty() && st.value("free", -1) == 16 &&
           st.value("submission_histories", -1) == 0;
  })) << st.dump();
}

// The admin's [policy] plan_timeout_s reaches the leader's plan transaction: with a
// stopped daemon the plan fails after the configured seconds, and says so.
TEST_F(CoschedRollbackTest, ConfiguredPlanTimeoutEndsTheWaitForAStoppedDaemon) {
  StartAlloc("[policy]\nplan_timeout_s = 2\nsuspend_confirm_timeout_s = 1\n");
  StartTwo();
  StopDaemon(3);
  auto surpass = Exec({"--policy", "surpass", "-n", "16", "sleep", "1000"});
  EXPECT_NE(surpass->Wait(120), 0);
  const std::string& err = surpass->err();
  EXPECT_NE(err.find("node 3 did not answer within 2 s (step suspend session 2)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("rolled back on nodes 0, 1, 2"), std::string::npos) << err;
  ExpectStates(a_ranks_, 'S');
  ExpectStates(b_ranks_, 'S', {2});
  ContinueDaemon(3);
  Kill(1);
  Kill(2);
  EXPECT_EQ(a_->Wait(), 128 + SIGKILL);
  EXPECT_EQ(b_->Wait(), 128 + SIGKILL);
}

// The admin's [policy] suspend_confirm_timeout_s reaches the nodes (the leader sends
// it with each suspend order): a rank that cannot stop fails the step after that time.
TEST_F(CoschedRollbackTest, ConfiguredConfirmationTimeFailsARankThatCannotStop) {
  StartAlloc("[policy]\nsuspend_confirm_timeout_s = 0.5\n");
  auto sim = Exec({"-n", "16", "sh", "-c",
                   "if [ \"$PSCHED_RANK\" = 9 ]; then exec " + Bin("cosched_stuck") +
                       "; else exec sleep 1000; fi"});
  auto sleepers = WaitRanks(1, "sleep", 15);
  auto stuck = WaitRanks(1, "cosched_stuck", 1);
  ASSERT_EQ(stuck.count(9), 1u);
  ASSERT_TRUE(Eventually([&] { return StuckInVfork(stuck[9].pid); }));
  auto surpass = Exec({"--policy", "surpass", "-n", "4", "true"});
  EXPECT_NE(surpass->Wait(120), 0);
  const std::string& err = surpass->err();
  EXPECT_NE(err.find("node 2 failed step 'suspend session 1'"), std::string::npos) << err;
  EXPECT_NE(err.find("did not stop (state D) within 0.5 s"), std::string::npos) << err;
  ExpectStates(sleepers, 'S');
  Kill(1);
  EXPECT_EQ(sim->Wait(), 128 + SIGKILL);
}

}  // namespace
}  // namespace psched::testing
