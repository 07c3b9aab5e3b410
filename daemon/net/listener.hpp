// A listening socket on the daemon's event loop (libevent's evconnlistener) that survives
// running out of descriptors. When accept fails for good (EMFILE, ENFILE, ENOBUFS), the
// pending connection stays queued and the socket stays readable, so libevent would call
// accept again at once, for ever: a busy loop that floods the log ("Error from accept()
// call") and keeps a CPU. Here the listener pauses for a second instead, saying so once
// per pause, and accepts again when descriptors may have been freed.
#pragma once

#include <event2/event.h>
#include <event2/listener.h>
#include <sys/socket.h>

#include <memory>
#include <string>

#include "common/error.hpp"

namespace psched::daemon {

class Listener {
 public:
  // Binds and listens on `address`; `on_accept(listener, fd, address, length, arg)` gets
  // each connection. `who` names it in the log ("pschedd[3]: peer listener").
  static Result<std::unique_ptr<Listener>> Bind(event_base* base, const sockaddr* address,
                                                socklen_t length, int backlog, bool reuse_address,
                                                evconnlistener_cb on_accept, void* arg,
                                                std::string who);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int fd() const { return evconnlistener_get_fd(listener_); }

 private:
  Listener(evconnlistener_cb on_accept, void* arg, std::string who)
      : on_accept_(on_accept), arg_(arg), who_(std::move(who)) {}
  // libevent hands the error callback the accept callback's argument: both come here.
  static void OnAccept(evconnlistener* listener, evutil_socket_t fd, sockaddr* address, int length,
                       void* self);
  static void OnError(evconnlistener* listener, void* self);
  static void OnRetry(evutil_socket_t, short, void* self);

  evconnlistener_cb on_accept_;
  void* arg_;
  std::string who_;
  evconnlistener* listener_ = nullptr;
  event* retry_ = nullptr;
};

}  // namespace psched::daemon
