// PmixServer::NotifyProcsFailed: a PMIx event to this node's clients of one session,
// telling them that ranks of another session they are connected to have failed.
//
// Open MPI 4.1 registers one default event handler at MPI_Init ("MPI-Default",
// ompi_errhandler_callback) that aborts the process for any event it gets: its MPI
// layer has no process-failure recovery (no ULFM before 5.0), so MPI_ERRORS_RETURN on
// the intercommunicator does not matter. mpirun aborts the parent too when a spawned
// job fails (its errmgr). The status is PMIX_ERR_PROC_ABORTED: the one among the
// process-failure codes that Open MPI 4.1's PMIx glue (ext3x_convert_rc) knows, as
// OPAL_ERR_PROC_ABORTED; PMIx 4.2 keeps it under that name in pmix_deprecated.h.
#include <pmix.h>
#include <pmix_server.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "pmix/pmix_server.hpp"

namespace psched::pmix {

namespace {

// PMIx may read the info array until it calls back.
struct Notice {
  pmix_info_t* info = nullptr;
  size_t ninfo = 0;
  pmix_proc_t* targets = nullptr;
  pmix_proc_t* affected = nullptr;
  size_t naffected = 0;
  int node = 0;
  std::string what;
  ~Notice() {
    if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
    if (targets != nullptr) PMIX_PROC_FREE(targets, 1);
    if (affected != nullptr) PMIX_PROC_FREE(affected, naffected);
  }
};

void Notified(pmix_status_t status, void* cbdata) {
  auto* notice = static_cast<Notice*>(cbdata);
  if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED) {
    std::fprintf(stderr, "psched pmix: node %d: PMIx_Notify_event (%s): %s\n", notice->node,
                 notice->what.c_str(), PMIx_Error_string(status));
  }
  delete notice;
}

}  // namespace

void PmixServer::NotifyProcsFailed(const std::string& target_nspace, const ProcsFailure& failure) {
  if (FindByNspace(target_nspace) == nullptr || failure.ranks.empty()) return;
  auto notice = std::make_unique<Notice>();
  notice->node = options_.node_index;
  notice->what = "ranks of " + failure.nspace + " failed, to " + target_nspace;
  // Only the target session's clients on this node (PMIX_RANGE_CUSTOM); every rank of it.
  PMIX_PROC_CREATE(notice->targets, 1);
  PMIX_LOAD_PROCID(notice->targets, target_nspace.c_str(), PMIX_RANK_WILDCARD);
  notice->naffected = failure.ranks.size();
  PMIX_PROC_CREATE(notice->affected, notice->naffected);
  for (size_t i = 0; i < failure.ranks.size(); ++i)
    PMIX_LOAD_PROCID(&notice->affected[i], failure.nspace.c_str(), failure.ranks[i]);
  notice->ninfo = 5;
  PMIX_INFO_CREATE(notice->info, notice->ninfo);
  pmix_data_array_t range{PMIX_PROC, 1, notice->targets};
  PMIX_INFO_LOAD(&notice->info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
  pmix_data_array_t affected{PMIX_PROC, notice->naffected, notice->affected};
  PMIX_INFO_LOAD(&notice->info[1], PMIX_EVENT_AFFECTED_PROCS, &affected, PMIX_DATA_ARRAY);
  PMIX_INFO_LOAD(&notice->info[2], PMIX_EVENT_AFFECTED_PROC, notice->affected, PMIX_PROC);
  PMIX_INFO_LOAD(&notice->info[3], PMIX_EVENT_TEXT_MESSAGE, failure.why.c_str(), PMIX_STRING);
  // Not kept for clients that register later: a session started after this one
  // failed is connected to nothing of it.
  bool no_cache = true;
  PMIX_INFO_LOAD(&notice->info[4], PMIX_EVENT_DO_NOT_CACHE, &no_cache, PMIX_BOOL);
  pmix_proc_t source;
  PMIX_LOAD_PROCID(&source, failure.nspace.c_str(), failure.ranks.front());
  Notice* raw = notice.release();
  pmix_status_t rc = PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &source, PMIX_RANGE_CUSTOM, raw->info,
                                       raw->ninfo, Notified, raw);
  if (rc != PMIX_SUCCESS) Notified(rc, raw);  // no callback comes then
}

}  // namespace psched::pmix
