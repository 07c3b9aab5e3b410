// Human-readable `psched-ctl status`: nodes with what their monitors measured (load,
// memory, mean link latency and bandwidth) and a slot map (one character per slot:
// '.' free, '1'..'9' use count, '+' more), then the sessions.
#pragma once

#include <string>

#include "proto/frame.hpp"

namespace psched::launcher {

std::string FormatStatus(const proto::Json& status);

}  // namespace psched::launcher
