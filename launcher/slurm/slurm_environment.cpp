#include "launcher/slurm/slurm_environment.hpp"

#include <unistd.h>

#include <string_view>

namespace psched::slurm {

Environment CurrentEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    // First definition wins, as getenv() does.
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

Result<std::optional<SlurmAllocation>> DetectAllocation() {
  return ParseAllocation(CurrentEnvironment());
}

}  // namespace psched::slurm
