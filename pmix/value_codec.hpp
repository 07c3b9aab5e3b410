// Turns a pmix_value_t into bytes and back with PMIx's own packer, so the name
// service can keep and forward any value a client publishes (Open MPI publishes
// integers for its context-id agreement, strings for ports) without knowing types.
#pragma once

#include <pmix.h>

#include <string>

#include "common/error.hpp"

namespace psched::pmix {

Result<std::string> PackValue(const pmix_value_t& value);
// Fills `out` (constructed by the caller; destruct it with PMIx_Value_destruct).
Result<void> UnpackValue(const std::string& bytes, pmix_value_t* out);

}  // namespace psched::pmix
