#include "pmi/host_topology.hpp"

#include <fcntl.h>
#include <hwloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>

namespace psched::pmi {

Result<int> HostTopologyXmlFd() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_init", "host topology for the ranks"));
  const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> topology(
      raw, hwloc_topology_destroy);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_load", "host topology for the ranks"));
  char* xml = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(raw, &xml, &length, 0) != 0 || length <= 0)
    return Fail(Error::FromErrno("hwloc_topology_export_xmlbuffer", "host topology"));
  const std::unique_ptr<char, void (*)(char*)> buffer(
      xml, [](char* b) { hwloc_free_xmlbuffer(nullptr, b); });
  const int fd = memfd_create("psched-host-topology.xml", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return Fail(Error::FromErrno("memfd_create", "host topology"));
  // length counts the terminating NUL, which is no part of the file.
  const auto size = static_cast<size_t>(length - 1);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, xml + done, size - done);
    if (n <= 0) {
      Error e = Error::FromErrno("write", "host topology");
      close(fd);
      return Fail(e);
    }
    done += static_cast<size_t>(n);
  }
  // Every rank of the node shares it: sealed, none can change it for the others.
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    Error e = Error::FromErrno("fcntl(F_ADD_SEALS)", "host topology");
    close(fd);
    return Fail(e);
  }
  return fd;
}

}  // namespace psched::pmi
