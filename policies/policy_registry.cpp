#include "policies/policy_registry.hpp"

#include "policies/overbook.hpp"
#include "policies/sidestep.hpp"
#include "policies/surpass.hpp"
#include "policies/wait.hpp"

namespace psched::policies {

Result<std::unique_ptr<Policy>> MakePolicy(std::string_view name, const PolicyOptions& options) {
  if (name == "wait") return std::make_unique<WaitPolicy>(options);
  if (name == "surpass") return std::make_unique<SurpassPolicy>(options);
  if (name == "overbook") return std::make_unique<OverbookPolicy>(options);
  if (name == "sidestep") return std::make_unique<SidestepPolicy>(options);
  return Fail(ErrorCode::kInvalidArgument, "unknown policy '" + std::string(name) +
                                               "' (valid: " + JoinNames(PolicyNames()) + ")");
}

}  // namespace psched::policies
