// The SLURM_* environment psched-alloc, psched-exec and pschedd --slurm read
// (launcher/slurm/slurm_allocation.hpp): the allocation (hostlist, per-node CPU counts,
// node count) and a daemon's step, from lines "NAME=VALUE" of any text. An allocation
// whose every node has a name and a CPU count, within the hostlist's bound, or an error
// that says what; never a crash, a sanitizer report or a hang.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "launcher/slurm/hostlist.hpp"
#include "launcher/slurm/slurm_allocation.hpp"

namespace {

psched::slurm::Environment Lines(std::string_view text) {
  psched::slurm::Environment env;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (const size_t eq = line.find('='); eq != std::string_view::npos)
      env[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psched::slurm;
  const Environment env = Lines(std::string_view(reinterpret_cast<const char*>(data), size));
  auto allocation = ParseAllocation(env);
  if (!allocation && allocation.error().message().empty()) std::abort();
  if (allocation && *allocation) {
    const SlurmAllocation& a = **allocation;
    if (a.nodes.empty() || a.nodes.size() > kMaxHostlistHosts) std::abort();
    if (a.cpus_per_node.size() != a.nodes.size()) std::abort();
    for (const std::string& node : a.nodes)
      if (node.empty()) std::abort();
    for (int cpus : a.cpus_per_node)
      if (cpus < 1) std::abort();
  }
  auto step = ParseDaemonStep(env);
  if (!step && step.error().message().empty()) std::abort();
  if (step && (step->node_index < 0 || step->node_index >= step->num_nodes)) std::abort();
  return 0;
}
