/* A fence over some of the job's ranks, then one over all (plain PMIx client, no MPI):
 * ranks 0 and 1 fence together, then every rank fences. Run with one rank per node, the
 * other nodes never see the first fence: the daemons must still agree on which fence is
 * which, or the second never completes. */
#include <pmix.h>
#include <stdio.h>

int main(void) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 2;
  if (me.rank < 2) {
    pmix_proc_t pair[2];
    for (int i = 0; i < 2; ++i) {
      PMIX_LOAD_PROCID(&pair[i], me.nspace, (pmix_rank_t)i);
    }
    if (PMIx_Fence(pair, 2, NULL, 0) != PMIX_SUCCESS) return 3;
  }
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
  if (PMIx_Fence(&all, 1, NULL, 0) != PMIX_SUCCESS) return 4;
  printf("rank %u: past both fences\n", me.rank);
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return 0;
}
