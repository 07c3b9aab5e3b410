// The node side of suspend orders with real processes on a real event loop: the
// reply comes once every process is stopped (SIGSTOP) or the session's cgroup is
// frozen (freezer), and waiting for that confirmation never holds the loop.
#include "daemon/node/cosched_node.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>

#include <functional>

#include "daemon/node/freezer.hpp"
#include "daemon/node/node_service_fixture.hpp"
#include "daemon/node/suspend.hpp"
#include "daemon/node/topology.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

class CoschedNodeTest : public NodeServiceFixture {
 protected:
  void SetUp() override {
    NodeServiceFixture::SetUp();
    node_ = std::make_unique<CoschedNode>(
        base_, 0, *ranks_, std::vector<int>{0},
        [this](const std::string& reply) { replies_.push_back(proto::Json::parse(reply)); });
  }
  void TearDown() override {
    node_.reset();
    ranks_.reset();  // kills the ranks, before their freezer goes
    freezer_.reset();
    NodeServiceFixture::TearDown();
  }
  void Order(const std::string& op, int64_t session,
             const proto::Json& extra = proto::Json::object()) {
    proto::Json o{{"op", op}, {"session", session}};
    o.update(extra);
    Order(proto::Json::array({o}));
  }
  void Order(const proto::Json& ops) {
    node_->OnOrder(proto::Json{{"txn", ++txn_}, {"ops", ops}}.dump());
  }
  // A suspend op with a surpass grace.
  static proto::Json SuspendOp(int64_t session, double grace_s, double confirm_s) {
    return {
        {"op", "suspend"}, {"session", session}, {"grace_s", grace_s}, {"confirm_s", confirm_s}};
  }
  // A node whose logical PUs are this machine's real ones (the fixture's folds all on 0).
  void UseRealPus(const std::vector<int>& real) {
    node_ = std::make_unique<CoschedNode>(
        base_, 0, *ranks_, real,
        [this](const std::string& reply) { replies_.push_back(proto::Json::parse(reply)); });
  }
  proto::Json NextReply() {
    size_t want = ++seen_;
    EXPECT_TRUE(Loop([&] { return replies_.size() >= want; }, 30)) << "no reply";
    return replies_.size() >= want ? replies_[want - 1] : proto::Json::object();
  }

  std::unique_ptr<SessionFreezer> freezer_;
  std::unique_ptr<CoschedNode> node_;
  std::vector<proto::Json> replies_;
  size_t seen_ = 0;
  int64_t txn_ = 0;
};

TEST_F(CoschedNodeTest, SignalSuspendRepliesOnceEveryProcessIsStopped) {
  Spawn(1, 3, {"sh", "-c", "while :; do :; done"});
  Order("suspend", 1);
  proto::Json reply = NextReply();
  EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  for (pid_t pid : Pids(1)) EXPECT_EQ(ProcState(pid), 'T') << "pid " << pid;
  Order("resume", 1);
  EXPECT_TRUE(NextReply().value("ok", false));
  for (pid_t pid : Pids(1))
    EXPECT_TRUE(Loop([&] { return ProcState(pid) == 'R'; }, 20)) << "pid " << pid;
}

TEST_F(CoschedNodeTest, FreezerSuspendRepliesOnceTheCgroupIsFrozen) {
  auto freezer = SessionFreezer::Create(0);
  if (!freezer) GTEST_SKIP() << "no writable cgroup freezer here: " << freezer.error().ToString();
  freezer_ = std::move(*freezer);
  ranks_->SetFreezer(freezer_.get());
  Spawn(2, 3, {"sh", "-c", "while :; do :; done"});
  Order("suspend", 2);
  proto::Json reply = NextReply();
  EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  auto frozen = freezer_->Frozen(2);
  ASSERT_TRUE(frozen);
  EXPECT_TRUE(*frozen) << "replied before " << freezer_->PathOf(2) << " was frozen";
  EXPECT_EQ(freezer_->Processes(2).size(), 3u);
  Order("resume", 2);
  EXPECT_TRUE(NextReply().value("ok", false));
  EXPECT_TRUE(Loop([&] { return !*freezer_->Frozen(2); }, 20));
  for (pid_t pid : Pids(2))
    EXPECT_TRUE(Loop([&] { return ProcState(pid) == 'R'; }, 20)) << "pid " << pid;
}

