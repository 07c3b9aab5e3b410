#include "daemon/monitor/link_prober.hpp"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "common/timeval.hpp"
#include "daemon/monitor/metrics.hpp"

namespace psched::daemon::monitor {
namespace {

constexpr char kPing = 'P';
constexpr char kBulk = 'B';
constexpr char kAck = 'A';

Result<sockaddr_in> ParseAddress(const std::string& address) {
  size_t colon = address.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (colon == std::string::npos ||
      inet_pton(AF_INET, address.substr(0, colon).c_str(), &addr.sin_addr) != 1)
    return Fail(ErrorCode::kInvalidArgument, "probe address '" + address + "' is not IPv4:port");
  int port = std::atoi(address.c_str() + colon + 1);
  if (port <= 0 || port > 65535)
    return Fail(ErrorCode::kInvalidArgument, "probe address '" + address + "' has no valid port");
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

}  // namespace

LinkProber::LinkProber(event_base* base, int pings, uint64_t bytes, double timeout_s,
                       const Clock& clock)
    : base_(base),
      clock_(clock),
      pings_(pings < 1 ? 1 : pings),
      bytes_(bytes > kMaxTransfer ? kMaxTransfer : bytes),
      timeout_s_(timeout_s),
      payload_(bytes_, '\0') {}

LinkProber::~LinkProber() {
  if (client_) bufferevent_free(client_);
  for (auto& [bev, s] : served_) bufferevent_free(bev);
  listener_.reset();
}

double LinkProber::Now() const {
  return std::chrono::duration<double>(clock_.Now().time_since_epoch()).count();
}

Result<std::string> LinkProber::Listen(const std::string& host) {
  auto addr = ParseAddress(host + ":1");
  if (!addr) return Fail(addr.error());
  addr->sin_port = 0;
  auto listener = Listener::Bind(base_, reinterpret_cast<sockaddr*>(&*addr), sizeof *addr, 16,
                                 /*reuse_address=*/true, &LinkProber::OnAccept, this,
                                 "pschedd: link probe listener on " + host);
  if (!listener) return Fail(listener.error());
  listener_ = std::move(*listener);
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(listener_->fd(), reinterpret_cast<sockaddr*>(&bound), &len);
  return host + ":" + std::to_string(ntohs(bound.sin_port));
}

void LinkProber::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
  auto* self = static_cast<LinkProber*>(arg);
  if (self->served_.size() >= kMaxServed) {
    evutil_closesocket(fd);
    return;
  }
  bufferevent* bev = bufferevent_socket_new(self->base_, fd, BEV_OPT_CLOSE_ON_FREE);
  if (bev == nullptr) {
    evutil_closesocket(fd);
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  self->served_[bev] = Served{};
  bufferevent_setcb(bev, &LinkProber::OnServeRead, &LinkProber::OnServeWritten,
                    &LinkProber::OnServeEvent, self);
  timeval idle{60, 0};
  bufferevent_set_timeouts(bev, &idle, nullptr);
  bufferevent_enable(bev, EV_READ | EV_WRITE);
}

void LinkProber::OnServeRead(bufferevent* bev, void* arg) {
  static_cast<LinkProber*>(arg)->Serve(bev);
}

// Everything answered went out: read again what a peer that did not read had sent.
void LinkProber::OnServeWritten(bufferevent* bev, void* arg) {
  if ((bufferevent_get_enabled(bev) & EV_READ) != 0) return;
  bufferevent_enable(bev, EV_READ);
  static_cast<LinkProber*>(arg)->Serve(bev);
}

size_t LinkProber::served_pending() const {
  size_t total = 0;
  for (const auto& [bev, s] : served_) total += evbuffer_get_length(bufferevent_get_output(bev));
  return total;
}

void LinkProber::OnServeEvent(bufferevent* bev, short, void* arg) {
  // EOF, error or idle time-out: the prober is done with us (or gone).
  static_cast<LinkProber*>(arg)->Drop(bev);
}

void LinkProber::Drop(bufferevent* bev) {
  served_.erase(bev);
  bufferevent_free(bev);
}

void LinkProber::Serve(bufferevent* bev) {
  Served& s = served_[bev];
  evbuffer* in = bufferevent_get_input(bev);
  evbuffer* out = bufferevent_get_output(bev);
  for (;;) {
    if (evbuffer_get_length(out) >= kMaxServedPending) {
      bufferevent_disable(bev, EV_READ);  // OnServeWritten reads on
      return;
    }
    size_t have = evbuffer_get_length(in);
    if (s.state == ServeState::kCommand) {
      if (have < 1) return;
      char c = 0;
      evbuffer_remove(in, &c, 1);
      if (c == kPing) {
        bufferevent_write(bev, &kPing, 1);
      } else if (c == kBulk) {
        s.state = ServeState::kLength;
      } else {
        return Drop(bev);
      }
    } else if (s.state == ServeState::kLength) {
      if (have < 4) return;
      uint32_t n = 0;
      evbuffer_remove(in, &n, 4);
      s.remaining = ntohl(n);
      if (s.remaining > kMaxTransfer) return Drop(bev);
      s.state = ServeState::kBulk;
      if (s.remaining == 0) {
        bufferevent_write(bev, &kAck, 1);
        s.state = ServeState::kCommand;
      }
    } else {
      if (have == 0) return;
      size_t take = have < s.remaining ? have : static_cast<size_t>(s.remaining);
      evbuffer_drain(in, take);
      s.remaining -= take;
      if (s.remaining == 0) {
        bufferevent_write(bev, &kAck, 1);
        s.state = ServeState::kCommand;
      }
    }
  }
}

void LinkProber::Probe(int peer, const std::string& address, Done done) {
  if (client_ != nullptr)
    return done(Fail(ErrorCode::kInternal, "a link probe is already in flight"));
  auto addr = ParseAddress(address);
  if (!addr) return done(Fail(addr.error()));
  // Our own socket, close-on-exec (libevent would make one without).
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return done(Fail(Error::FromErrno(
        "socket", "link probe to node " + std::to_string(peer) + " at " + address)));
  }
  client_ = bufferevent_socket_new(base_, fd, BEV_OPT_CLOSE_ON_FREE);
  if (client_ == nullptr) {
    close(fd);
    return done(Fail(ErrorCode::kSystem, "link probe to node " + std::to_string(peer) +
                                             ": bufferevent_socket_new failed"));
  }
  peer_ = peer;
  pings_left_ = pings_;
  min_rtt_ = 0;
  in_bulk_ = false;
  done_ = std::move(done);
  bufferevent_setcb(client_, &LinkProber::OnClientRead, nullptr, &LinkProber::OnClientEvent, this);
  timeval limit = TimevalFromSeconds(timeout_s_);
  bufferevent_set_timeouts(client_, &limit, &limit);
  bufferevent_enable(client_, EV_READ | EV_WRITE);
  if (bufferevent_socket_connect(client_, reinterpret_cast<sockaddr*>(&*addr), sizeof *addr) != 0) {
    Finish(Fail(Error::FromErrno("connect",
                                 "link probe to node " + std::to_string(peer) + " at " + address)));
  }
}

void LinkProber::SendPing() {
  sent_at_ = Now();
  bufferevent_write(client_, &kPing, 1);
}

void LinkProber::SendBulk() {
  in_bulk_ = true;
  char header[5] = {kBulk};
  uint32_t n = htonl(static_cast<uint32_t>(bytes_));
  std::memcpy(header + 1, &n, 4);
  sent_at_ = Now();
  bufferevent_write(client_, header, sizeof header);
  bufferevent_write(client_, payload_.data(), payload_.size());
}

void LinkProber::OnClientEvent(bufferevent*, short what, void* arg) {
  auto* self = static_cast<LinkProber*>(arg);
  if (what & BEV_EVENT_CONNECTED) {
    int one = 1;
    setsockopt(bufferevent_getfd(self->client_), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return self->SendPing();
  }
  std::string why = (what & BEV_EVENT_TIMEOUT) ? "timed out"
                    : (what & BEV_EVENT_EOF)   ? "closed by the peer"
                                               : std::strerror(EVUTIL_SOCKET_ERROR());
  self->Finish(
      Fail(ErrorCode::kSystem, "link probe to node " + std::to_string(self->peer_) + ": " + why));
}

void LinkProber::OnClientRead(bufferevent* bev, void* arg) {
  auto* self = static_cast<LinkProber*>(arg);
  evbuffer* in = bufferevent_get_input(bev);
  char c = 0;
  // Finish() may start the next probe from `done` on a new bufferevent: return
  // right after it rather than reading on.
  while (evbuffer_remove(in, &c, 1) == 1) {
    double now = self->Now();
    if (c == kPing && !self->in_bulk_) {
      double rtt = now - self->sent_at_;
      if (self->min_rtt_ == 0 || rtt < self->min_rtt_) self->min_rtt_ = rtt;
      if (--self->pings_left_ > 0) {
        self->SendPing();
      } else {
        self->SendBulk();
      }
    } else if (c == kAck && self->in_bulk_) {
      return self->Finish(
          LinkFromProbe(self->peer_, self->min_rtt_, self->bytes_, now - self->sent_at_));
    } else {
      return self->Finish(
          Fail(ErrorCode::kProtocol,
               "link probe to node " + std::to_string(self->peer_) + ": unexpected reply byte"));
    }
  }
}

void LinkProber::Finish(Result<proto::LinkReport> result) {
  if (client_ == nullptr) return;
  bufferevent_free(client_);
  client_ = nullptr;
  Done done = std::move(done_);
  done_ = nullptr;
  done(std::move(result));
}

}  // namespace psched::daemon::monitor
