#include "daemon/net/tcp_address.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <cstring>

namespace psched::daemon {

Result<sockaddr_in> ResolveHostPort(const std::string& address, const std::string& what) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos)
    return Fail(ErrorCode::kInvalidArgument, what + ": '" + address + "' is not host:port");
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(address.substr(0, colon).c_str(), address.substr(colon + 1).c_str(),
                           &hints, &res);
      rc != 0) {
    return Fail(ErrorCode::kInvalidArgument, what + ": cannot resolve it: " + gai_strerror(rc));
  }
  sockaddr_in out{};
  std::memcpy(&out, res->ai_addr, sizeof out);
  freeaddrinfo(res);
  return out;
}

}  // namespace psched::daemon
