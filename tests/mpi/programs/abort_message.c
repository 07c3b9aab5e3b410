/* A plain PMIx client (no MPI): rank 1 calls PMIx_Abort(3) with a message, as an MPI
 * library or a program using PMIx directly may; the others sleep until killed. */
#include <pmix.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 2;
  if (me.rank == 1) PMIx_Abort(3, "checkpoint directory is full", NULL, 0);
  sleep(60);
  printf("rank %u slept through an abort\n", me.rank);
  PMIx_Finalize(NULL, 0);
  return 0;
}
