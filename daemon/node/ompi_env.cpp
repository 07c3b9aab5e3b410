#include "daemon/node/ompi_env.hpp"

namespace psched::daemon {

std::vector<std::string> OmpiWorldEnv(const WorldPosition& at) {
  return {"OMPI_COMM_WORLD_RANK=" + std::to_string(at.rank),
          "OMPI_COMM_WORLD_SIZE=" + std::to_string(at.size),
          "OMPI_COMM_WORLD_LOCAL_RANK=" + std::to_string(at.local_rank),
          "OMPI_COMM_WORLD_LOCAL_SIZE=" + std::to_string(at.local_size),
          "OMPI_COMM_WORLD_NODE_RANK=" + std::to_string(at.node_rank)};
}

}  // namespace psched::daemon
