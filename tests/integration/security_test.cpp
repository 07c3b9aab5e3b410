// Bad input on the daemons' doors: malformed frames on the launcher socket, a wrong
// secret on a peer link, another uid on the socket. Each is refused with a clear
// error and the daemon keeps serving.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/net/auth.hpp"
#include "launcher/allocation_locator.hpp"
#include "launcher/ctl_client.hpp"
#include "proto/messages.hpp"
#include "tests/support/allocation.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_fs.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace psched::testing {
namespace {

// Reads frames from `fd` until one arrives or the peer closes; nullopt on close.
std::optional<proto::Frame> ReadFrame(int fd) {
  std::vector<uint8_t> buf;
  for (;;) {
    size_t used = 0;
    auto f = proto::DecodeFrame(buf, &used);
    if (f && *f) return std::move(**f);
    uint8_t chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buf.insert(buf.end(), chunk, chunk + n);
  }
}

std::string ErrorOf(const std::optional<proto::Frame>& f) {
  if (!f || f->type != proto::MsgType::kError) return "(no error frame)";
  return f->body.value("message", "");
}

// A TCP connection to 127.0.0.1:port; -1 if refused.
int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  close(fd);
  return -1;
}

bool ClosedAfter(int fd) {
  char c;
  return read(fd, &c, 1) == 0;
}

TEST(Security, MalformedFramesAreRefusedAndTheDaemonKeepsServing) {
  EmbeddedDaemon daemon;
  ASSERT_EQ(RunCmd({Bin("psched-exec"), "true"}, daemon.Env()).code, 0);
  std::string sock = daemon.RunDir() + "/pschedd.sock";
  std::string valid = proto::EncodeFrame(proto::MsgType::kCtlStatus, proto::Json::object());
  std::string bad_version = valid;
  bad_version[5] = 42;
  std::string huge = valid.substr(0, proto::kHeaderSize);
  huge[8] = 0x40;
  std::string bad_payload = valid.substr(0, proto::kHeaderSize);
  bad_payload[11] = 2;
  bad_payload += "\xc1\xc1";
  std::string bad_fields = proto::EncodeFrame(proto::MsgType::kSessionLaunch,
                                              proto::Json{{"ranks", "many"}, {"argv", 3}});
  std::pair<std::string, std::string> cases[] = {
      {"GET / HTTP/1.0\r\n\r\n", "bad frame magic"},
      {bad_version, "protocol version 42 not supported"},
      {huge, "exceeds this connection's limit of 16777216"},
      {bad_payload, "malformed payload"},
      {bad_fields, "malformed session.launch message"},
  };
  for (const auto& [bytes, message] : cases) {
    auto fd = launcher::ConnectUnix(sock);
    ASSERT_TRUE(fd);
    ASSERT_EQ(write(*fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    EXPECT_NE(ErrorOf(ReadFrame(*fd)).find(message), std::string::npos) << message;
    EXPECT_TRUE(ClosedAfter(*fd)) << message;
    close(*fd);
  }
  auto r = RunCmd({Bin("psched-exec"), "echo", "still serving"}, daemon.Env());
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "still serving\n");
}

// What psched-exec refuses, a client that skips it must be refused by the daemon: the
// leader's queue orders sessions by their estimates, and ranks sent an empty directory
// ran in the daemon's.
TEST(Security, LaunchRequestsPschedExecWouldRefuseAreRefused) {
  EmbeddedDaemon daemon;
  ASSERT_EQ(RunCmd({Bin("psched-exec"), "true"}, daemon.Env()).code, 0);
  const std::string sock = daemon.RunDir() + "/pschedd.sock";
  auto refusal = [&](const proto::LaunchRequest& req) {
    auto fd = launcher::ConnectUnix(sock);
    if (!fd) return std::string("(no connection)");
    const std::string wire = proto::Encode(proto::MsgType::kSessionLaunch, req);
    std::string message = "(not sent)";
    if (write(*fd, wire.data(), wire.size()) == static_cast<ssize_t>(wire.size()))
      message = ErrorOf(ReadFrame(*fd));
    close(*fd);
    return message;
  };
  proto::LaunchRequest req;
  req.argv = {"true"};
  req.cwd = "/";
  for (double estimate : {std::nan(""), HUGE_VAL, -1.0}) {
    req.estimate_s = estimate;
    EXPECT_NE(refusal(req).find("the runtime estimate must be a finite number of seconds"),
              std::string::npos)
        << estimate;
  }
  req.estimate_s = 0;
  for (const char* cwd : {"", "relative/dir"}) {
    req.cwd = cwd;
    EXPECT_NE(refusal(req).find("the ranks' working directory must be an absolute path, got '" +
                                std::string(cwd) + "'"),
              std::string::npos)
        << cwd;
  }
  auto r = RunCmd({Bin("psched-exec"), "--time", "5", "echo", "still serving"}, daemon.Env());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "still serving\n");
}

