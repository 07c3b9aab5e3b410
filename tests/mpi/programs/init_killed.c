/* Rank 1 dies with SIGKILL in the middle of wire-up: it has connected to its PMIx
 * server (PMIx_Init, as MPI_Init does first) but never reaches the modex fence the
 * other ranks wait in inside MPI_Init. The session must fail, not hang. */
#include <mpi.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char** argv) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 2;
  if (me.rank == 1) raise(SIGKILL);
  MPI_Init(&argc, &argv);
  printf("rank %u finished MPI_Init without its peer\n", me.rank);
  MPI_Finalize();
  PMIx_Finalize(NULL, 0);
  return 0;
}
