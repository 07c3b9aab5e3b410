#include "daemon/net/listener.hpp"

#include <cstdio>
#include <cstring>

namespace psched::daemon {

Result<std::unique_ptr<Listener>> Listener::Bind(event_base* base, const sockaddr* address,
                                                 socklen_t length, int backlog, bool reuse_address,
                                                 evconnlistener_cb on_accept, void* arg,
                                                 std::string who) {
  std::unique_ptr<Listener> out(new Listener(on_accept, arg, std::move(who)));
  unsigned flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC;
  if (reuse_address) flags |= LEV_OPT_REUSEABLE;
  out->listener_ = evconnlistener_new_bind(base, &Listener::OnAccept, out.get(), flags, backlog,
                                           address, static_cast<int>(length));
  if (out->listener_ == nullptr) return Fail(Error::FromErrno("bind", out->who_));
  out->retry_ = evtimer_new(base, &Listener::OnRetry, out.get());
  evconnlistener_set_error_cb(out->listener_, &Listener::OnError);
  return out;
}

Listener::~Listener() {
  if (listener_) evconnlistener_free(listener_);
  if (retry_) event_free(retry_);
}

void Listener::OnAccept(evconnlistener* listener, evutil_socket_t fd, sockaddr* address, int length,
                        void* self) {
  auto* me = static_cast<Listener*>(self);
  me->on_accept_(listener, fd, address, length, me->arg_);
}

void Listener::OnError(evconnlistener* listener, void* self) {
  auto* me = static_cast<Listener*>(self);
  const int err = EVUTIL_SOCKET_ERROR();
  std::fprintf(stderr, "%s: accepting paused for 1 s: accept: %s\n", me->who_.c_str(),
               evutil_socket_error_to_string(err));
  evconnlistener_disable(listener);
  const timeval second = {1, 0};
  evtimer_add(me->retry_, &second);
}

void Listener::OnRetry(evutil_socket_t, short, void* self) {
  evconnlistener_enable(static_cast<Listener*>(self)->listener_);
}

}  // namespace psched::daemon
