// The effective configuration as TOML, as `psched-config show` prints it: a file
// an admin can start from.
#pragma once

#include <string>

#include "config/config.hpp"

namespace psched::config {

std::string ToToml(const Config& config);

}  // namespace psched::config
