/* hello + MPI_Allreduce: every rank checks the sum and that all ranks of the job
 * share its node (MPI_COMM_TYPE_SHARED), which needs PMIx locality keys. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int expected_local = argc > 1 ? atoi(argv[1]) : size;
  long sum = 0, mine = rank;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm node;
  int node_size;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  int ok = sum == (long)size * (size - 1) / 2 && node_size == expected_local;
  printf("rank %d of %d: allreduce %ld node_size %d %s\n", rank, size, sum, node_size,
         ok ? "ok" : "WRONG");
  fflush(stdout);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return ok ? 0 : 1;
}
