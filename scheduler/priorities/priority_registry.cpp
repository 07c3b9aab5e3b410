#include "scheduler/priorities/priority_registry.hpp"

#include "scheduler/priorities/fcfs.hpp"
#include "scheduler/priorities/psp.hpp"

namespace psched::sched::prio {

const std::vector<std::string>& PriorityNames() {
  static const std::vector<std::string> names = {"fcfs", "psp", "psp+aging"};
  return names;
}

Result<std::unique_ptr<PriorityModule>> MakePriority(std::string_view name,
                                                     const PriorityConfig& config) {
  if (name == "fcfs") return std::make_unique<Fcfs>();
  if (name == "psp") return std::make_unique<Psp>(config, false);
  if (name == "psp+aging") return std::make_unique<Psp>(config, true);
  std::string valid;
  for (const std::string& n : PriorityNames()) valid += (valid.empty() ? "" : ", ") + n;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown priority '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace psched::sched::prio
