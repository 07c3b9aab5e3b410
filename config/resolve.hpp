// What a user asked for (psched-exec --policy X --spread --allocator Y), within
// what the admin allows.
#pragma once

#include <string>
#include <string_view>

#include "config/config.hpp"

namespace psched::config {

struct ResolvedPolicy {
  std::string name;
  bool spread = false;
  policies::PolicyOptions options;
};

// `requested` empty: the configured default. A name that is unknown or not allowed
// is an error naming the allowed set; so is --spread where the admin forbids it.
Result<ResolvedPolicy> ResolvePolicy(const Config& config, std::string_view requested, bool spread);

// The allocator to use: `requested`, or the default when empty; same rules.
Result<std::string> ResolveAllocator(const Config& config, std::string_view requested);

// The allowed lists with "all" spelled out.
std::vector<std::string> AllowedPolicies(const Config& config);
std::vector<std::string> AllowedAllocators(const Config& config);

}  // namespace psched::config
