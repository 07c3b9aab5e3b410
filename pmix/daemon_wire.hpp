// How the daemon host receives its typed "pmix.*" point-to-point messages
// (proto/pmix_wire.hpp), shared by the daemon_*.cpp files.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "proto/pmix_wire.hpp"

namespace psched::pmix::wire {

// A typed "pmix.*" message (proto/pmix_wire.hpp); one that does not decode is dropped
// with a log line naming what is wrong, never a crash.
template <typename T>
std::optional<T> Receive(const std::string& data, const char* service) {
  auto m = proto::DecodePmix<T>(data, service);
  if (!m) {
    std::fprintf(stderr, "psched pmix: %s dropped\n", m.error().message().c_str());
    return std::nullopt;
  }
  return std::move(*m);
}

}  // namespace psched::pmix::wire
