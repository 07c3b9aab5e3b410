#include "scheduler/sim/tools/allocation_command.hpp"

#include <iostream>

#include "common/command_line.hpp"
#include "common/read_file.hpp"
#include "scheduler/sim/allocation_mode.hpp"

namespace psched::sim {

int RunAllocationCommand(const std::string& spec_path) {
  auto die = [](const Error& e, int code) {
    std::cerr << "psched-sim: " << e.ToString() << "\n";
    return code;
  };
  auto text = ReadWholeFile(spec_path, "cannot read allocation spec '" + spec_path + "'");
  if (!text) return die(text.error(), kExitUsage);
  auto spec = ParseAllocationSpec(*text);
  if (!spec) {
    Error error = spec.error();
    return die(error.Wrap(spec_path), kExitUsage);
  }
  auto runs = RunAllocation(*spec);
  if (!runs) {
    return die(runs.error(), runs.error().code() == ErrorCode::kInvalidArgument ? kExitUsage : 1);
  }
  std::cout << AllocationReport(*runs);
  return 0;
}

}  // namespace psched::sim