TEST(Security, AnotherUidIsRefusedOnTheLauncherSocket) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another uid";
  EmbeddedDaemon daemon;
  ASSERT_EQ(RunCmd({Bin("psched-exec"), "true"}, daemon.Env()).code, 0);
  // Open the doors a misconfiguration might open, so only SO_PEERCRED stands in the way.
  std::string dir = daemon.RunDir();
  chmod(dir.c_str(), 0755);
  chmod((dir + "/..").c_str(), 0755);
  chmod((dir + "/pschedd.sock").c_str(), 0777);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    auto fd = launcher::ConnectUnix(dir + "/pschedd.sock");
    std::string message = fd ? ErrorOf(ReadFrame(*fd)) : "connect failed: " + fd.error().ToString();
    (void)!write(pipefd[1], message.data(), message.size());
    _exit(0);
  }
  close(pipefd[1]);
  std::string message;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) message.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0) << "could not become nobody";
  EXPECT_NE(message.find("permission denied: uid 65534"), std::string::npos) << message;
  EXPECT_EQ(RunCmd({Bin("psched-exec"), "true"}, daemon.Env()).code, 0);
}

class PeerAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    auto secret = daemon::Secret::Generate();
    ASSERT_TRUE(secret->WriteFile(dir_ / "secret"));
    auto other = daemon::Secret::Generate();
    ASSERT_TRUE(other->WriteFile(dir_ / "wrong"));
    wrong_ = std::move(*other);
    leader_ = std::make_unique<Proc>(std::vector<std::string>{
        Bin("pschedd"), "--node", "0", "--nodes", "2", "--rundir", dir_ / "run", "--secret-file",
        dir_ / "secret", "--topology", "core:2", "--ready-fd", "1"});
    ASSERT_TRUE(leader_->WaitStdout([](const std::string& s) { return s.find('\n') != s.npos; }));
    port_ = std::stoi(leader_->out().substr(5));
  }
  void TearDown() override { leader_.reset(); }
  Proc Child(const std::string& secret_file) {
    return Proc({Bin("pschedd"), "--node", "1", "--nodes", "2", "--parent",
                 "127.0.0.1:" + std::to_string(port_), "--secret-file", dir_ / secret_file,
                 "--topology", "core:2"});
  }
  // By hand: connects to the leader as node `claimed`, answers its challenge with a MAC
  // made from `secret`, and returns the leader's reply frame.
  std::optional<proto::Frame> ClaimToBe(int claimed, const daemon::Secret& secret) {
    int fd = Connect();
    std::optional<proto::Frame> reply;
    if (fd >= 0) {
      auto challenge = ReadFrame(fd);
      if (challenge && challenge->type == proto::MsgType::kAuthChallenge) {
        auto nonce = proto::Decode<proto::AuthChallenge>(*challenge)->nonce;
        std::string claim =
            proto::Encode(proto::MsgType::kAuthResponse,
                          proto::AuthResponse{claimed, secret.Mac(nonce, claimed), "n"});
        if (write(fd, claim.data(), claim.size()) == static_cast<ssize_t>(claim.size()))
          reply = ReadFrame(fd);
      }
    }
    if (fd >= 0) close(fd);
    return reply;
  }
  // Connects, reads the challenge, sends the header of an auth.response frame that
  // announces `length` bytes, and returns the leader's reply.
  std::optional<proto::Frame> SendBeforeAuth(uint32_t length) {
    int fd = Connect();
    std::optional<proto::Frame> reply;
    if (fd >= 0 && ReadFrame(fd)) {
      std::string header = proto::EncodeFrame(proto::MsgType::kAuthResponse, proto::Json::object())
                               .substr(0, proto::kHeaderSize);
      for (int i = 0; i < 4; ++i) header[8 + i] = static_cast<char>(length >> (24 - 8 * i));
      if (write(fd, header.data(), header.size()) > 0) reply = ReadFrame(fd);
    }
    if (fd >= 0) close(fd);
    return reply;
  }
  int Connect() const { return ConnectLoopback(port_); }
  TempDir dir_{"psched-auth-it"};
  std::unique_ptr<Proc> leader_;
  int port_ = 0;
  std::optional<daemon::Secret> wrong_;
};

