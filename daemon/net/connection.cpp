#include "daemon/net/connection.hpp"

#include <event2/buffer.h>
#include <sys/socket.h>

#include <new>
#include <span>

#include "proto/messages.hpp"

namespace psched::daemon {

std::shared_ptr<Connection> Connection::Make(event_base* base, int fd, std::string peer_name) {
  evutil_make_socket_nonblocking(fd);
  bufferevent* bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
  // It fails only when memory runs out: as for any allocation in C++, that throws.
  if (bev == nullptr) {
    evutil_closesocket(fd);
    throw std::bad_alloc();
  }
  return std::shared_ptr<Connection>(new Connection(bev, std::move(peer_name)));
}

Connection::Connection(bufferevent* bev, std::string peer_name)
    : bev_(bev), peer_name_(std::move(peer_name)) {}

Connection::~Connection() {
  if (bev_ != nullptr) bufferevent_free(bev_);
}

void Connection::Start(FrameHandler on_frame, CloseHandler on_close) {
  on_frame_ = std::move(on_frame);
  on_close_ = std::move(on_close);
  bufferevent_setcb(bev_, &Connection::OnRead, &Connection::OnWrite, &Connection::OnEvent, this);
  bufferevent_enable(bev_, EV_READ | EV_WRITE);
}

int Connection::fd() const {
  return bev_ ? bufferevent_getfd(bev_) : -1;
}

size_t Connection::pending_output() const {
  return bev_ ? evbuffer_get_length(bufferevent_get_output(bev_)) : 0;
}

void Connection::Send(const std::string& wire) {
  if (closed_ || closing_after_flush_) return;
  // Nothing queued: write at once. Through the bufferevent every frame costs a loop
  // iteration and two epoll_ctl calls (enable EPOLLOUT, wait, write, disable), on each
  // hop of a launch. What the socket does not take now, and any error, goes the
  // buffered way, which reports errors through OnEvent as before.
  size_t sent = 0;
  if (evbuffer_get_length(bufferevent_get_output(bev_)) == 0) {
    ssize_t n =
        send(bufferevent_getfd(bev_), wire.data(), wire.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) sent = static_cast<size_t>(n);
  }
  if (sent < wire.size()) bufferevent_write(bev_, wire.data() + sent, wire.size() - sent);
}

void Connection::FailAndClose(const std::string& message) {
  if (closed_ || closing_after_flush_) return;
  // Queued, not written directly: OnWrite closes once the buffer has drained.
  close_reason_ = "protocol error: " + message;
  std::string wire = proto::Encode(proto::MsgType::kError,
                                   proto::ErrorReply{.message = message, .code = "protocol"});
  bufferevent_write(bev_, wire.data(), wire.size());
  closing_after_flush_ = true;
  bufferevent_disable(bev_, EV_READ);
  // The error frame is flushed by OnWrite, which then closes.
}

void Connection::Close(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  auto self = shared_from_this();
  bufferevent_disable(bev_, EV_READ | EV_WRITE);
  bufferevent_free(bev_);  // closes the fd
  bev_ = nullptr;
  if (on_close_) on_close_(*this, why);
  on_frame_ = nullptr;
  on_close_ = nullptr;  // breaks cycles through captured owners
  drained_ = nullptr;
}

void Connection::WhenDrainedTo(size_t bytes, std::function<void()> drained) {
  if (closed_) return;
  drained_ = std::move(drained);
  drained_at_ = bytes;
  // libevent calls OnWrite once the output is down to the write low-watermark.
  bufferevent_setwatermark(bev_, EV_WRITE, bytes, 0);
}

void Connection::OnRead(bufferevent*, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  auto keep = self->shared_from_this();
  self->ReadFrames();
}

void Connection::ReadFrames() {
  while (!closed_ && !closing_after_flush_) {
    evbuffer* in = bufferevent_get_input(bev_);
    size_t available = evbuffer_get_length(in);
    if (available < proto::kHeaderSize) return;
    auto* header_bytes = evbuffer_pullup(in, proto::kHeaderSize);
    auto header = proto::ParseHeader({header_bytes, proto::kHeaderSize}, max_payload_);
    if (!header) return FailAndClose(header.error().message());
    size_t total = proto::kHeaderSize + header->length;
    if (available < total) return;
    auto* bytes = evbuffer_pullup(in, static_cast<ev_ssize_t>(total));
    size_t consumed = 0;
    auto frame =
        proto::DecodeFrame(std::span<const uint8_t>(bytes, total), &consumed, max_payload_);
    if (!frame) return FailAndClose(frame.error().message());
    evbuffer_drain(in, consumed);
    if (on_frame_) on_frame_(*this, std::move(**frame));
  }
}

void Connection::OnWrite(bufferevent* bev, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  if (self->drained_ && evbuffer_get_length(bufferevent_get_output(bev)) <= self->drained_at_) {
    auto keep = self->shared_from_this();
    std::function<void()> drained = std::move(self->drained_);
    self->drained_ = nullptr;
    bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
    drained();
    if (self->closed_) return;
  }
  if (self->closing_after_flush_ && evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
    auto keep = self->shared_from_this();
    self->Close(self->close_reason_);
  }
}

void Connection::OnEvent(bufferevent*, short what, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  auto keep = self->shared_from_this();
  if (what & BEV_EVENT_EOF) return self->Close("connection closed by peer");
  if (what & BEV_EVENT_ERROR) {
    return self->Close(std::string("connection error: ") +
                       evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
  }
}

}  // namespace psched::daemon
