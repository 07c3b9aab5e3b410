// The host's hardware topology as hwloc XML, for the ranks: MPICH (and every program
// using hwloc) discovers the topology itself in MPI_Init, reading each PCI device's
// config space from sysfs, about 30 ms a rank here and each rank of a node again. The
// daemon discovers it once and hands it to its ranks (HWLOC_XMLFILE with
// HWLOC_THISSYSTEM=1, as hwloc documents, so binding still acts on this system), the way
// hydra's proxy offers PMI_hwloc_xmlfile to newer MPICH.
#pragma once

#include "common/error.hpp"

namespace psched::pmi {

// A memfd holding the XML of this host's topology (I/O devices included, as MPICH
// loads it), for the ranks to inherit and open as /proc/self/fd/N. Blocks for the
// discovery (tens of milliseconds).
Result<int> HostTopologyXmlFd();

}  // namespace psched::pmi
