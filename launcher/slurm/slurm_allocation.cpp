#include "launcher/slurm/slurm_allocation.hpp"

#include <charconv>
#include <limits>
#include <numeric>

#include "launcher/slurm/hostlist.hpp"

namespace psched::slurm {
namespace {

std::unexpected<Error> Invalid(std::string message) {
  return Fail(ErrorCode::kInvalidArgument, std::move(message));
}

// The value of the first of `names` that is set.
struct Found {
  std::string_view name;
  std::string_view value;
};
std::optional<Found> Lookup(const Environment& env, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (auto it = env.find(name); it != env.end()) return Found{name, it->second};
  }
  return std::nullopt;
}

// A decimal integer in [min, INT_MAX] with nothing around it.
std::optional<int> ParseInt(std::string_view text, int min) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min) {
    return std::nullopt;
  }
  return value;
}

bool IsDecimal(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string Show(const Found& f) {
  return std::string(f.name) + "='" + std::string(f.value) + "'";
}

Result<std::string> ParseJobId(const Found& job) {
  if (!IsDecimal(job.value)) return Invalid(Show(job) + " is not a decimal job id");
  return std::string(job.value);
}

}  // namespace

int SlurmAllocation::TotalCpus() const {
  return std::accumulate(cpus_per_node.begin(), cpus_per_node.end(), 0);
}

Result<std::vector<int>> ExpandCpusPerNode(std::string_view counts) {
  auto invalid = [&](const std::string& what) {
    return Invalid("CPUs per node '" + std::string(counts) + "': " + what);
  };
  if (counts.empty()) return invalid("empty");
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= counts.size()) {
    std::size_t comma = counts.find(',', start);
    if (comma == std::string_view::npos) comma = counts.size();
    std::string_view item = counts.substr(start, comma - start);
    start = comma + 1;

    std::string_view count_text = item;
    int repeat = 1;
    if (std::size_t paren = item.find('('); paren != std::string_view::npos) {
      count_text = item.substr(0, paren);
      std::string_view rest = item.substr(paren);  // "(xK)"
      if (rest.size() < 4 || rest.substr(0, 2) != "(x" || rest.back() != ')') {
        return invalid("'" + std::string(item) + "' is not N or N(xK)");
      }
      auto k = ParseInt(rest.substr(2, rest.size() - 3), 1);
      if (!k)
        return invalid("repeat count in '" + std::string(item) + "' is not a positive integer");
      repeat = *k;
    }
    auto count = ParseInt(count_text, 1);
    if (!count)
      return invalid("'" + std::string(item) + "' does not start with a positive integer");
    if (out.size() + static_cast<std::size_t>(repeat) > kMaxHostlistHosts) {
      return invalid("more than " + std::to_string(kMaxHostlistHosts) + " nodes");
    }
    out.insert(out.end(), static_cast<std::size_t>(repeat), *count);
  }
  return out;
}

Result<std::optional<SlurmAllocation>> ParseAllocation(const Environment& env) {
  auto job = Lookup(env, {"SLURM_JOB_ID", "SLURM_JOBID"});
  if (!job) return std::optional<SlurmAllocation>();  // not inside a Slurm allocation

  SlurmAllocation a;
  auto job_id = ParseJobId(*job);
  if (!job_id) return Fail(job_id.error());
  a.job_id = *job_id;

  auto nodelist = Lookup(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (!nodelist) {
    return Invalid(Show(*job) + " is set but SLURM_JOB_NODELIST is not: cannot tell the nodes");
  }
  auto nodes = ExpandHostlist(nodelist->value);
  if (!nodes) return Fail(nodes.error().Wrap(std::string(nodelist->name)));
  a.nodes = std::move(*nodes);

  auto cpus = Lookup(env, {"SLURM_JOB_CPUS_PER_NODE"});
  if (!cpus) {
    return Invalid(Show(*job) + " is set but SLURM_JOB_CPUS_PER_NODE is not: cannot tell the CPUs");
  }
  auto counts = ExpandCpusPerNode(cpus->value);
  if (!counts) return Fail(counts.error().Wrap("SLURM_JOB_CPUS_PER_NODE"));
  if (counts->size() != a.nodes.size()) {
    return Invalid(Show(*cpus) + " describes " + std::to_string(counts->size()) + " nodes but " +
                   Show(*nodelist) + " has " + std::to_string(a.nodes.size()));
  }
  a.cpus_per_node = std::move(*counts);

  if (auto num = Lookup(env, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})) {
    auto n = ParseInt(num->value, 1);
    if (!n) return Invalid(Show(*num) + " is not a positive integer");
    if (*n != a.NumNodes()) {
      return Invalid(Show(*num) + " disagrees with " + Show(*nodelist) + ", which has " +
                     std::to_string(a.nodes.size()) + " nodes");
    }
  }
  if (auto cluster = Lookup(env, {"SLURM_CLUSTER_NAME"})) a.cluster_name = cluster->value;
  if (auto step = Lookup(env, {"SLURM_STEP_ID", "SLURM_STEPID"}))
    a.step_id = std::string(step->value);
  return std::optional<SlurmAllocation>(std::move(a));
}

