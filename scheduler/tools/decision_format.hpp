// psched-place's output: a decision as stable text (a node map, for admins and for
// golden files) or as JSON (for scripts).
#pragma once

#include <string>
#include <vector>

#include "scheduler/allocator.hpp"
#include "scheduler/tools/snapshot_json.hpp"

namespace psched::sched::place {

// Text: one line per waiting session (placed or waiting), then one line per node:
// a character per slot ('.' free, '#' used before, 'A', 'B', ... the sessions in
// window order) and, after '|', one per GPU.
std::string FormatText(const PlaceInput& input, std::string_view allocator,
                       const std::vector<Assignment>& decision);

std::string FormatJson(const PlaceInput& input, std::string_view allocator,
                       const std::vector<Assignment>& decision);

// "0-3,7,9-10"
std::string RangeList(const std::vector<NodeId>& ids);

}  // namespace psched::sched::place
