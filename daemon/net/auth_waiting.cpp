#include "daemon/net/auth_waiting.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace psched::daemon {

std::string HostText(const sockaddr* address) {
  if (address == nullptr || address->sa_family != AF_INET) return "an unknown address";
  const auto* in = reinterpret_cast<const sockaddr_in*>(address);
  char host[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  return host;
}

std::string AddressText(const sockaddr* address) {
  if (address == nullptr || address->sa_family != AF_INET) return "an unknown address";
  const auto* in = reinterpret_cast<const sockaddr_in*>(address);
  return HostText(address) + ":" + std::to_string(ntohs(in->sin_port));
}

AuthWaiting::AuthWaiting(event_base* base, std::string who, Limits limits, const Clock& clock)
    : clock_(clock), who_(std::move(who)), limits_(limits) {
  sweep_ = event_new(base, -1, EV_PERSIST, &AuthWaiting::OnSweep, this);
  const timeval every = {1, 0};
  event_add(sweep_, &every);
}

AuthWaiting::~AuthWaiting() {
  event_free(sweep_);
  // Closing runs each close handler, which may call Remove: close from a copy.
  for (auto& [p, w] : std::exchange(waiting_, {})) w.conn->Close("daemon stopping");
}

bool AuthWaiting::MayWait(int fd, const std::string& host, const std::string& who) {
  std::string full;
  if (waiting_.size() >= limits_.total) {
    full = std::to_string(limits_.total) + " connections wait for authentication already";
  } else {
    size_t same = 0;
    for (const auto& [p, w] : waiting_) same += w.host == host ? 1 : 0;
    if (same >= limits_.per_host) {
      full = std::to_string(limits_.per_host) + " connections from " + host +
             " wait for authentication already";
    }
  }
  if (full.empty()) return true;
  close(fd);
  // One line a second at most: a flood of connections must not become a flood of log.
  const Clock::TimePoint now = clock_.Now();
  ++refused_unlogged_;
  if (now - refused_logged_at_ >= std::chrono::seconds(1)) {
    std::fprintf(stderr,
                 "%s: refused the connection of %s: %s (%d refused since the last such line)\n",
                 who_.c_str(), who.c_str(), full.c_str(), refused_unlogged_);
    refused_logged_at_ = now;
    refused_unlogged_ = 0;
  }
  return false;
}

void AuthWaiting::Add(std::shared_ptr<Connection> conn, std::string host) {
  Connection* key = conn.get();
  waiting_[key] = {std::move(conn), clock_.Now(), std::move(host)};
}

std::shared_ptr<Connection> AuthWaiting::Remove(Connection* conn) {
  auto it = waiting_.find(conn);
  if (it == waiting_.end()) return nullptr;
  auto out = std::move(it->second.conn);
  waiting_.erase(it);
  return out;
}

void AuthWaiting::OnSweep(evutil_socket_t, short, void* arg) {
  static_cast<AuthWaiting*>(arg)->Sweep();
}

void AuthWaiting::Sweep() {
  const Clock::TimePoint now = clock_.Now();
  std::vector<std::shared_ptr<Connection>> late;
  for (auto& [p, w] : waiting_)
    if (now - w.since > kAuthTimeout) late.push_back(w.conn);
  // Still waiting (held here) until their close handlers Remove them, once the error is out.
  for (auto& conn : late) {
    std::fprintf(stderr, "%s: closed %s: no authentication within %lld s\n", who_.c_str(),
                 conn->peer_name().c_str(), static_cast<long long>(kAuthTimeout.count()));
    conn->FailAndClose("authentication timed out");
  }
}

}  // namespace psched::daemon
