// The deadline of a connection that has not proved the secret, on the clock the
// daemon gives AuthWaiting: a FakeClock moves it past kAuthTimeout without waiting.
#include "daemon/net/auth_waiting.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace psched::daemon {
namespace {

TEST(AuthWaiting, AConnectionThatDoesNotAuthenticateIsClosedAtTheDeadlineOfItsClock) {
  event_base* base = event_base_new();
  ASSERT_NE(base, nullptr);
  FakeClock clock;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  std::string why;
  {
    AuthWaiting waiting(base, "test", {.per_host = 2, .total = 4}, clock);
    auto conn = Connection::Make(base, fds[0], "peer");
    conn->Start([](Connection&, proto::Frame&&) {},
                [&](Connection& c, const std::string& reason) {
                  why = reason;
                  waiting.Remove(&c);
                });
    waiting.Add(std::move(conn), "127.0.0.1");
    auto settle = [&] {
      for (int i = 0; i < 20 && waiting.size() > 0; ++i) event_base_loop(base, EVLOOP_NONBLOCK);
    };
    clock.Advance(std::chrono::duration<double>(kAuthTimeout).count() - 0.1);
    waiting.Sweep();
    settle();
    EXPECT_EQ(waiting.size(), 1u) << "closed before its deadline: " << why;
    clock.Advance(0.2);
    waiting.Sweep();
    settle();
    EXPECT_EQ(waiting.size(), 0u);
    EXPECT_NE(why.find("authentication timed out"), std::string::npos) << why;
    // The other end got the error frame before the close.
    char buf[256];
    const ssize_t n = read(fds[1], buf, sizeof buf);
    ASSERT_GT(n, 0);
    EXPECT_NE(std::string(buf, static_cast<size_t>(n)).find("authentication timed out"),
              std::string::npos);
  }
  close(fds[1]);
  event_base_free(base);
}

}  // namespace
}  // namespace psched::daemon
