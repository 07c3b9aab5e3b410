#include "config/load.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/read_file.hpp"

namespace psched::config {

ConfigPaths ConfigPathsFromEnvironment() {
  ConfigPaths paths;
  if (const char* user = std::getenv(std::string(kConfigEnv).c_str()); user != nullptr)
    paths.user = user;
  return paths;
}

Result<Config> LoadConfigFile(const std::string& path, const Config& base) {
  auto text = ReadWholeFile(path, "cannot read config file " + path);
  if (!text) return Fail(text.error());
  return ParseConfig(*text, path, base);
}

Result<Config> LoadConfig(const ConfigPaths& paths) {
  Config config = DefaultConfig();
  std::error_code ec;
  if (!paths.system.empty() && std::filesystem::exists(paths.system, ec)) {
    Result<Config> system = LoadConfigFile(paths.system, config);
    if (!system) return system;
    config = std::move(*system);
  }
  if (!paths.user.empty()) {
    Result<Config> user = LoadConfigFile(paths.user, config);
    if (!user) {
      Error e = user.error();
      if (e.code() == ErrorCode::kSystem) e.Wrap("$" + std::string(kConfigEnv));
      return Fail(std::move(e));
    }
    config = std::move(*user);
  }
  return config;
}

}  // namespace psched::config
