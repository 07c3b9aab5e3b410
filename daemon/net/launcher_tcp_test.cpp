// The leader's TCP listener for launchers on other hosts, and the contact file that tells
// them where it is: a launcher that proves the secret gets its frames through, anyone else
// is refused before any frame counts, and the file is refused when it is not private.
#include "daemon/net/launcher_tcp.hpp"

#include <event2/event.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "daemon/net/contact_file.hpp"
#include "daemon/net/launcher_service.hpp"
#include "proto/messages.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/temp_dir.hpp"

namespace psched::daemon {
namespace {

using psched::testing::TempDir;
using psched::testing::TurnUntil;

// A leader's launcher service on its own loop, listening on loopback TCP.
struct Leader {
  Leader() : base(event_base_new()) {
    secret = *Secret::Generate();
    service = std::make_unique<LauncherService>(
        base,
        [this](const std::shared_ptr<Connection>&, proto::Frame&& f, uid_t from) {
          frames.push_back(f.type);
          uid = from;
        },
        [](Connection&) {});
    auto listening = service->ListenTcp("127.0.0.1", secret);
    EXPECT_TRUE(listening) << listening.error().ToString();
    port = listening.value_or(0);
  }
  ~Leader() {
    service.reset();
    event_base_free(base);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }

  event_base* base;
  Secret secret;
  std::unique_ptr<LauncherService> service;
  int port = 0;
  std::vector<proto::MsgType> frames;
  uid_t uid = 0;
};

// Runs `client` on a thread while the leader's loop turns; returns once it is done.
void WithClient(Leader& leader, const std::function<void()>& client) {
  std::atomic<bool> done{false};
  std::thread t([&] {
    client();
    done = true;
  });
  EXPECT_TRUE(TurnUntil(
      leader.base, [&] { return done.load(); }, 30));
  t.join();
}

void SendFrame(int fd, const std::string& wire) {
  ASSERT_EQ(send(fd, wire.data(), wire.size(), MSG_NOSIGNAL), static_cast<ssize_t>(wire.size()));
}

TEST(LauncherTcp, ALauncherThatProvesTheSecretIsServedAsTheDaemonsUser) {
  Leader leader;
  WithClient(leader, [&] {
    auto fd = ConnectAsLauncher(leader.address(), leader.secret);
    ASSERT_TRUE(fd) << fd.error().ToString();
    SendFrame(*fd, proto::EncodeFrame(proto::MsgType::kCtlStatus, proto::Json::object()));
    close(*fd);
  });
  EXPECT_TRUE(TurnUntil(
      leader.base, [&] { return !leader.frames.empty(); }, 10));
  ASSERT_EQ(leader.frames.size(), 1u);
  EXPECT_EQ(leader.frames[0], proto::MsgType::kCtlStatus);
  EXPECT_EQ(leader.uid, geteuid());
}

// A leader's host that dies sends no FIN: the launcher's link has the peer links' keepalive
// (tcp_keepalive.hpp), so it ends within 3 s instead of waiting for ever.
TEST(LauncherTcp, ALaunchersLinkIsKeptAlive) {
  Leader leader;
  WithClient(leader, [&] {
    auto fd = ConnectAsLauncher(leader.address(), leader.secret);
    ASSERT_TRUE(fd) << fd.error().ToString();
    int keepalive = 0;
    unsigned user_timeout = 0;
    socklen_t len = sizeof keepalive;
    getsockopt(*fd, SOL_SOCKET, SO_KEEPALIVE, &keepalive, &len);
    len = sizeof user_timeout;
    getsockopt(*fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, &len);
    EXPECT_EQ(keepalive, 1);
    EXPECT_EQ(user_timeout, 3000u);
    close(*fd);
  });
}

TEST(LauncherTcp, AWrongSecretIsRefusedAndNothingReachesTheLeader) {
  Leader leader;
  WithClient(leader, [&] {
    auto fd = ConnectAsLauncher(leader.address(), *Secret::Generate());
    ASSERT_FALSE(fd);
    EXPECT_EQ(fd.error().code(), ErrorCode::kPermissionDenied);
    EXPECT_NE(fd.error().message().find("wrong allocation secret"), std::string::npos)
        << fd.error().message();
  });
  // The listener serves on: the right secret still gets through.
  WithClient(leader, [&] {
    auto fd = ConnectAsLauncher(leader.address(), leader.secret);
    EXPECT_TRUE(fd) << fd.error().ToString();
    if (fd) close(*fd);
  });
  EXPECT_TRUE(leader.frames.empty());
}

// A daemon's proof (node 1, the right secret) is no launcher's: refused, and a frame sent
// after it never reaches the leader.
TEST(LauncherTcp, ADaemonsProofIsNotALaunchersOne) {
  Leader leader;
  std::string refusal;
  WithClient(leader, [&] {
    int raw = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(leader.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(raw, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    std::vector<uint8_t> buf;
    auto next = [&]() -> proto::Frame {
      for (;;) {
        size_t used = 0;
        auto f = proto::DecodeFrame(buf, &used);
        if (f && *f) {
          buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(used));
          return **f;
        }
        uint8_t chunk[4096];
        ssize_t n = recv(raw, chunk, sizeof chunk, 0);
        if (n <= 0) return proto::Frame{};
        buf.insert(buf.end(), chunk, chunk + n);
      }
    };
    auto challenge = proto::Decode<proto::AuthChallenge>(next());
    ASSERT_TRUE(challenge);
    SendFrame(raw, proto::Encode(proto::MsgType::kAuthResponse,
                                 proto::AuthResponse{1, leader.secret.Mac(challenge->nonce, 1),
                                                     leader.secret.Nonce()}));
    auto answer = next();
    if (auto e = proto::Decode<proto::ErrorReply>(answer); answer.type == proto::MsgType::kError)
      refusal = e ? e->message : "";
    std::string after = proto::EncodeFrame(proto::MsgType::kCtlStatus, proto::Json::object());
    send(raw, after.data(), after.size(), MSG_NOSIGNAL);
    close(raw);
  });
  EXPECT_NE(refusal.find("authentication failed"), std::string::npos) << refusal;
  TurnUntil(
      leader.base, [] { return false; }, 0.2);
  EXPECT_TRUE(leader.frames.empty());
}

// Anyone on the network can connect; those that do not prove the secret may not pile up
// (each may hold a 64 KiB frame buffer): 64 from one host wait at most, the rest are closed
// at once, and once they are gone a launcher gets through again.
TEST(LauncherTcp, ConnectionsThatDoNotAuthenticateAreCapped) {
  Leader leader;
  std::vector<int> fds;
  WithClient(leader, [&] {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(leader.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < 80; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
      fds.push_back(fd);
    }
  });
  TurnUntil(
      leader.base, [] { return false; }, 0.3);  // accept what is queued
  EXPECT_EQ(leader.service->clients(), 64u);
  for (int fd : fds) close(fd);
  EXPECT_TRUE(TurnUntil(
      leader.base, [&] { return leader.service->clients() == 0; }, 10));
  WithClient(leader, [&] {
    auto fd = ConnectAsLauncher(leader.address(), leader.secret);
    EXPECT_TRUE(fd) << fd.error().ToString();
    if (fd) close(*fd);
  });
}

TEST(LauncherTcp, NothingListeningIsConnectionRefused) {
  Leader leader;
  const std::string address = leader.address();
  leader.service.reset();  // the listener closes
  auto fd = ConnectAsLauncher(address, leader.secret);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().sys_errno(), ECONNREFUSED) << fd.error().ToString();
}

TEST(ContactFile, WrittenPrivateReadBackAndRemovedOnlyByItsWriter) {
  TempDir dir;
  const std::string path = dir / "psched/42/contact";
  auto secret = Secret::Generate();
  ASSERT_TRUE(WriteContact(path, "n1:4000", *secret));
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir / "psched/42").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto contact = ReadContact(path, "42");
  ASSERT_TRUE(contact) << contact.error().ToString();
  EXPECT_EQ(contact->address, "n1:4000");
  EXPECT_EQ(contact->secret.Hex(), secret->Hex());

