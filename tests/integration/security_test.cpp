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

#include "daemon/auth.hpp"
#include "launcher/allocation_locator.hpp"
#include "launcher/ctl_client.hpp"
#include "proto/messages.hpp"
#include "tests/support/allocation.hpp"
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
      {huge, "exceeds the limit"},
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
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::optional<proto::Frame> reply;
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
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
    close(fd);
    return reply;
  }
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

  // SIGTERM ends the leader cleanly, and its log says why it stopped.
  leader_->Signal(SIGTERM);
  EXPECT_EQ(leader_->Wait(), 0) << leader_->err();
  EXPECT_NE(leader_->err().find("pschedd: SIGTERM received: stopping"), std::string::npos)
      << leader_->err();
}

}  // namespace
}  // namespace psched::testing
