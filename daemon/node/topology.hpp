// Node topology from hwloc: the real machine, an hwloc synthetic description
// ("package:2 core:20 pu:1"; "pack:" is accepted too) or an XML file.
//
// The model (sched::NodeTopology) lists PUs in hwloc's logical order. Binding maps
// logical PU i of an emulated node n onto real PU ((n x PUs per node + i) mod real
// count), by the real PUs' OS indices, so emulated nodes larger than the host still pin
// for real and emulated nodes smaller than it spread over it.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "scheduler/model.hpp"

namespace psched::daemon {

// spec: "" = this machine; ends in ".xml" = XML file; otherwise a synthetic string.
Result<sched::NodeTopology> LoadNodeTopology(const std::string& spec);

// Turns "pack:2 core:20 pu:1" into hwloc's spelling ("package:2 core:20 pu:1").
std::string NormalizeSynthetic(const std::string& spec);

// OS indices of this machine's PUs that we may run on, in logical order.
Result<std::vector<int>> RealPuOsIndices();

// The CPU set for logical PUs of a node, folded onto `real` (OS indices) modulo its size.
cpu_set_t CpuSetFor(const std::vector<int>& logical_pus, const std::vector<int>& real);

// The real PUs, in folding order, of emulated node `node` with `pus_per_node` PUs:
// emulated nodes share this host, so node n's PU 0 folds onto the real PU after the
// one node n-1's last PU folded onto. Without the offset every emulated node started
// at real PU 0: 64 one-PU nodes ran all their ranks on one CPU of two.
std::vector<int> RealPusOfEmulatedNode(std::vector<int> real, int node, int pus_per_node);

// Whether the PUs that this host's daemons bind to fold onto fewer real CPUs: emulated
// nodes (psched-alloc: `daemons_on_host` of them, `pus_per_node` PUs each) all run on
// this host's `real_pus`. Then ranks share CPUs whatever the placement, and MPI ranks
// that busy-poll take them from each other.
bool EmulationFolds(int daemons_on_host, int pus_per_node, size_t real_pus);

// The default for every rank of a folded emulation: Open MPI yields when it polls idle.
inline constexpr const char* kYieldWhenIdle = "OMPI_MCA_mpi_yield_when_idle=1";

}  // namespace psched::daemon
