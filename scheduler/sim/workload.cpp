#include "scheduler/sim/workload.hpp"

namespace psched::sim {

std::vector<sched::Node> MakeNodes(const Machine& machine) {
  std::vector<sched::Node> nodes;
  nodes.reserve(machine.nodes);
  const sched::NodeTopology topology =
      sched::NodeTopology::Uniform(1, machine.cores_per_node, 1, machine.gpus_per_node);
  for (int i = 0; i < machine.nodes; ++i)
    nodes.push_back(sched::Node::Make(i, "n" + std::to_string(i), topology));
  return nodes;
}

Result<void> CheckMachineSize(const Machine& machine, const std::string& what) {
  const long pus = static_cast<long>(machine.nodes) * machine.cores_per_node;
  if (pus <= kMaxMachinePus) return {};
  return Fail(ErrorCode::kInvalidArgument,
              what + ": " + std::to_string(machine.nodes) + " nodes x " +
                  std::to_string(machine.cores_per_node) + " PUs is more than psched-sim models (" +
                  std::to_string(kMaxMachinePus) + " PUs)");
}

std::string OwnerName(long id) {
  std::string name = "u";
  name += std::to_string(id);
  return name;
}

double TotalWork(const Workload& workload) {
  double work = 0;
  for (const SimJob& job : workload.jobs) work += job.runtime_s * job.request.SlotsNeeded();
  return work;
}

}  // namespace psched::sim
