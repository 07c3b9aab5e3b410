// Does this node have a high-speed fabric that Open MPI's UCX PML or MTLs would use?
//
// Without one, Open MPI 4.1 still opens and initialises every MTL (psm, psm2, ofi)
// and UCX before it settles on ob1, which is about two thirds of a small job's
// MPI_Init on a plain node (measured: 2-rank hello 310 ms, 105 ms with pml=ob1).
// The daemon skips that futile probe by suggesting ob1 (see PmixServerOptions).
#pragma once

#include <filesystem>

namespace psched::pmix {

// True when sysfs lists an RDMA device (class/infiniband holds InfiniBand, RoCE,
// Omni-Path and EFA devices) or an HPE Slingshot NIC (class/cxi).
bool NodeHasFabric(const std::filesystem::path& sysfs = "/sys");

}  // namespace psched::pmix
