#include "pmi/wireup.hpp"

namespace psched::pmi {

namespace {

std::string Valid() {
  std::string out = " (valid: ";
  for (const std::string& n : WireUpNames()) out += (n == WireUpNames().front() ? "" : ", ") + n;
  return out + ")";
}

}  // namespace

Result<WireUp> ParseWireUp(std::string_view name) {
  if (name.empty() || name == "auto") return WireUp::kAuto;
  if (name == "pmix") return WireUp::kPmix;
  if (name == "pmi1") return WireUp::kPmi1;
  if (name == "pmi2") return WireUp::kPmi2;
  if (name == "none") return WireUp::kNone;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown MPI wire-up '" + std::string(name) + "'" + Valid());
}

const std::vector<std::string>& WireUpNames() {
  static const std::vector<std::string> names = {"auto", "pmix", "pmi1", "pmi2", "none"};
  return names;
}

}  // namespace psched::pmi
