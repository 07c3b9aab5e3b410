// What Open MPI's mpirun puts in every rank's environment, from psched's placement:
// wrapper scripts (binding, per-rank output files, profilers) read these before
// MPI_Init, and programs moving from mpirun expect them.
#pragma once

#include <string>
#include <vector>

namespace psched::daemon {

struct WorldPosition {
  int rank = 0;
  int size = 0;
  int local_rank = 0;  // among the session's ranks on this node
  int local_size = 0;
  int node_rank = 0;  // among every session's ranks on this node (PMIx's PMIX_NODE_RANK)
};

// OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE and _NODE_RANK, "NAME=value".
std::vector<std::string> OmpiWorldEnv(const WorldPosition& at);

}  // namespace psched::daemon
