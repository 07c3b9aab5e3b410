// Real probes over loopback between two LinkProbers on one event loop, a probe to
// a closed port, and a server that refuses garbage.
#include "daemon/monitor/link_prober.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "common/clock.hpp"

namespace psched::daemon::monitor {
namespace {

struct Loop {
  event_base* base = event_base_new();
  ~Loop() { event_base_free(base); }
  // Runs until `done` or 30 s of loop time (generous on a loaded machine).
  template <typename Pred>
  void RunUntil(Pred done) {
    for (int i = 0; i < 3000 && !done(); ++i) {
      timeval tick{0, 10000};
      event_base_loopexit(base, &tick);
      event_base_dispatch(base);
    }
  }
};

// A plain socket connected (or connecting, with SOCK_NONBLOCK) to a prober's "host:port";
// `rcvbuf` > 0 sets its receive buffer first (it sizes the TCP window only before connect).
int ConnectTo(const std::string& address, int flags = 0, int rcvbuf = 0) {
  int port = std::stoi(address.substr(address.rfind(':') + 1));
  int fd = socket(AF_INET, SOCK_STREAM | flags, 0);
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  EXPECT_TRUE(rc == 0 || errno == EINPROGRESS) << "connect to " << address;
  return fd;
}

TEST(LinkProber, MeasuresLatencyAndBandwidthOverLoopback) {
  Loop loop;
  LinkProber server(loop.base, 3, uint64_t{64} * 1024, 10),
      client(loop.base, 3, uint64_t{256} * 1024, 10);
  auto address = server.Listen("127.0.0.1");
  ASSERT_TRUE(address) << address.error().message();
  EXPECT_EQ(address->rfind("127.0.0.1:", 0), 0u);
  std::optional<Result<proto::LinkReport>> got;
  client.Probe(4, *address, [&](Result<proto::LinkReport> r) { got = std::move(r); });
  EXPECT_TRUE(client.busy());
  loop.RunUntil([&] { return got.has_value(); });
  ASSERT_TRUE(got.has_value());
  ASSERT_TRUE(*got) << got->error().message();
  EXPECT_EQ((*got)->peer, 4);
  EXPECT_GT((*got)->latency_us, 0);
  EXPECT_GT((*got)->bandwidth_mbps, 0);
  EXPECT_FALSE(client.busy());
  // A second probe on the same server works too (the server went back to commands).
  got.reset();
  client.Probe(4, *address, [&](Result<proto::LinkReport> r) { got = std::move(r); });
  loop.RunUntil([&] { return got.has_value(); });
  ASSERT_TRUE(got.has_value() && *got);
}

// The probe times its round trips and its transfer on the clock it is given (the
// daemon's): real loopback traffic, times of 4 ms each, so latency is half of that
// and the transfer's wire time is what remains of it beyond one round trip (at least
// half a round trip: metrics.cpp's LinkFromProbe).
TEST(LinkProber, TimesItsProbeOnItsClock) {
  Loop loop;
  SteppingClock clock(0.004);
  LinkProber server(loop.base, 3, uint64_t{64} * 1024, 10),
      client(loop.base, 3, uint64_t{256} * 1024, 10, clock);
  auto address = server.Listen("127.0.0.1");
  ASSERT_TRUE(address) << address.error().message();
  std::optional<Result<proto::LinkReport>> got;
  client.Probe(2, *address, [&](Result<proto::LinkReport> r) { got = std::move(r); });
  loop.RunUntil([&] { return got.has_value(); });
  ASSERT_TRUE(got.has_value() && *got);
  EXPECT_NEAR((*got)->latency_us, 2000, 1e-6);
  EXPECT_NEAR((*got)->bandwidth_mbps, 256.0 * 1024 * 8 / 0.002 / 1e6, 1e-6);
}

TEST(LinkProber, ClosedPortFailsNamingThePeer) {
  Loop loop;
  // A port nobody listens on: bind, read the port, close.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  LinkProber client(loop.base, 2, 4096, 10);
  std::optional<Result<proto::LinkReport>> got;
  client.Probe(7, "127.0.0.1:" + std::to_string(ntohs(a.sin_port)),
               [&](Result<proto::LinkReport> r) { got = std::move(r); });
  loop.RunUntil([&] { return got.has_value(); });
  ASSERT_TRUE(got.has_value());
  ASSERT_FALSE(*got);
  EXPECT_NE(got->error().message().find("node 7"), std::string::npos) << got->error().message();
}

TEST(LinkProber, BadAddressesAreRefused) {
  Loop loop;
  LinkProber client(loop.base, 2, 4096, 10);
  for (const char* bad :
       {"nohost", "127.0.0.1", "127.0.0.1:0", "host.example:80", "1.2.3.4:99999"}) {
    std::optional<Result<proto::LinkReport>> got;
    client.Probe(1, bad, [&](Result<proto::LinkReport> r) { got = std::move(r); });
    ASSERT_TRUE(got.has_value()) << bad;
    ASSERT_FALSE(*got) << bad;
    EXPECT_NE(got->error().message().find(bad), std::string::npos) << got->error().message();
  }
  EXPECT_FALSE(LinkProber(loop.base, 1, 4096, 1).Listen("not-an-ip"));
}

TEST(LinkProber, ServerDropsAConnectionSendingGarbage) {
  Loop loop;
  LinkProber server(loop.base, 1, 4096, 10);
  auto address = server.Listen("127.0.0.1");
  ASSERT_TRUE(address);
  int fd = ConnectTo(*address);
  ASSERT_EQ(write(fd, "X", 1), 1);
  char c = 0;
  ssize_t n = 1;
  // The server closes: read returns 0 (EOF) once the loop has served the byte.
  loop.RunUntil([&] {
    n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0;
  });
  EXPECT_EQ(n, 0);
  close(fd);
}

// A peer that sends pings and never reads the echoes: the server stops reading it once
// kMaxServedPending bytes of echoes wait, instead of buffering one per ping without end
// (the probe port takes connections before anyone authenticates). When the peer reads
// again, every ping is answered.
TEST(LinkProber, PeerThatDoesNotReadIsNotBufferedWithoutBound) {
  Loop loop;
  LinkProber server(loop.base, 1, 4096, 10);
  auto address = server.Listen("127.0.0.1");
  ASSERT_TRUE(address);
  // A small receive buffer keeps the kernel's share of the backlog small.
  int fd = ConnectTo(*address, SOCK_NONBLOCK, 16 << 10);
  const std::string pings(64 << 10, 'P');
  size_t sent = 0, peak = 0;
  for (int round = 0; round < 200 && sent < (4u << 20); ++round) {
    ssize_t n = send(fd, pings.data(), pings.size(), MSG_NOSIGNAL);
    if (n > 0) sent += static_cast<size_t>(n);
    timeval tick{0, 2000};
    event_base_loopexit(loop.base, &tick);
    event_base_dispatch(loop.base);
    peak = std::max(peak, server.served_pending());
  }
  EXPECT_LE(peak, LinkProber::kMaxServedPending + (64u << 10)) << "after " << sent << " bytes sent";
  // The peer reads now: every ping it got through is answered.
  size_t echoed = 0;
  char buf[65536];
  loop.RunUntil([&] {
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) echoed += static_cast<size_t>(n);
    return echoed >= sent;
  });
  EXPECT_EQ(echoed, sent);
  close(fd);
}

}  // namespace
}  // namespace psched::daemon::monitor
