// One framed connection (Unix or TCP) on the daemon's libevent loop.
//
// Reads frames with proto::DecodeFrame and hands each to the owner's handler; a
// frame that does not decode gets an error reply and the connection is closed
// (the daemon itself never stops serving). Owners hold connections by shared_ptr
// and may drop them inside a handler: callbacks keep themselves alive meanwhile.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "proto/frame.hpp"

namespace psched::daemon {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using FrameHandler = std::function<void(Connection&, proto::Frame&&)>;
  using CloseHandler = std::function<void(Connection&, const std::string& why)>;

  // Takes ownership of `fd` (non-blocking, close-on-free).
  static std::shared_ptr<Connection> Make(event_base* base, int fd, std::string peer_name);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Handlers are set once, before Start() enables reading.
  void Start(FrameHandler on_frame, CloseHandler on_close);
  void Send(const std::string& wire);
  // Replies with an error frame, then closes once it is flushed.
  void FailAndClose(const std::string& message);
  // Closes now; the close handler runs (once) with `why`.
  void Close(const std::string& why);
  // Runs `drained` once, when no more than `bytes` of output wait to be written (flow
  // control: whoever stopped feeding this connection starts again).
  void WhenDrainedTo(size_t bytes, std::function<void()> drained);

  // Frames longer than this are a protocol error (proto/frame.hpp's limits by peer).
  void set_max_payload(uint32_t bytes) { max_payload_ = bytes; }
  bool closed() const { return closed_; }
  int fd() const;
  const std::string& peer_name() const { return peer_name_; }
  size_t pending_output() const;

  // Owner-defined identity of the other end (node id, uid), set after authentication.
  int peer_node = -1;
  bool authenticated = false;
  std::string challenge;  // the nonce we sent, while authenticating

 private:
  Connection(bufferevent* bev, std::string peer_name);
  static void OnRead(bufferevent* bev, void* arg);
  static void OnWrite(bufferevent* bev, void* arg);
  static void OnEvent(bufferevent* bev, short what, void* arg);
  void ReadFrames();

  bufferevent* bev_;
  std::string peer_name_;
  FrameHandler on_frame_;
  CloseHandler on_close_;
  bool closed_ = false;
  bool closing_after_flush_ = false;
  std::string close_reason_;  // why FailAndClose closes: for the close handler (the log)
  uint32_t max_payload_ = proto::kMaxPayload;
  std::function<void()> drained_;
  size_t drained_at_ = 0;
};

}  // namespace psched::daemon