  RemoveContact(path, "n1:4001");  // another leader's: left alone
  EXPECT_EQ(access(path.c_str(), F_OK), 0);
  RemoveContact(path, "n1:4000");
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  EXPECT_NE(access((dir / "psched/42").c_str(), F_OK), 0) << "the job's directory is left behind";
}

TEST(ContactFile, RefusedWhenOthersCouldReadItOrItIsMalformedAndNamesJobAndFile) {
  TempDir dir;
  const std::string path = dir / "psched/7/contact";
  ASSERT_TRUE(WriteContact(path, "n1:4000", *Secret::Generate()));
  chmod(path.c_str(), 0640);
  auto open_file = ReadContact(path, "7");
  ASSERT_FALSE(open_file);
  EXPECT_EQ(open_file.error().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(open_file.error().message().find("'" + path + "' of Slurm job 7 is open to others"),
            std::string::npos)
      << open_file.error().message();
  chmod(path.c_str(), 0600);
  chmod((dir / "psched/7").c_str(), 0750);
  auto open_dir = ReadContact(path, "7");
  ASSERT_FALSE(open_dir);
  EXPECT_NE(open_dir.error().message().find("its directory is open to others"), std::string::npos)
      << open_dir.error().message();
  chmod((dir / "psched/7").c_str(), 0700);
  ASSERT_EQ(truncate(path.c_str(), 10), 0);
  auto malformed = ReadContact(path, "7");
  ASSERT_FALSE(malformed);
  EXPECT_NE(malformed.error().message().find("is malformed"), std::string::npos);
  auto missing = ReadContact(dir / "psched/8/contact", "8");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().sys_errno(), ENOENT);
}

}  // namespace
}  // namespace psched::daemon
