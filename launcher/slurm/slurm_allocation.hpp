// What psched needs to know about the Slurm allocation it runs in, and how it starts its
// daemons there.
//
// Everything here is pure: the environment comes in as a map, so tests can hand in any
// Slurm environment. slurm_environment.hpp reads the process's real environment.
//
// psched-exec and psched-ctl need only FindSlurmLeader (slurm_daemons.hpp), which parses
// the allocation with ParseAllocation and starts the daemons with srun argvs built by
// DaemonLaunchArgv, one step per tree level (daemon_plan.hpp). The pieces:
//
//   auto alloc = psched::slurm::ParseAllocation(psched::slurm::CurrentEnvironment());
//   if (!alloc) { report alloc.error().ToString(); exit 1 }      // malformed SLURM_* values
//   if (!*alloc) { no Slurm allocation: embedded or emulated mode }
//   const SlurmAllocation& a = **alloc;   // a.job_id, a.nodes[i], a.cpus_per_node[i]
//   argv = DaemonLaunchArgv(a, {.pschedd = "/path/to/pschedd", .pschedd_args = {...}});
//
// A process started by such an srun (one task per node) can read where it runs:
//
//   auto step = psched::slurm::ParseDaemonStep(env);   // step->node_index within the step
//
// Facts checked with the test Slurm (scripts/slurm-env.sh, Slurm 22.05):
//   - srun passes no file descriptor but stdin/stdout/stderr to its tasks: a --ready-fd
//     does not cross it. Task stdout comes back on srun's stdout (so a daemon can report
//     "port N" there), and srun's stdin goes to every task by default.
//   - SLURM_NODEID counts within the step: with --relative=1 the task on node 1 sees 0.
//   - Slurm node names need not resolve (the test cluster's n1..n4 are all this host):
//     daemons should advertise an address they bind, not SLURMD_NODENAME.
//   - When salloc's command exits, Slurm ends the daemons' step: SIGTERM, then SIGKILL
//     after KillWait (2 s in the test cluster, 30 s by default). The detached srun exits too.
//   - With TaskPlugin=task/none, srun prints "cluster configuration lacks support for cpu
//     binding" for --cpu-bind=none; harmless, send srun's stderr to a log.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace psched::slurm {

// Name -> value, as in environ. Lookups of absent names mean "not set".
using Environment = std::map<std::string, std::string, std::less<>>;

struct SlurmAllocation {
  std::string job_id;                  // SLURM_JOB_ID (or the older SLURM_JOBID), decimal
  std::string cluster_name;            // SLURM_CLUSTER_NAME; empty when not set
  std::vector<std::string> nodes;      // SLURM_JOB_NODELIST expanded, in Slurm's order
  std::vector<int> cpus_per_node;      // SLURM_JOB_CPUS_PER_NODE expanded; same size as nodes
  std::optional<std::string> step_id;  // SLURM_STEP_ID when called from inside a job step

  int NumNodes() const { return static_cast<int>(nodes.size()); }
  int TotalCpus() const;
};

// Reads the allocation out of a Slurm environment.
//   - no SLURM_JOB_ID and no SLURM_JOBID: std::nullopt (not inside Slurm; not an error);
//   - otherwise the node list comes from SLURM_JOB_NODELIST (else SLURM_NODELIST), the CPU
//     counts from SLURM_JOB_CPUS_PER_NODE, and SLURM_JOB_NUM_NODES / SLURM_NNODES, when set,
//     must agree with the node list.
// Any missing or malformed value is a kInvalidArgument error naming the variable and value.
Result<std::optional<SlurmAllocation>> ParseAllocation(const Environment& env);

// Expands Slurm's per-node count syntax: "40(x4),20" -> 40 40 40 40 20.
// Each count must be a positive integer, each repeat factor (xK) a positive integer.
Result<std::vector<int>> ExpandCpusPerNode(std::string_view counts);

// How to start one pschedd per node of the allocation.
struct DaemonLaunch {
  std::string srun = "srun";              // srun to call (a path, or a name found via PATH)
  std::string pschedd;                    // pschedd binary; required
  std::vector<std::string> pschedd_args;  // its arguments (never the secret: see DESIGN.md)
  std::string step_name = "pschedd";      // shows in squeue --steps / sacct
  std::vector<std::string> srun_args;     // more srun options (e.g. "--label"), before pschedd
  // Which nodes of the allocation: num_nodes of them starting at index first_node
  // (srun --relative). 0 = all from first_node on. Lets a launcher start the leader alone
  // (first_node 0, num_nodes 1), learn its port, then the rest (first_node 1).
  int first_node = 0;
  int num_nodes = 0;
};

// The argv that starts the daemons as one job step, one task on each node:
//   srun --overlap --relative=K --nodes=N --ntasks=N --ntasks-per-node=1 --mpi=none --cpu-bind=none
//        --jobid=ID --job-name=pschedd --kill-on-bad-exit=0 --quiet PSCHEDD ARGS...
// --overlap lets the daemons share CPUs with every later step and session; --cpu-bind=none
// and --mpi=none leave binding and PMIx to the daemons; --kill-on-bad-exit=0 keeps the other
// daemons running when one node's daemon dies, so only sessions with ranks there fail.
// "--relative=K" (K = first_node, 0 included) follows "--overlap" and N counts the chosen
// nodes: without --relative, a step started from a step shell on node 0 lands elsewhere.
// Command-line options override any SLURM_NTASKS, SLURM_CPU_BIND, ... inherited from the
// caller's step. The step ends, and the daemons with it, when the allocation ends.
// srun starts task i on node first_node + i; each task reads its index with
// ParseDaemonStep (node_index counts within the step, so add first_node).
// Fails (kInvalidArgument) when launch.pschedd is empty, the allocation has no nodes, or
// first_node / num_nodes fall outside it.
Result<std::vector<std::string>> DaemonLaunchArgv(const SlurmAllocation& allocation,
                                                  const DaemonLaunch& launch);

// Where a process started by that srun runs.
struct DaemonStep {
  std::string job_id;     // SLURM_JOB_ID
  std::string step_id;    // SLURM_STEP_ID
  int node_index = 0;     // SLURM_NODEID: 0 .. nodes-1, index into SlurmAllocation::nodes
  std::string node_name;  // SLURMD_NODENAME: the Slurm node name (several per host possible)
  int num_nodes = 0;      // SLURM_STEP_NUM_NODES (else SLURM_NNODES)
};

// Reads the step placement of a task started by srun; kInvalidArgument naming the variable
// when one of them is missing or malformed (e.g. pschedd --slurm run outside srun).
Result<DaemonStep> ParseDaemonStep(const Environment& env);

}  // namespace psched::slurm
