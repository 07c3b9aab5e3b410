// Error values carried through every layer of psched.
//
// A function that can fail returns Result<T>. The Error keeps what went wrong
// (a message), the errno and syscall when a system call failed, and whatever
// node / session ids are known. Each layer adds context with Wrap(); none drops it.
#pragma once

#include <cerrno>
#include <cstdint>
#include <expected>
#include <string>
#include <utility>

namespace psched {

enum class ErrorCode {
  kInvalidArgument,    // bad user input: options, config, snapshot files
  kNotFound,           // a session, node or file that does not exist
  kPermissionDenied,   // wrong uid, wrong secret, forbidden policy
  kResourceExhausted,  // not enough slots / nodes
  kProtocol,           // a frame that does not decode, a version mismatch
  kSystem,             // a syscall failed: see errno_ and syscall_
  kTimeout,
  kInternal,  // a bug
};

const char* ErrorCodeName(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  // An error from a failed system call; captures errno at the call site.
  static Error FromErrno(std::string syscall, std::string what, int err = errno);

  ErrorCode code() const { return code_; }
  int sys_errno() const { return errno_; }
  const std::string& syscall() const { return syscall_; }
  const std::string& message() const { return message_; }
  int node() const { return node_; }
  int64_t session() const { return session_; }

  Error& WithNode(int node) {
    node_ = node;
    return *this;
  }
  Error& WithSession(int64_t session) {
    session_ = session;
    return *this;
  }
  // Prefix the message with what the caller was doing: "spawning rank 3: execve: ENOENT".
  Error& Wrap(const std::string& context) {
    message_ = context + ": " + message_;
    return *this;
  }

  // One line for users: "node 2, session 7: spawning rank 3: execve: No such file or directory".
  std::string ToString() const;

 private:
  ErrorCode code_;
  std::string message_;
  int errno_ = 0;
  std::string syscall_;
  int node_ = -1;
  int64_t session_ = -1;
};

template <typename T>
using Result = std::expected<T, Error>;

// Shorthand for returning an error: `return Fail(ErrorCode::kInvalidArgument, "-n must be > 0");`
inline std::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return std::unexpected<Error>(Error(code, std::move(message)));
}
inline std::unexpected<Error> Fail(Error error) {
  return std::unexpected<Error>(std::move(error));
}

}  // namespace psched
