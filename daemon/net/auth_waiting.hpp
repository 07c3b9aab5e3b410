// TCP connections that have not proved the allocation secret yet, for every listener that
// runs the HMAC challenge (the peer listener, the leader's launcher listener). Anyone on the
// network can open one, and each may hold a frame buffer of up to
// kMaxUnauthenticatedPayload: so few may wait at once, from one host and in all, and none
// for longer than kAuthTimeout (closed then, with a log line). A connection over a limit is
// closed at once, one log line a second at most with the count refused. Both times are
// read from the Clock it is given (a test's FakeClock moves them without waiting).
#pragma once

#include <event2/event.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "common/clock.hpp"
#include "daemon/net/connection.hpp"

namespace psched::daemon {

inline constexpr auto kAuthTimeout = std::chrono::seconds(5);

class AuthWaiting {
 public:
  struct Limits {
    size_t per_host;
    size_t total;
  };
  // `who` starts the log lines ("pschedd[3]"). `clock` outlives this object.
  AuthWaiting(event_base* base, std::string who, Limits limits, const Clock& clock = RealClock());
  // Closes those still waiting; their close handlers must not use this object any more.
  ~AuthWaiting();
  AuthWaiting(const AuthWaiting&) = delete;
  AuthWaiting& operator=(const AuthWaiting&) = delete;

  // A connection accepted from `host` ("127.0.0.1"): false when it may not wait beside
  // those that do; then `fd` is closed, and `who` ("127.0.0.1:45678") logged.
  bool MayWait(int fd, const std::string& host, const std::string& who);
  void Add(std::shared_ptr<Connection> conn, std::string host);
  // The connection proved the secret (or closed): it waits no more. Returns it, null when
  // it was not waiting.
  std::shared_ptr<Connection> Remove(Connection* conn);
  size_t size() const { return waiting_.size(); }
  // Closes, with an error frame, those that have waited longer than kAuthTimeout on the
  // clock. A timer runs it every second.
  void Sweep();

 private:
  static void OnSweep(evutil_socket_t, short, void* arg);

  const Clock& clock_;
  std::string who_;
  Limits limits_;
  struct Waiting {
    std::shared_ptr<Connection> conn;
    Clock::TimePoint since;
    std::string host;
  };
  std::map<Connection*, Waiting> waiting_;
  event* sweep_ = nullptr;
  Clock::TimePoint refused_logged_at_{};
  int refused_unlogged_ = 0;
};

// "127.0.0.1" and "127.0.0.1:45678" of an accepted connection, for limits and the log.
std::string HostText(const sockaddr* address);
std::string AddressText(const sockaddr* address);

}  // namespace psched::daemon
