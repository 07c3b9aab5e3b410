/* Rank 1 leaves after MPI_Init without MPI_Finalize (exit code 0, which must
 * still count as a failure); the others wait in a barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) exit(0);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d passed a barrier it should never pass\n", rank);
  MPI_Finalize();
  return 0;
}
