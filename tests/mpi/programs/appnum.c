/* Prints each rank's MPI_APPNUM (the app of MPI_Comm_spawn_multiple or of an MPMD
 * launch it belongs to) and checks the world with an allreduce. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, flag = 0, sum = 0;
  int* appnum = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (flag)
    printf("rank %d of %d: appnum %d (allreduce %d)\n", rank, size, *appnum, sum);
  else
    printf("rank %d of %d: appnum unset (allreduce %d)\n", rank, size, sum);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
