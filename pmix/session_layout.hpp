// The shape of one session as PMIx describes it: which ranks sit on which node,
// in which order, and the strings PMIx_generate_regex / PMIx_generate_ppn expect.
//
// Pure: no PMIx calls here, so the layout rules are unit-tested without a server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace psched::pmix {

// Where one rank of a session runs. `node` indexes PmixSessionInfo::hostnames.
struct RankPlacement {
  int node = 0;
  int local_rank = 0;  // 0..(ranks on that node - 1), unique per node within the session
};

// Everything a node's PMIx server needs to know about a session before its ranks fork.
struct PmixSessionInfo {
  int64_t session_id = -1;
  std::string nspace;                  // unique per session in the allocation
  std::vector<RankPlacement> ranks;    // index = global rank
  std::vector<std::string> hostnames;  // index = allocation node index
  int this_node = 0;                   // which allocation node this server runs on
  uint32_t universe_size = 0;          // slots of the allocation (>= ranks.size())
  std::string rm_jobid;                // the allocation's id, shown to Open MPI as SLURM_JOBID
  std::string rm_step_id;              // a per-session step id, shown as SLURM_STEP_ID
  // Set for sessions started by MPI_Comm_spawn: the rank that asked for them.
  std::string parent_nspace;
  uint32_t parent_rank = 0;
  // MPI_Comm_spawn_multiple: ranks per app, apps in order (ranks app after app);
  // empty means one app of every rank. Gives each rank its MPI_APPNUM.
  std::vector<uint32_t> app_sizes;
};

// The apps of a session: their first rank (PMIX_APPLDR) and size.
struct AppSpan {
  uint32_t leader = 0;
  uint32_t size = 0;
};

// Rejects a layout PMIx would misdescribe: empty nspace, a rank on an unknown node,
// duplicate or gapped local ranks on a node, universe smaller than the job, app
// sizes that are 0 or do not add up to the job size.
Result<void> ValidateSessionInfo(const PmixSessionInfo& info);

// The session's apps in order (one app of every rank when app_sizes is empty).
std::vector<AppSpan> Apps(const PmixSessionInfo& info);

// The app of every rank (index = global rank).
std::vector<uint32_t> AppOfRank(const PmixSessionInfo& info);

// Allocation node indexes that host at least one rank, in ascending order.
// PMIx's node map and proc map list exactly these nodes, in this order.
std::vector<int> JobNodes(const PmixSessionInfo& info);

// Global ranks on `node`, ordered by their local rank.
std::vector<uint32_t> RanksOnNode(const PmixSessionInfo& info, int node);

// "host0,host1": the input of PMIx_generate_regex for the job's nodes.
std::string NodeListCsv(const PmixSessionInfo& info);

// "0,2;1,3": the input of PMIx_generate_ppn (ranks per job node, ';' between nodes).
std::string ProcMapList(const PmixSessionInfo& info);

// "0,2,5": comma-joined ranks, as PMIX_LOCAL_PEERS wants them.
std::string JoinRanks(const std::vector<uint32_t>& ranks);

// Slurm-style compressed list of the job's hostnames ("n[1-3],login"), used for
// SLURM_NODELIST; Open MPI only needs it to be present and consistent.
std::string NodeListForSlurm(const PmixSessionInfo& info);

}  // namespace psched::pmix
