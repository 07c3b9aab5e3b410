// What psched-stream prints for the orchestrator, besides its final JSON line.
#pragma once

namespace psched::djsb {

// Rank 0 prints "<marker> <tag> <k> <time>" after the k-th iteration (1-based) has
// completed on every rank: the orchestrator submits the analyses on this progress.
inline constexpr char kStreamIterationMarker[] = "psched-stream iteration";

}  // namespace psched::djsb
