/* MPI_UNIVERSE_SIZE: how many processes the allocation can run, what a program sizes
 * its MPI_Comm_spawn by. Built with MPICH (mpich_universe: PMI get_universe_size) and
 * with Open MPI (mpi_universe, tests/mpi: PMIX_UNIV_SIZE), which must agree. */
#include <mpi.h>
#include <stdio.h>

#ifdef OPEN_MPI
#define MPI_UNIVERSE_LABEL "ompi"
#else
#define MPI_UNIVERSE_LABEL "mpich"
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, flag = 0;
  int* universe = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
  printf("%s rank %d of %d: universe %d\n", MPI_UNIVERSE_LABEL, rank, size, flag ? *universe : -1);
  MPI_Finalize();
  return 0;
}