Result<std::vector<std::string>> DaemonLaunchArgv(const SlurmAllocation& allocation,
                                                  const DaemonLaunch& launch) {
  if (launch.pschedd.empty()) return Invalid("daemon launch: no pschedd binary given");
  if (launch.srun.empty()) return Invalid("daemon launch: no srun given");
  if (allocation.nodes.empty()) {
    return Invalid("daemon launch: allocation " + allocation.job_id + " has no nodes");
  }
  const int total = allocation.NumNodes();
  if (launch.first_node < 0 || launch.first_node >= total) {
    return Invalid("daemon launch: first node " + std::to_string(launch.first_node) +
                   " is not in allocation " + allocation.job_id + " of " + std::to_string(total) +
                   " nodes");
  }
  const int count = launch.num_nodes == 0 ? total - launch.first_node : launch.num_nodes;
  if (count < 1 || launch.first_node + count > total) {
    return Invalid("daemon launch: " + std::to_string(launch.num_nodes) + " nodes from node " +
                   std::to_string(launch.first_node) + " do not fit in allocation " +
                   allocation.job_id + " of " + std::to_string(total) + " nodes");
  }
  const std::string n = std::to_string(count);
  // --relative even for node 0: from a step shell (srun -N1 -n1 bash on n1) srun would
  // otherwise place a one-node step on n2, and the leader with it.
  std::vector<std::string> argv = {launch.srun, "--overlap",
                                   "--relative=" + std::to_string(launch.first_node)};
  argv.insert(argv.end(), {
                              "--nodes=" + n,
                              "--ntasks=" + n,
                              "--ntasks-per-node=1",
                              "--mpi=none",
                              "--cpu-bind=none",
                              "--jobid=" + allocation.job_id,
                              "--job-name=" + launch.step_name,
                              "--kill-on-bad-exit=0",
                              "--quiet",
                          });
  argv.insert(argv.end(), launch.srun_args.begin(), launch.srun_args.end());
  argv.push_back(launch.pschedd);
  argv.insert(argv.end(), launch.pschedd_args.begin(), launch.pschedd_args.end());
  return argv;
}

Result<DaemonStep> ParseDaemonStep(const Environment& env) {
  auto require = [&](std::initializer_list<std::string_view> names) -> Result<Found> {
    auto found = Lookup(env, names);
    if (!found) {
      return Invalid(std::string(*names.begin()) +
                     " is not set: not a task started by srun inside an allocation");
    }
    if (found->value.empty()) return Invalid(std::string(found->name) + " is empty");
    return *found;
  };
  DaemonStep step;
  auto job = require({"SLURM_JOB_ID", "SLURM_JOBID"});
  if (!job) return Fail(job.error());
  auto job_id = ParseJobId(*job);
  if (!job_id) return Fail(job_id.error());
  step.job_id = *job_id;

  auto step_id = require({"SLURM_STEP_ID", "SLURM_STEPID"});
  if (!step_id) return Fail(step_id.error());
  step.step_id = step_id->value;

  auto name = require({"SLURMD_NODENAME"});
  if (!name) return Fail(name.error());
  step.node_name = name->value;

  auto num = require({"SLURM_STEP_NUM_NODES", "SLURM_NNODES"});
  if (!num) return Fail(num.error());
  auto num_nodes = ParseInt(num->value, 1);
  if (!num_nodes) return Invalid(Show(*num) + " is not a positive integer");
  step.num_nodes = *num_nodes;

  auto node = require({"SLURM_NODEID"});
  if (!node) return Fail(node.error());
  auto index = ParseInt(node->value, 0);
  if (!index || *index >= step.num_nodes) {
    return Invalid(Show(*node) + " is not a node index below " + Show(*num));
  }
  step.node_index = *index;
  return step;
}

}  // namespace psched::slurm
