// The daemon's time-dependent logic runs on the clock it is given (common/clock.hpp):
// a real one-node daemon in this process, its launcher socket spoken to directly, and a
// FakeClock moved by the test. Without the seam the idle exit would take its full
// configured time and the leader's scheduler clock would follow the machine's.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "common/clock.hpp"
#include "common/unix_socket.hpp"
#include "daemon/daemon.hpp"
#include "daemon/net/run_dir.hpp"
#include "proto/messages.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

class FakeClockTest : public ::testing::Test {
 protected:
  void Start(double idle_exit_s) {
    base_ = event_base_new();
    DaemonOptions o;
    o.rundir = dir_ / "run";
    o.topology = "core:2";
    o.idle_exit_s = idle_exit_s;
    o.clock = &clock_;
    o.report = [this](const std::string& line) { ready_ = ready_ || line == "ready"; };
    auto secret = Secret::Generate();
    ASSERT_TRUE(secret);
    auto d = Daemon::Create(base_, o, *Secret::FromHex(secret->Hex()));
    ASSERT_TRUE(d) << d.error().ToString();
    daemon_ = std::move(*d);
    ASSERT_TRUE(RunFor(10, [&] { return ready_; }));
  }
  void TearDown() override {
    for (int fd : clients_) close(fd);
    daemon_.reset();
    if (base_) event_base_free(base_);
  }
  // Runs the daemon's loop for up to `seconds` of real time, until `done`.
  bool RunFor(double seconds, const std::function<bool()>& done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done() && std::chrono::steady_clock::now() < until) {
      event_base_loop(base_, EVLOOP_ONCE | EVLOOP_NONBLOCK);
      usleep(1000);
    }
    return done();
  }
  int Connect() {
    auto fd = ConnectUnix(LauncherSocketPath(dir_ / "run"));
    EXPECT_TRUE(fd) << fd.error().ToString();
    if (!fd) return -1;
    clients_.push_back(*fd);
    return *fd;
  }
  static void Send(int fd, proto::MsgType type, const proto::Json& body) {
    std::string bytes = proto::EncodeFrame(type, body);
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  // The next frame of `type` on `fd`, the daemon's loop running meanwhile.
  std::optional<proto::Frame> Receive(int fd, proto::MsgType type) {
    std::vector<uint8_t>& buf = pending_[fd];
    std::optional<proto::Frame> got;
    RunFor(10, [&] {
      for (;;) {
        size_t used = 0;
        auto frame = proto::DecodeFrame(buf, &used);
        if (!frame || !*frame) break;
        buf.erase(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(used));
        if ((*frame)->type == type) {
          got = std::move(**frame);
          return true;
        }
      }
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 0) == 1) {
        uint8_t chunk[4096];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) buf.insert(buf.end(), chunk, chunk + n);
      }
      return false;
    });
    return got;
  }
  // Launches `ranks` x sleep on a connection of its own; the leader's first answer.
  std::optional<proto::Frame> Launch(int ranks, proto::MsgType answer) {
    proto::LaunchRequest req;
    req.argv = {"sleep", "60"};
    req.cwd = "/";
    req.ranks = ranks;
    req.policy = "wait";
    int fd = Connect();
    Send(fd, proto::MsgType::kSessionLaunch, proto::Json(req));
    return Receive(fd, answer);
  }
  proto::Json Status() {
    int fd = Connect();
    Send(fd, proto::MsgType::kCtlStatus, proto::Json::object());
    auto reply = Receive(fd, proto::MsgType::kCtlReply);
    return reply ? reply->body.value("status", proto::Json::object()) : proto::Json::object();
  }
  static proto::Json SessionIn(const proto::Json& status, int64_t id) {
    for (const auto& s : status["sessions"])
      if (s.value("id", int64_t{0}) == id) return s;
    return proto::Json::object();
  }

  testing::TempDir dir_{"psched-clock"};
  FakeClock clock_;
  event_base* base_ = nullptr;
  bool ready_ = false;
  std::unique_ptr<Daemon> daemon_;
  std::vector<int> clients_;
  std::map<int, std::vector<uint8_t>> pending_;
};

TEST_F(FakeClockTest, IdleExitCountsOnTheDaemonsClock) {
  Start(/*idle_exit_s=*/600);
  // Looks once a second: two looks of real time are nothing on the daemon's clock.
  EXPECT_FALSE(RunFor(2.5, [&] { return daemon_->stopped(); }));
  clock_.Advance(601);
  EXPECT_TRUE(RunFor(5, [&] { return daemon_->stopped(); }))
      << "idle for 601 s on its clock, still running";
}

TEST_F(FakeClockTest, LeaderTimesSessionsAndQueuesOnItsClock) {
  Start(/*idle_exit_s=*/0);
  auto started = Launch(2, proto::MsgType::kSessionStarted);
  ASSERT_TRUE(started);
  clock_.Advance(40);
  // Fills the two slots: the second waits, its fcfs priority 1e9 minus its submit time.
  auto queued = Launch(2, proto::MsgType::kSessionAck);
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->body.value("what", ""), "queued");
  clock_.Advance(5);
  proto::Json status = Status();
  proto::Json first = SessionIn(status, 1), second = SessionIn(status, 2);
  EXPECT_DOUBLE_EQ(first.value("elapsed_s", -1.0), 45.0) << first.dump();
  EXPECT_DOUBLE_EQ(second.value("elapsed_s", -1.0), 5.0) << second.dump();
  EXPECT_DOUBLE_EQ(second.value("priority", -1.0), 1e9 - 40) << second.dump();
  EXPECT_DOUBLE_EQ(first.value("start", 0.0), clock_.WallSeconds() - 45) << first.dump();
}

}  // namespace
}  // namespace psched::daemon
