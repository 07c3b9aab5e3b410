/* Rank 1 calls MPI_Abort(7) after a barrier; the others wait in a second
 * barrier that can only end by being killed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    fprintf(stderr, "rank 1 aborting\n");
    MPI_Abort(MPI_COMM_WORLD, 7);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d passed a barrier it should never pass\n", rank);
  MPI_Finalize();
  return 0;
}
