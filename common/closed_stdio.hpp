// A command started with stdin, stdout or stderr closed (`psched-exec ... <&-`, a parent
// that closed them) hands the next descriptors it opens out as 0-2: psched-exec read its
// daemon socket as stdin and hung. Every command makes 0-2 valid before anything else
// (GuardedMain).
#pragma once

#include "common/error.hpp"

namespace psched {

// Opens /dev/null onto each of descriptors 0-2 that is closed (read-write: it may stand
// for any of them). Those that are open are left as they are.
Result<void> OpenNullOntoClosedStdio();

}  // namespace psched