// A rank that cannot stop (held by a v1 freezer: state D, SIGSTOP stays pending): the
// node fails the suspend after its time limit, naming the process, and the event loop
// runs the whole time (a timer keeps ticking).
TEST_F(CoschedNodeTest, ConfirmationNeverHoldsTheEventLoop) {
  auto where = FindFreezerPlace(0, CgroupVersion::kV1);
  if (!where) GTEST_SKIP() << "needs a writable v1 freezer: " << where.error().ToString();
  freezer_ = SessionFreezer::CreateIn(0, *where);  // not given to ranks_: it suspends by signal
  Spawn(3, 1, {"sleep", "60"});
  pid_t pid = Pids(3).front();
  auto fd = freezer_->JoinFd(3);
  ASSERT_TRUE(fd);
  std::string text = std::to_string(pid);
  ASSERT_EQ(write(*fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ASSERT_TRUE(freezer_->Freeze(3));
  ASSERT_TRUE(Loop([&] { return *freezer_->Frozen(3); }, 20));

  int ticks = 0;
  event* tick = event_new(
      base_, -1, EV_PERSIST, [](evutil_socket_t, short, void* n) { ++*static_cast<int*>(n); },
      &ticks);
  timeval every{0, 50'000};
  event_add(tick, &every);
  Order("suspend", 3);
  proto::Json reply = NextReply();
  event_free(tick);
  EXPECT_FALSE(reply.value("ok", true)) << reply.dump();
  EXPECT_NE(reply.value("error", "").find("process " + text + " did not stop (state D)"),
            std::string::npos)
      << reply.dump();
  // kConfirmTimeoutS of waiting at 20 ticks a second; a loop held by the wait sees ~none.
  EXPECT_GT(ticks, 20) << "the event loop was held while confirming";
  // An order that does not say how long to wait gets the built-in 5 s.
  EXPECT_NE(reply.value("error", "").find("within 5 s"), std::string::npos) << reply.dump();
}

// The leader's [policy] suspend_confirm_timeout_s comes with the order ("confirm_s",
// plan_executor.hpp): a rank that cannot stop (cosched_stuck: a vfork parent, state D,
// SIGSTOP stays pending) fails the suspend after that time, and the error says so.
TEST_F(CoschedNodeTest, ConfirmationWaitsTheConfiguredTimeFromTheOrder) {
  Spawn(4, 1, {PSCHED_COSCHED_STUCK});
  pid_t pid = Pids(4).front();
  ASSERT_TRUE(Loop([&] { return psched::testing::StuckInVfork(pid); }, 20))
      << "pid " << pid << " is '" << ProcState(pid) << "'";
  Order("suspend", 4, {{"grace_s", 0}, {"confirm_s", 0.25}});
  proto::Json reply = NextReply();
  EXPECT_FALSE(reply.value("ok", true)) << reply.dump();
  EXPECT_NE(reply.value("error", "")
                .find("process " + std::to_string(pid) + " did not stop (state D) within 0.25 s"),
            std::string::npos)
      << reply.dump();
  EXPECT_EQ(reply.value("done", proto::Json::array()), proto::Json::array()) << reply.dump();
}

// A process that stops in time is confirmed however short the configured time is
// compared with the default: the short value only bounds the wait.
TEST_F(CoschedNodeTest, ShortConfiguredConfirmationStillConfirmsStoppedProcesses) {
  Spawn(5, 2, {"sh", "-c", "while :; do :; done"});
  Order("suspend", 5, {{"confirm_s", 3}});
  proto::Json reply = NextReply();
  EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  for (pid_t pid : Pids(5)) EXPECT_EQ(ProcState(pid), 'T') << "pid " << pid;
}

// A surpass plan with two victims on this node: both get SIGTSTP at once and share one
// grace (the leader waits for one grace, not one per victim), then each is stopped.
TEST_F(CoschedNodeTest, SessionsOfOneOrderShareOneSurpassGrace) {
  psched::testing::TempDir dir;
  std::vector<pid_t> pids;
  for (int64_t id : {7, 8}) {
    const std::string said = dir / ("tstp" + std::to_string(id));
    Spawn(id, 1, {"sh", "-c", std::string("exec ") + PSCHED_COSCHED_THREADS + " 1 tstp >" + said});
    pids.push_back(Pids(id).front());
    ASSERT_TRUE(psched::testing::Eventually(
        [&] { return psched::testing::CatchesSignal(pids.back(), SIGTSTP); }));
  }
  auto warned = [&](int64_t id) {
    return !psched::testing::ReadFile(dir / ("tstp" + std::to_string(id))).empty();
  };
  Order({SuspendOp(7, 3, 5), SuspendOp(8, 3, 5)});
  char first_when_second_warned = 0;
  ASSERT_TRUE(Loop(
      [&] {
        if (!warned(8)) return false;
        first_when_second_warned = ProcState(pids[0]);
        return true;
      },
      20))
      << "session 8 never got SIGTSTP";
  EXPECT_NE(first_when_second_warned, 'T') << "session 8's grace began after session 7's ended";
  EXPECT_TRUE(Loop([&] { return warned(7); }, 20));
  proto::Json reply = NextReply();
  EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  EXPECT_EQ(reply.value("done", proto::Json::array()), proto::Json::array({0, 1})) << reply.dump();
  for (pid_t pid : pids) EXPECT_EQ(ProcState(pid), 'T') << "pid " << pid;
}

// The first victim cannot stop: the order fails there and the leader undoes only up to
// that step. The second victim, warned by the shared grace's SIGTSTP (which stops a
// program that does not catch it) but never suspended, must run on.
TEST_F(CoschedNodeTest, AFailedOrderLeavesTheVictimsItDidNotReachRunning) {
  Spawn(9, 1, {PSCHED_COSCHED_STUCK});
  const pid_t stuck = Pids(9).front();
  ASSERT_TRUE(Loop([&] { return psched::testing::StuckInVfork(stuck); }, 20));
  Spawn(10, 1, {"sh", "-c", "while :; do sleep 0.05; done"});
  const pid_t victim = Pids(10).front();
  Order({SuspendOp(9, 0.1, 0.25), SuspendOp(10, 0.1, 0.25)});
  proto::Json reply = NextReply();
  EXPECT_FALSE(reply.value("ok", true)) << reply.dump();
  EXPECT_TRUE(Loop([&] { return !psched::testing::HeldStopped(victim); }, 20))
      << "session 10 was left stopped by SIGTSTP";
}

// A rank that is a wrapper (sh -c) runs its workload in a child: a re-pin moves every
// thread of that child too, and the restore brings them all back.
TEST_F(CoschedNodeTest, RepinMovesEveryProcessOfTheRanksTree) {
  auto real = RealPuOsIndices();
  ASSERT_TRUE(real) << real.error().ToString();
  if (real->size() < 2) GTEST_SKIP() << "needs two CPUs to move a process between";
  UseRealPus(*real);
  Spawn(11, 1, {"sh", "-c", std::string(PSCHED_COSCHED_THREADS) + " 3; true"});
  const pid_t rank = Pids(11).front();
  pid_t workload = -1;
  ASSERT_TRUE(psched::testing::Eventually([&] {
    auto kids = psched::testing::ChildrenOf(rank);
    workload = kids.empty() ? -1 : kids.front();
    return workload > 0 && psched::testing::Threads(workload).size() == 3;
  })) << "the rank's child never started its threads";
  for (int pu : {1, 0}) {
    Order("repin", 11, {{"ranks", proto::Json::array({{{"rank", 0}, {"pus", {pu}}}})}});
    proto::Json reply = NextReply();
    EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
    const std::string cpu = std::to_string((*real)[static_cast<size_t>(pu)]);
    EXPECT_EQ(psched::testing::CpusAllowed(rank), cpu);
    for (pid_t tid : psched::testing::Threads(workload)) {
      EXPECT_EQ(psched::testing::ThreadCpusAllowed(workload, tid), cpu)
          << "thread " << tid << " of the rank's child, re-pinned to PU " << pu;
    }
  }
}

}  // namespace
}  // namespace psched::daemon
