#include "scheduler/priorities/priority_registry.hpp"

#include "scheduler/priorities/fcfs.hpp"
#include "scheduler/priorities/multifactor.hpp"
#include "scheduler/priorities/psp.hpp"

namespace psched::sched::prio {

const std::vector<std::string>& PriorityNames() {
  static const std::vector<std::string> names = {"fcfs", "psp", "psp+aging", "multifactor"};
  return names;
}

Result<std::unique_ptr<PriorityModule>> MakePriority(std::string_view name,
                                                     const PriorityConfig& config) {
  if (name == "fcfs") return std::make_unique<Fcfs>();
  if (name == "psp") return std::make_unique<Psp>(config, false);
  if (name == "psp+aging") return std::make_unique<Psp>(config, true);
  if (name == "multifactor") {
    // The size factor is a share of the machine: without its size there is no factor.
    if (config.machine_cores <= 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "priority 'multifactor' needs the machine's core count (got " +
                      std::to_string(config.machine_cores) + ")");
    }
    if (config.multifactor_age_weight < 0 || config.multifactor_size_weight < 0 ||
        config.multifactor_max_age_s < 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "priority 'multifactor': weights and max age must be >= 0");
    }
    return std::make_unique<Multifactor>(config);
  }
  std::string valid;
  for (const std::string& n : PriorityNames()) valid += (valid.empty() ? "" : ", ") + n;
  return Fail(ErrorCode::kInvalidArgument,
              "unknown priority '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace psched::sched::prio
