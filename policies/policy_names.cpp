// The one list of policy names, with what each does, apart from MakePolicy: the
// launchers list them in their --help without linking the policies themselves.
#include "policies/policy_registry.hpp"

namespace psched::policies {

namespace {

struct Listed {
  std::string_view name;
  std::string_view summary;
};

constexpr Listed kPolicies[] = {
    {"wait", "queue until enough slots are free"},
    {"surpass", "suspend the most recent running sessions until it fits; they resume when it ends"},
    {"overbook",
     "share the least-used slots with running sessions (time-sharing), even beyond the "
     "allocation's size, as mpirun --oversubscribe"},
    {"sidestep",
     "move the ranks of running sessions onto the other slots of their node and run "
     "alone on the slots freed; they move back when it ends"},
};

}  // namespace

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Listed& p : kPolicies) out.emplace_back(p.name);
    return out;
  }();
  return names;
}

std::string_view PolicySummary(std::string_view name) {
  for (const Listed& p : kPolicies)
    if (p.name == name) return p.summary;
  return {};
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace psched::policies
