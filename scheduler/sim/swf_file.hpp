// Reads an SWF trace from disk, plain or gzip-compressed (zlib reads both).
// The one file of the simulator that touches the file system; parsing is swf.hpp.
#pragma once

#include <string>

#include "common/error.hpp"
#include "scheduler/sim/swf.hpp"

namespace psched::sim {

// The whole file's text; an error names the file and the failing call.
Result<std::string> ReadMaybeGzip(const std::string& path);

Result<Workload> ReadSwfFile(const std::string& path, const SwfOptions& options = {});

}  // namespace psched::sim
