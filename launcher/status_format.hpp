// Human-readable `psched-ctl status`: nodes with what their monitors measured (load,
// memory, mean link latency and bandwidth) and a slot map (one character per slot:
// '.' free, '1'..'9' use count, '+' more), then the sessions.
#pragma once

#include <string>

#include "proto/allocation_status.hpp"

namespace psched::launcher {

std::string FormatStatus(const proto::AllocationStatus& status);

// Its parts, which psched-ctl top shows too: the first line (nodes, free slots, and
// over-use when slots are shared) and the table of nodes with their slot maps.
std::string StatusHeadline(const proto::AllocationStatus& status);
std::string NodeTable(const proto::AllocationStatus& status);
// The sessions' table: its header, and one session's line.
const char* SessionHeader();
std::string SessionLine(const proto::SessionStatus& session);

}  // namespace psched::launcher
