#include "daemon/node/slurm_task_env.hpp"

#include <algorithm>
#include <map>

namespace psched::daemon {
namespace {

// Slurm's per-node count syntax: runs of equal counts as "C(xN)", the rest as "C".
std::string CompressCounts(const std::vector<int>& counts) {
  std::string out;
  for (std::size_t i = 0; i < counts.size();) {
    std::size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (run > 1) out += "(x" + std::to_string(run) + ")";
    i += run;
  }
  return out;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ",") + w;
  return out;
}

}  // namespace

std::vector<std::string> SlurmTaskEnvironment(const proto::StartRanksOrder& order,
                                              const proto::RankSpec& spec) {
  std::map<int, int> ranks_on;  // the session's nodes, ascending, with their rank counts
  std::vector<int> gtids;
  for (const auto& r : order.ranks) {
    ++ranks_on[r.node];
    if (r.node == spec.node) gtids.push_back(r.rank);
  }
  std::sort(gtids.begin(), gtids.end());
  auto name_of = [&](int node) {
    return node >= 0 && node < static_cast<int>(order.hostnames.size())
               ? order.hostnames[static_cast<std::size_t>(node)]
               : "node" + std::to_string(node);
  };
  std::vector<int> counts;
  std::vector<std::string> names;
  counts.reserve(ranks_on.size());
  names.reserve(ranks_on.size());
  int node_id = 0;
  for (const auto& [node, count] : ranks_on) {
    if (node < spec.node) ++node_id;
    counts.push_back(count);
    names.push_back(name_of(node));
  }
  std::vector<std::string> gtid_words;
  gtid_words.reserve(gtids.size());
  for (int r : gtids) gtid_words.push_back(std::to_string(r));
  const std::string ntasks = std::to_string(order.size);
  const std::string nnodes = std::to_string(ranks_on.size());
  const std::string per_node = CompressCounts(counts);
  return {
      "SLURM_PROCID=" + std::to_string(spec.rank),
      "SLURM_LOCALID=" + std::to_string(spec.local_rank),
      "SLURM_NODEID=" + std::to_string(node_id),
      "SLURMD_NODENAME=" + name_of(spec.node),
      "SLURM_NTASKS=" + ntasks,
      "SLURM_NPROCS=" + ntasks,
      "SLURM_STEP_NUM_TASKS=" + ntasks,
      "SLURM_NNODES=" + nnodes,
      "SLURM_STEP_NUM_NODES=" + nnodes,
      "SLURM_TASKS_PER_NODE=" + per_node,
      "SLURM_STEP_TASKS_PER_NODE=" + per_node,
      "SLURM_STEP_NODELIST=" + Join(names),
      "SLURM_GTIDS=" + Join(gtid_words),
  };
}

}  // namespace psched::daemon
