/* MPI_UNIVERSE_SIZE as MPICH gets it (PMI get_universe_size): how many processes the
 * allocation can run, what a program sizes its MPI_Comm_spawn by. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, flag = 0;
  int* universe = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
  printf("mpich rank %d of %d: universe %d\n", rank, size, flag ? *universe : -1);
  MPI_Finalize();
  return 0;
}
