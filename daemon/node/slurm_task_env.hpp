// srun's per-task environment for the ranks of a session in a Slurm allocation.
//
// Under srun every task learns where it runs from SLURM_* variables, and scripts and
// programs take their rank or node from them. A rank of a psched session would inherit
// the launcher's instead (every rank SLURM_PROCID=0 from a step shell or sbatch, no
// SLURMD_NODENAME from the salloc shell), so the node daemon sets them for each rank as
// srun would had it placed the session's ranks where psched did: the session plays the step.
//
//   SLURM_PROCID                                 the rank (= PSCHED_RANK)
//   SLURM_LOCALID                                its index among the session's ranks on
//                                                its node (= PSCHED_LOCAL_RANK)
//   SLURM_NODEID                                 its node's index among the session's nodes,
//                                                in the allocation's order
//   SLURMD_NODENAME                              its node's Slurm name
//   SLURM_NTASKS, SLURM_NPROCS, SLURM_STEP_NUM_TASKS   ranks in the session
//   SLURM_NNODES, SLURM_STEP_NUM_NODES                 nodes the session uses
//   SLURM_TASKS_PER_NODE, SLURM_STEP_TASKS_PER_NODE    ranks on each of them: "2(x3),1"
//   SLURM_STEP_NODELIST                          the session's nodes, comma-separated (a
//                                                valid hostlist; srun compresses it: n[1-3])
//   SLURM_GTIDS                                  the session's ranks on this node: "0,1"
//
// The job's variables (SLURM_JOB_ID, SLURM_JOB_NODELIST, ...) stay as the launcher had
// them; SLURM_JOBID, SLURM_STEP_ID and SLURM_NODELIST come from pmix/ (Open MPI direct
// launch needs them, see pmix/pmix_server.cpp) and are not touched here.
#pragma once

#include <string>
#include <vector>

#include "proto/messages.hpp"

namespace psched::daemon {

// "NAME=value" entries for rank `spec` of `order` (spec.node is the node it runs on).
std::vector<std::string> SlurmTaskEnvironment(const proto::StartRanksOrder& order,
                                              const proto::RankSpec& spec);

}  // namespace psched::daemon
