/* Cross-node PMIx fence latency, measured from inside a session's ranks.
 *
 * Each rank is a plain PMIx client (no MPI). Rounds of PMIx_Fence over the whole
 * namespace: first empty fences (no data collection), then fences that collect
 * BYTES bytes put by every rank. Rank 0 prints the median and 90th percentile.
 * Usage: fence_bench [ROUNDS [BYTES]]  (defaults 50, 1024) */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/latency_report.h"

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 50;
  size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 1024;
  if (rounds < 1) rounds = 1;
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
    fprintf(stderr, "fence_bench: PMIx_Init failed\n");
    return 1;
  }
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* val = NULL;
  pmix_rank_t size = 0;
  if (PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS) {
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
  }
  double* t = malloc(sizeof(double) * rounds);
  PMIx_Fence(&job, 1, NULL, 0); /* warm up: every rank is up */
  for (int i = 0; i < rounds; ++i) {
    double t0 = Now();
    pmix_status_t rc = PMIx_Fence(&job, 1, NULL, 0);
    t[i] = Now() - t0;
    if (rc != PMIX_SUCCESS) {
      fprintf(stderr, "fence_bench: empty fence failed: %s\n", PMIx_Error_string(rc));
      return 1;
    }
  }
  if (me.rank == 0) Report("empty fence", t, rounds, size);

  char* blob = malloc(bytes + 1);
  memset(blob, 'a' + me.rank % 26, bytes);
  blob[bytes] = 0;
  pmix_info_t collect;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
  for (int i = 0; i < rounds; ++i) {
    /* One key, overwritten: PMIx resends everything committed so far, so fresh
     * keys per round would grow the payload with the round number. */
    const char* key = "fb.blob";
    if (bytes > 0) blob[0] = (char)('A' + i % 26);
    pmix_value_t v;
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = blob;
    v.data.bo.size = bytes;
    PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIx_Commit();
    double t0 = Now();
    pmix_status_t rc = PMIx_Fence(&job, 1, &collect, 1);
    t[i] = Now() - t0;
    if (rc != PMIX_SUCCESS) {
      fprintf(stderr, "fence_bench: collecting fence failed: %s\n", PMIx_Error_string(rc));
      return 1;
    }
  }
  if (me.rank == 0) {
    char what[64];
    snprintf(what, sizeof what, "fence with %zu B per rank", bytes);
    Report(what, t, rounds, size);
  }
  /* Check the data really travelled: read the last round's blob of the last rank. */
  pmix_proc_t last;
  PMIX_LOAD_PROCID(&last, me.nspace, size > 0 ? size - 1 : 0);
  int ok = PMIx_Get(&last, "fb.blob", NULL, 0, &val) == PMIX_SUCCESS &&
           val->data.bo.size == bytes &&
           (bytes == 0 || val->data.bo.bytes[0] == (char)('A' + (rounds - 1) % 26));
  if (me.rank == 0) printf("data check: %s\n", ok ? "ok" : "FAILED");
  PMIx_Finalize(NULL, 0);
  return ok ? 0 : 1;
}
