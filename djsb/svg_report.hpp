// psched-djsb's picture: a self-contained SVG (no scripts, no external fonts or images).
// Top: a bar chart of the median Dynamicity Ratio D per scenario, the baseline marked.
// Below: for each scenario's first repeat, a timeline per node with one lane per session,
// shaded by state (waiting, running, suspended, sidestepped, overbooked), and the
// analyses' submit times marked. Pure: results in, SVG text out.
#pragma once

#include <string>

#include "djsb/results.hpp"

namespace psched::djsb {

std::string RenderSvg(const DjsbResults& results);

}  // namespace psched::djsb
