// Sampling the sessions' processes while a run goes: their state in /proc (T = stopped),
// their Cpus_allowed_list, the node they say they are on, and psched-ctl's view.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "djsb/timeline.hpp"

namespace psched::djsb {

// Environment variables that name a rank's node, first match wins. psched's daemon
// (PSCHED_NODE_ID) and Slurm (SLURM_NODEID); without any, a process counts as node 0.
inline const std::vector<std::string> kNodeEnvVars = {"PSCHED_NODE_ID", "PSCHED_NODE",
                                                      "SLURM_NODEID"};

// One sample per tag: every psched-stream process whose command line has `--tag TAG`.
// nodes[i] gathers the nodes seen for tags[i].
std::vector<StateSample> SampleProcesses(const std::vector<std::string>& tags,
                                         std::vector<std::set<int>>* nodes);

// Runs `<ctl> status --json` and, for every session object whose JSON mentions a tag,
// copies its "state" into samples[i].ctl_state and its node ids into nodes[i].
// Returns false when psched-ctl failed or printed no JSON (samples unchanged).
bool SamplePschedCtl(const std::string& ctl, const std::vector<std::string>& tags,
                     std::vector<StateSample>* samples, std::vector<std::set<int>>* nodes);

}  // namespace psched::djsb
