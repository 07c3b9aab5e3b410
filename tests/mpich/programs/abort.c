/* Rank 1 calls MPI_Abort with code 7; the others wait in a barrier that never ends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    fprintf(stderr, "rank 1 aborting\n");
    MPI_Abort(MPI_COMM_WORLD, 7);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d passed the barrier\n", rank);
  MPI_Finalize();
  return 0;
}
