#include "launcher/ctl_client.hpp"

#include <unistd.h>

#include <vector>

namespace psched::launcher {

namespace {

std::string RequestFrame(proto::MsgType type, int64_t session) {
  switch (type) {
    case proto::MsgType::kCtlStatus:
      return proto::Encode(type, proto::CtlStatus{});
    case proto::MsgType::kCtlShutdown:
      return proto::Encode(type, proto::CtlShutdown{});
    default:
      return proto::Encode(type, proto::SessionRef{.session = session});
  }
}

}  // namespace

Result<proto::CtlReply> CtlRequest(int fd, proto::MsgType type, int64_t session) {
  std::string wire = RequestFrame(type, session);
  for (size_t off = 0; off < wire.size();) {
    ssize_t n = write(fd, wire.data() + off, wire.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail(Error::FromErrno("write", "sending to the psched daemon"));
    off += static_cast<size_t>(n);
  }
  std::vector<uint8_t> buf;
  for (;;) {
    size_t consumed = 0;
    auto frame = proto::DecodeFrame(buf, &consumed);
    if (!frame) return Fail(frame.error());
    if (*frame) {
      if ((*frame)->type == proto::MsgType::kError) {
        auto e = proto::Decode<proto::ErrorReply>(**frame);
        return Fail(ErrorCode::kPermissionDenied, e ? e->message : "daemon error");
      }
      if ((*frame)->type != proto::MsgType::kCtlReply) {
        return Fail(ErrorCode::kProtocol,
                    std::string("unexpected reply ") + proto::MsgTypeName((*frame)->type));
      }
      return proto::DecodeCtlReply(**frame);
    }
    uint8_t chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail(ErrorCode::kProtocol, "the psched daemon closed the connection");
    buf.insert(buf.end(), chunk, chunk + n);
  }
}

Result<proto::AllocationStatus> StatusReport(proto::CtlReply reply) {
  if (!reply.ok) return Fail(ErrorCode::kProtocol, reply.message);
  if (!reply.status) return Fail(ErrorCode::kProtocol, "the daemon's reply carries no status");
  return std::move(*reply.status);
}

}  // namespace psched::launcher
