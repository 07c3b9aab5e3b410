// Reading the configuration files: the only part of config/ that touches files.
#pragma once

#include <string>

#include "config/config.hpp"

namespace psched::config {

struct ConfigPaths {
  std::string system = std::string(kSystemConfigPath);  // read if it exists
  std::string user;                                     // $PSCHED_CONF: must exist when set
};

// The paths from the environment ($PSCHED_CONF).
ConfigPaths ConfigPathsFromEnvironment();

// One file on top of `base`.
Result<Config> LoadConfigFile(const std::string& path, const Config& base = DefaultConfig());

// The effective configuration: defaults, then the system file, then the user's.
Result<Config> LoadConfig(const ConfigPaths& paths);

}  // namespace psched::config
