#include "daemon/node/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <regex>

namespace psched::daemon {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

Result<TopologyPtr> Load(const std::string& spec) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_init", "topology"));
  TopologyPtr topo(raw);
  bool xml = spec.size() > 4 && spec.ends_with(".xml");
  if (xml && hwloc_topology_set_xml(raw, spec.c_str()) != 0)
    return Fail(ErrorCode::kInvalidArgument, "cannot read topology XML file '" + spec + "'");
  if (!xml && !spec.empty() &&
      hwloc_topology_set_synthetic(raw, NormalizeSynthetic(spec).c_str()) != 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "invalid synthetic topology '" + spec +
                    "' (expected hwloc synthetic syntax, e.g. \"pack:2 core:20 pu:1\")");
  }
  if (hwloc_topology_load(raw) != 0)
    return Fail(Error::FromErrno("hwloc_topology_load", "loading topology '" + spec + "'"));
  return topo;
}

// Index of the ancestor of `pu` of `type` among all objects of that type, or 0.
int AncestorIndex(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_obj_type_t type) {
  hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(topo, type, pu);
  return a ? static_cast<int>(a->logical_index) : 0;
}

}  // namespace

std::string NormalizeSynthetic(const std::string& spec) {
  static const std::regex kPack(R"(\b(pack|socket|sock):)");
  std::string out = std::regex_replace(spec, kPack, "package:");
  // hwloc wants the PU level spelled out; "core:16" means one PU per core.
  if (out.find("pu:") == std::string::npos && out.find("PU:") == std::string::npos) out += " pu:1";
  return out;
}

Result<sched::NodeTopology> LoadNodeTopology(const std::string& spec) {
  auto topo = Load(spec);
  if (!topo) return Fail(topo.error());
  hwloc_topology_t t = topo->get();
  sched::NodeTopology out;
  int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (n <= 0) return Fail(ErrorCode::kInvalidArgument, "topology '" + spec + "' has no PUs");
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i);
    out.pus.push_back(
        sched::Pu{AncestorIndex(t, pu, HWLOC_OBJ_CORE), AncestorIndex(t, pu, HWLOC_OBJ_PACKAGE)});
  }
  return out;
}

Result<std::vector<int>> RealPuOsIndices() {
  auto topo = Load("");
  if (!topo) return Fail(topo.error());
  hwloc_topology_t t = topo->get();
  std::vector<int> out;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return Fail(Error::FromErrno("sched_getaffinity", "reading the daemon's own CPU set"));
  int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  for (int i = 0; i < n; ++i) {
    int os = static_cast<int>(hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i)->os_index);
    if (os < CPU_SETSIZE && CPU_ISSET(os, &allowed)) out.push_back(os);
  }
  if (out.empty()) return Fail(ErrorCode::kSystem, "no usable PU on this machine");
  return out;
}

cpu_set_t CpuSetFor(const std::vector<int>& logical_pus, const std::vector<int>& real) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int pu : logical_pus) CPU_SET(real[static_cast<size_t>(pu) % real.size()], &set);
  return set;
}

std::vector<int> RealPusOfEmulatedNode(std::vector<int> real, int node, int pus_per_node) {
  if (real.empty() || node <= 0 || pus_per_node <= 0) return real;
  size_t shift = (static_cast<size_t>(node) % real.size()) *
                 (static_cast<size_t>(pus_per_node) % real.size()) % real.size();
  std::rotate(real.begin(), real.begin() + static_cast<std::ptrdiff_t>(shift), real.end());
  return real;
}

bool EmulationFolds(int daemons_on_host, int pus_per_node, size_t real_pus) {
  return static_cast<size_t>(daemons_on_host) * static_cast<size_t>(pus_per_node) > real_pus;
}

}  // namespace psched::daemon
