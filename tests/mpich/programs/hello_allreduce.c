/* An MPICH program: rank, size, the ranks MPICH sees on its node (from the node map
 * psched's PMI_process_mapping gave it) and an allreduce over the world. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0, node_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int ok = sum == size * (size - 1) / 2;
  printf("mpich rank %d of %d: allreduce %d node_size %d %s\n", rank, size, sum, node_size,
         ok ? "ok" : "WRONG");
  MPI_Comm_free(&node);
  MPI_Finalize();
  return ok ? 0 : 1;
}
