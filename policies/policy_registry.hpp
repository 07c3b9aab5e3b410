// Builds a co-scheduling policy from its configured name. The one list of policy names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "policies/policy.hpp"

namespace psched::policies {

// Names in the order `--help` lists them: wait, surpass, overbook, sidestep.
// (policy_names.cpp, which links nothing else: the launchers' --help lists them.)
const std::vector<std::string>& PolicyNames();

// What the policy does when a session does not fit on the free slots, in one line
// ("queue until enough slots are free"); empty for an unknown name.
std::string_view PolicySummary(std::string_view name);

// "wait, surpass, overbook, sidestep": for error messages.
std::string JoinNames(const std::vector<std::string>& names);

// An unknown name is an error that lists the valid ones.
Result<std::unique_ptr<Policy>> MakePolicy(std::string_view name,
                                           const PolicyOptions& options = {});

}  // namespace psched::policies