TEST_F(PeerAuth, WrongSecretIsRefusedAndTheRightOneJoins) {
  // Node 1, with a MAC made from another secret.
  EXPECT_NE(ErrorOf(ClaimToBe(1, *wrong_)).find("authentication failed"), std::string::npos);
  // The leader's log names who was refused and which check failed.
  EXPECT_TRUE(leader_->WaitStderr([](const std::string& s) {
    return s.find("refused the connection of peer 127.0.0.1:") != s.npos &&
           s.find("node 1's proof does not match the allocation secret") != s.npos;
  })) << leader_->err();

  // A daemon started with the wrong secret file is refused and exits saying why.
  Proc bad = Child("wrong");
  EXPECT_NE(bad.Wait(), -1);
  EXPECT_NE(bad.err().find("authentication failed"), std::string::npos) << bad.err();

  // The leader still serves: the right child joins and the allocation becomes ready.
  Proc good = Child("secret");
  EXPECT_TRUE(leader_->WaitStdout([](const std::string& s) { return s.find("ready") != s.npos; }));
  auto r = RunCmd({Bin("psched-exec"), "-n", "4", "sh", "-c", "echo $PSCHED_NODE"},
                  {"PSCHED_ALLOCATION=" + (dir_ / "run")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "1"), 2);

  // A second node 1, even with the right secret, and a node the tree does not have, are refused.
  auto secret = daemon::Secret::FromFile(dir_ / "secret");
  ASSERT_TRUE(secret);
  for (int claimed : {1, 5}) {
    EXPECT_NE(ErrorOf(ClaimToBe(claimed, *secret)).find("authentication failed"), std::string::npos)
        << "node " << claimed;
  }
  EXPECT_TRUE(leader_->WaitStderr([](const std::string& s) {
    return s.find("node 1 is connected already") != s.npos &&
           s.find("node 5 is not a child of this node") != s.npos;
  })) << leader_->err();

  // Before authenticating, a peer may send only small frames (anyone on the network can
  // connect): one announced at 1 MiB is refused and the link closed, naming the limit.
  EXPECT_NE(ErrorOf(SendBeforeAuth(1u << 20)).find("exceeds this connection's limit of 65536"),
            std::string::npos);
  // The leader still serves.
  EXPECT_EQ(RunCmd({Bin("psched-exec"), "true"}, {"PSCHED_ALLOCATION=" + (dir_ / "run")}).code, 0);

  // SIGTERM ends the leader cleanly, and its log says why it stopped.
  leader_->Signal(SIGTERM);
  EXPECT_EQ(leader_->Wait(), 0) << leader_->err();
  EXPECT_NE(leader_->err().find("pschedd: SIGTERM received: stopping"), std::string::npos)
      << leader_->err();
}

