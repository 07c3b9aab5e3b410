#include "daemon/net/launcher_tcp.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "daemon/net/tcp_address.hpp"
#include "daemon/net/tcp_keepalive.hpp"
#include "proto/messages.hpp"

namespace psched::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds left before `deadline` for poll (0 when past it).
int Left(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return ms.count() > 0 ? static_cast<int>(ms.count()) : 0;
}

Result<void> WaitFor(int fd, short events, Clock::time_point deadline, const std::string& what) {
  pollfd p{fd, events, 0};
  int rc;
  while ((rc = poll(&p, 1, Left(deadline))) < 0 && errno == EINTR) {
  }
  if (rc < 0) return Fail(Error::FromErrno("poll", what));
  if (rc == 0) return Fail(ErrorCode::kTimeout, what + ": no answer in time");
  return {};
}

Result<void> SendAll(int fd, const std::string& wire, Clock::time_point deadline,
                     const std::string& what) {
  for (size_t off = 0; off < wire.size();) {
    if (auto ok = WaitFor(fd, POLLOUT, deadline, what); !ok) return ok;
    ssize_t n = send(fd, wire.data() + off, wire.size() - off, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return Fail(Error::FromErrno("send", what));
    off += static_cast<size_t>(n);
  }
  return {};
}

// The next frame from the leader; an error frame becomes the error it carries.
Result<proto::Frame> ReceiveFrame(int fd, std::vector<uint8_t>& buf, Clock::time_point deadline,
                                  const std::string& what) {
  for (;;) {
    size_t consumed = 0;
    auto frame = proto::DecodeFrame(buf, &consumed, proto::kMaxUnauthenticatedPayload);
    if (!frame) return Fail(frame.error().Wrap(what));
    if (*frame) {
      buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(consumed));
      if ((*frame)->type == proto::MsgType::kError) {
        auto e = proto::Decode<proto::ErrorReply>(**frame);
        return Fail(ErrorCode::kPermissionDenied,
                    what + ": the leader refused: " + (e ? e->message : "(no message)"));
      }
      return std::move(**frame);
    }
    if (auto ok = WaitFor(fd, POLLIN, deadline, what); !ok) return Fail(ok.error());
    uint8_t chunk[4096];
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return Fail(Error::FromErrno("recv", what));
    if (n == 0) return Fail(ErrorCode::kProtocol, what + ": the leader closed the connection");
    buf.insert(buf.end(), chunk, chunk + n);
  }
}

Result<int> Connect(const std::string& address, Clock::time_point deadline,
                    const std::string& what) {
  auto to = ResolveHostPort(address, what);
  if (!to) return Fail(to.error());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Fail(Error::FromErrno("socket", what));
  int rc = connect(fd, reinterpret_cast<const sockaddr*>(&*to), sizeof *to);
  if (rc != 0 && errno == EINPROGRESS) {
    if (auto ok = WaitFor(fd, POLLOUT, deadline, what); !ok) {
      close(fd);
      return Fail(ok.error());
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    errno = err;
    rc = err == 0 ? 0 : -1;
  }
  if (rc != 0) {
    Error e = Error::FromErrno("connect", what);
    close(fd);
    return Fail(e);
  }
  KeepLinkAlive(fd);  // a leader's host that dies ends the launcher's wait
  return fd;
}

Result<void> Handshake(int fd, const Secret& secret, Clock::time_point deadline,
                       const std::string& what) {
  std::vector<uint8_t> buf;
  auto challenge = ReceiveFrame(fd, buf, deadline, what);
  if (!challenge) return Fail(challenge.error());
  auto nonce = proto::Decode<proto::AuthChallenge>(*challenge);
  if (challenge->type != proto::MsgType::kAuthChallenge || !nonce)
    return Fail(ErrorCode::kProtocol, what + ": expected the leader's challenge");
  const std::string ours = secret.Nonce();
  auto sent = SendAll(
      fd,
      proto::Encode(
          proto::MsgType::kAuthResponse,
          proto::AuthResponse{kLauncherNode, secret.Mac(nonce->nonce, kLauncherNode), ours}),
      deadline, what);
  if (!sent) return sent;
  auto ok = ReceiveFrame(fd, buf, deadline, what);
  if (!ok) return Fail(ok.error());
  auto proof = proto::Decode<proto::AuthOk>(*ok);
  if (ok->type != proto::MsgType::kAuthOk || !proof || !secret.Verify(proof->mac, ours, 0)) {
    return Fail(ErrorCode::kPermissionDenied,
                what +
                    ": the other end failed to prove the allocation secret: not this "
                    "allocation's leader");
  }
  return {};
}

}  // namespace

Result<int> ConnectAsLauncher(const std::string& address, const Secret& secret,
                              std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string what = "connecting to the psched leader at " + address;
  auto fd = Connect(address, deadline, what);
  if (!fd) return fd;
  if (auto ok = Handshake(*fd, secret, deadline, what); !ok) {
    close(*fd);
    return Fail(ok.error());
  }
  // The session's client code reads and writes blocking, as on the Unix socket.
  fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace psched::daemon
