#include "common/error.hpp"

#include <cstring>

namespace psched {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kPermissionDenied:
      return "permission denied";
    case ErrorCode::kResourceExhausted:
      return "resource exhausted";
    case ErrorCode::kProtocol:
      return "protocol error";
    case ErrorCode::kSystem:
      return "system error";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown error";
}

Error Error::FromErrno(std::string syscall, std::string what, int err) {
  Error e(ErrorCode::kSystem, std::move(what));
  e.errno_ = err;
  e.syscall_ = std::move(syscall);
  return e;
}

std::string Error::ToString() const {
  std::string out;
  if (node_ >= 0) out += "node " + std::to_string(node_);
  if (session_ >= 0)
    out += (out.empty() ? "" : ", ") + std::string("session ") + std::to_string(session_);
  if (!out.empty()) out += ": ";
  out += message_;
  if (!syscall_.empty()) out += ": " + syscall_ + ": " + std::strerror(errno_);
  return out;
}

}  // namespace psched