// A connection that never authenticates is closed after 5 s: idle connections from
// anyone on the network must not hold the daemon's descriptors for ever. (10 s before
// the limits on unauthenticated connections; a child answers in milliseconds.)
TEST_F(PeerAuth, ConnectionThatNeverAuthenticatesIsClosed) {
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  auto challenge = ReadFrame(fd);
  ASSERT_TRUE(challenge);
  EXPECT_EQ(challenge->type, proto::MsgType::kAuthChallenge);
  timeval patience{20, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  // Nothing sent: the next frame is the refusal, then the end of the stream.
  EXPECT_NE(ErrorOf(ReadFrame(fd)).find("authentication timed out"), std::string::npos);
  char byte = 0;
  EXPECT_EQ(read(fd, &byte, 1), 0) << "the link stays open";
  close(fd);
  EXPECT_TRUE(leader_->WaitStderr([](const std::string& s) {
    return s.find("no authentication within 5 s") != s.npos;
  })) << leader_->err();
}

// A TCP connection from 127.0.0.`host` to the leader; -1 if refused.
int ConnectFrom(int host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + static_cast<uint32_t>(host - 1));
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) == 0 &&
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0)
    return fd;
  close(fd);
  return -1;
}

// Anyone on the network can connect before proving the secret: 200 connections holding
// 60 KiB each were all accepted, and the leader's RSS stayed 13 MB higher after they
// closed. Now few wait at once, per host and in all (a node's children and a few more:
// node 0 of 2 nodes, 9 per host and 18 in all), the rest are closed at once, the log says
// so in a line or two, and the memory is back once they are gone.
TEST_F(PeerAuth, UnauthenticatedConnectionsAreCappedAndLeaveNoMemoryBehind) {
  const long before = ResidentKiB(leader_->pid());
  ASSERT_GT(before, 0);
  constexpr uint32_t kHeld = 60u << 10;
  std::string header = proto::EncodeFrame(proto::MsgType::kAuthResponse, proto::Json::object())
                           .substr(0, proto::kHeaderSize);
  for (int i = 0; i < 4; ++i) header[8 + i] = static_cast<char>(kHeld >> (24 - 8 * i));
  const std::string held = header + std::string(kHeld - 1, 'x');  // one byte short
  std::vector<std::pair<int, int>> fds;                           // host, fd
  for (int i = 0; i < 200; ++i) {
    const int host = 1 + i % 10;
    const int fd = ConnectFrom(host, port_);
    ASSERT_GE(fd, 0) << "connection " << i;
    (void)!send(fd, held.data(), held.size(), MSG_NOSIGNAL);
    fds.emplace_back(host, fd);
  }
  std::map<int, int> waiting;  // by host: connections the leader challenged and kept
  int total = 0;
  for (auto [host, fd] : fds) {
    timeval patience{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    auto first = ReadFrame(fd);
    if (first && first->type == proto::MsgType::kAuthChallenge) {
      ++waiting[host];
      ++total;
    }
  }
  EXPECT_LE(total, 18) << "unauthenticated connections kept";
  for (auto [host, n] : waiting) EXPECT_LE(n, 9) << "from 127.0.0." << host;
  EXPECT_TRUE(leader_->WaitStderr([](const std::string& s) {
    return s.find("wait for authentication already") != s.npos;
  })) << leader_->err();
  EXPECT_LE(CountLines(leader_->err(), "wait for authentication already"), 15)
      << "one line a second at most";
  for (auto [host, fd] : fds) close(fd);
  EXPECT_TRUE(Eventually([&] { return ResidentKiB(leader_->pid()) < before + 4096; }))
      << "RSS " << before << " KiB before, " << ResidentKiB(leader_->pid()) << " KiB after";
  // The leader still serves: the right child joins.
  Proc good = Child("secret");
  EXPECT_TRUE(leader_->WaitStdout([](const std::string& s) { return s.find("ready") != s.npos; }));
}

// CPU seconds (user + system) process `pid` has used, from /proc/PID/stat.
double CpuSeconds(pid_t pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stol(field);  // utime, stime
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Out of descriptors, accept fails at once and for ever: libevent would retry in a busy
// loop. The daemon pauses accepting for a second instead, says so, and serves on once
// descriptors are free again.
// 30 descriptors, counted in /proc/PID/fd: the leader holds 15 (0-14) while it waits for
// its child, fewer than the 18 unauthenticated connections it keeps, so accept runs out
// of descriptors before the cap turns connections away; the connections come from 8
// loopback hosts so that the per-host cap (9) does not turn them away first either. A
// session then needs 11 more (the child's link, the launcher's, a PMI socket pair, four
// pipes while its rank starts: fds up to 25). With 24, no session could ever start: every
// attempt failed in pipe2 with EMFILE, the leader at 16-17 descriptors throughout (no leak).
TEST(Security, RunningOutOfDescriptorsPausesAcceptInsteadOfSpinning) {
  TempDir dir("psched-emfile");
  auto secret = daemon::Secret::Generate();
  ASSERT_TRUE(secret->WriteFile(dir / "secret"));
  Proc leader({"sh", "-c",
               "ulimit -n 30; exec " + Bin("pschedd") + " --node 0 --nodes 2 --rundir " +
                   (dir / "run") + " --secret-file " + (dir / "secret") +
                   " --topology core:2 --ready-fd 1"});
  ASSERT_TRUE(leader.WaitStdout([](const std::string& s) { return s.find('\n') != s.npos; }))
      << leader.err();
  const int port = std::stoi(leader.out().substr(5));
  std::vector<int> fds;
  for (int i = 0; i < 64; ++i) {
    fds.push_back(ConnectFrom(1 + i % 8, port));
    ASSERT_GE(fds.back(), 0);
  }
  EXPECT_TRUE(leader.WaitStderr([](const std::string& s) {
    return s.find("peer listener on ") != s.npos && s.find(": accepting paused for 1 s") != s.npos;
  })) << leader.err();
  // Two seconds later: a line or three, not a busy loop's flood (which also burns a CPU).
  const double before = CpuSeconds(leader.pid());
  leader.WaitStderr([](const std::string&) { return false; }, 2);
  EXPECT_LT(CpuSeconds(leader.pid()) - before, 0.5) << "the daemon spins on accept";
  EXPECT_LE(CountLines(leader.err(), "accept"), 5) << leader.err().substr(0, 2000);
  for (int fd : fds) close(fd);
  // Accepting again: node 1 joins, the allocation becomes ready and runs a session.
  Proc child({Bin("pschedd"), "--node", "1", "--nodes", "2", "--parent",
              "127.0.0.1:" + std::to_string(port), "--secret-file", dir / "secret", "--topology",
              "core:2"});
  EXPECT_TRUE(leader.WaitStdout([](const std::string& s) { return s.find("ready") != s.npos; }))
      << leader.err();
  // Retried: on a loaded machine a session may start before the leader has closed its
  // ends of the connections above and find too few descriptors left for its pipes.
  RunResult r;
  EXPECT_TRUE(Eventually([&] {
    r = RunCmd({Bin("psched-exec"), "echo", "still serving"},
               {"PSCHED_ALLOCATION=" + (dir / "run")});
    return r.code == 0;
  })) << r.err;
  EXPECT_EQ(r.out, "still serving\n");
  leader.Signal(SIGTERM);
  EXPECT_EQ(leader.Wait(), 0) << leader.err();
}

}  // namespace
}  // namespace psched::testing
