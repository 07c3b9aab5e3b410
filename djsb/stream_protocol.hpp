// What psched-stream prints for the orchestrator, besides its final JSON line.
#pragma once

namespace psched::djsb {

// Rank 0 prints "<marker> <tag> <begin>" once every rank has passed MPI_Init and the
// first barrier: the moment the application starts computing (CLOCK_REALTIME seconds).
inline constexpr char kStreamBeginMarker[] = "psched-stream began";

}  // namespace psched::djsb
