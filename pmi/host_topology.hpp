// The host's hardware topology as hwloc XML, for the ranks: MPICH (and every program
// using hwloc) discovers the topology itself in MPI_Init, reading each PCI device's
// config space from sysfs, about 30 ms a rank here and each rank of a node again. The
// daemon discovers it once and hands it to its ranks (HWLOC_XMLFILE with
// HWLOC_THISSYSTEM=1, as hwloc documents, so binding still acts on this system), the way
// hydra's proxy offers PMI_hwloc_xmlfile to newer MPICH.
#pragma once

#include <string_view>

#include "common/error.hpp"

namespace psched::pmi {

// hwloc's plugins (hwloc 2.x names), which it loads in every process's first
// hwloc_topology_init whether or not they take part: the I/O discovery components (PCI,
// OpenCL, CUDA, NVML, ROCm SMI, Level Zero, GL: libpciaccess, libOpenCL, libX11 and what
// they pull in) and the libxml2 XML importer (libxml2, ICU, libstdc++). A topology loaded
// from HWLOC_XMLFILE enables the xml component only and excludes every other one, and
// hwloc's built-in parser reads the XML hwloc wrote, so with the daemon's XML a rank
// gets the same topology without them (HWLOC_PLUGINS_BLACKLIST): loading them was about
// 3 ms of CPU of each MPICH rank's 15-19 ms (singleton MPI_Init, perf stat -r 30).
inline constexpr std::string_view kHwlocPluginsUnusedWithXml =
    "hwloc_pci,hwloc_opencl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero,hwloc_gl,"
    "hwloc_xml_libxml";

// A memfd holding the XML of this host's topology (I/O devices included, as MPICH
// loads it), for the ranks to inherit and open as /proc/self/fd/N. Blocks for the
// discovery (tens of milliseconds).
Result<int> HostTopologyXmlFd();

}  // namespace psched::pmi
