// psched-sim --allocation SPEC.json: the allocation mode's command (allocation_mode.hpp),
// apart from psched_sim_main.cpp's batch modes.
#pragma once

#include <string>

namespace psched::sim {

// Reads the spec, replays it under each of its policies and prints the report on
// stdout. Returns the exit status: 0, 2 for a spec that is unreadable or invalid (the
// message says which field), 1 when the replay itself failed.
int RunAllocationCommand(const std::string& spec_path);

}  // namespace psched::sim
