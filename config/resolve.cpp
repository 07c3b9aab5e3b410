#include "config/resolve.hpp"

#include <algorithm>

#include "policies/policy_registry.hpp"
#include "scheduler/allocator_registry.hpp"

namespace psched::config {

namespace {

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string WhereFrom(const Config& config) {
  if (config.sources.empty()) return "built-in defaults";
  return policies::JoinNames(config.sources);
}

}  // namespace

std::vector<std::string> AllowedPolicies(const Config& config) {
  return config.allowed_policies.empty() ? policies::PolicyNames() : config.allowed_policies;
}

std::vector<std::string> AllowedAllocators(const Config& config) {
  return config.allowed_allocators.empty() ? sched::AllocatorNames() : config.allowed_allocators;
}

Result<ResolvedPolicy> ResolvePolicy(const Config& config, std::string_view requested,
                                     bool spread) {
  const std::string name = requested.empty() ? config.default_policy : std::string(requested);
  const std::vector<std::string> allowed = AllowedPolicies(config);
  if (!Contains(policies::PolicyNames(), name)) {
    return Fail(ErrorCode::kInvalidArgument,
                "unknown policy '" + name + "'; allowed here: " + policies::JoinNames(allowed));
  }
  if (!Contains(allowed, name)) {
    return Fail(ErrorCode::kPermissionDenied,
                "policy '" + name + "' is not allowed in this allocation; allowed here: " +
                    policies::JoinNames(allowed) + " (set by " + WhereFrom(config) + ")");
  }
  if (spread && !config.spread_allowed) {
    return Fail(ErrorCode::kPermissionDenied,
                "--spread is not allowed in this allocation (spread_allowed = false in " +
                    WhereFrom(config) + ")");
  }
  return ResolvedPolicy{name, spread, config.policy_options};
}

Result<std::string> ResolveAllocator(const Config& config, std::string_view requested) {
  const std::string name = requested.empty() ? config.default_allocator : std::string(requested);
  const std::vector<std::string> allowed = AllowedAllocators(config);
  if (!Contains(sched::AllocatorNames(), name)) {
    return Fail(ErrorCode::kInvalidArgument,
                "unknown allocator '" + name + "'; allowed here: " + policies::JoinNames(allowed));
  }
  if (!Contains(allowed, name)) {
    return Fail(ErrorCode::kPermissionDenied,
                "allocator '" + name + "' is not allowed in this allocation; allowed here: " +
                    policies::JoinNames(allowed) + " (set by " + WhereFrom(config) + ")");
  }
  return name;
}

}  // namespace psched::config
