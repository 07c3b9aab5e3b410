// Measures links between daemons on a dedicated TCP probe, apart from the tree
// links so that a bulk transfer never delays control frames: a few 1-byte
// ping-pongs (latency: half the smallest round trip), then one timed transfer of a
// fixed size acknowledged by the peer (bandwidth). Every daemon serves probes on
// its listen address; the monitor decides whom to probe and when.
//
// The probe server only echoes and discards: no state, no commands, bounded
// connections and transfer sizes.
#pragma once

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "daemon/net/listener.hpp"
#include "proto/messages.hpp"

namespace psched::daemon::monitor {

class LinkProber {
 public:
  using Done = std::function<void(Result<proto::LinkReport>)>;
  static constexpr uint64_t kMaxTransfer = 64u << 20;
  static constexpr size_t kMaxServed = 64;
  // Answers waiting for a served peer that does not read: beyond this the server stops
  // reading that peer until they are gone, so a peer that sends pings without reading
  // the echoes cannot make it buffer without bound.
  static constexpr size_t kMaxServedPending = 64u << 10;

  // `clock` (outliving the prober) times the round trips and the transfer: the
  // daemon's, a fake one in tests.
  LinkProber(event_base* base, int pings, uint64_t bytes, double timeout_s,
             const Clock& clock = RealClock());
  ~LinkProber();
  LinkProber(const LinkProber&) = delete;
  LinkProber& operator=(const LinkProber&) = delete;

  // Serves probes on host (IPv4), any port; returns "host:port".
  Result<std::string> Listen(const std::string& host);
  // Probes the peer serving at "host:port". One probe at a time: `done` is called
  // exactly once, from the event loop, before the next Probe may start.
  void Probe(int peer, const std::string& address, Done done);
  bool busy() const { return client_ != nullptr; }
  // Bytes waiting to be sent to served peers (tests check the bound).
  size_t served_pending() const;

 private:
  enum class ServeState { kCommand, kLength, kBulk };
  struct Served {
    ServeState state = ServeState::kCommand;
    uint64_t remaining = 0;
  };
  static void OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg);
  static void OnServeRead(bufferevent* bev, void* arg);
  static void OnServeWritten(bufferevent* bev, void* arg);
  static void OnServeEvent(bufferevent* bev, short what, void* arg);
  static void OnClientRead(bufferevent* bev, void* arg);
  static void OnClientEvent(bufferevent* bev, short what, void* arg);
  void Serve(bufferevent* bev);
  void Drop(bufferevent* bev);
  void SendPing();
  void SendBulk();
  void Finish(Result<proto::LinkReport> result);
  double Now() const;

  event_base* base_;
  const Clock& clock_;
  int pings_;
  uint64_t bytes_;
  double timeout_s_;
  std::string payload_;
  std::unique_ptr<Listener> listener_;
  std::map<bufferevent*, Served> served_;
  // The probe in flight.
  bufferevent* client_ = nullptr;
  int peer_ = 0;
  int pings_left_ = 0;
  double sent_at_ = 0, min_rtt_ = 0;
  bool in_bulk_ = false;
  Done done_;
};

}  // namespace psched::daemon::monitor
