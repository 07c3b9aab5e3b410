/* mpirun's per-rank environment against MPI's own view: OMPI_COMM_WORLD_RANK and
 * _SIZE against MPI_COMM_WORLD, _LOCAL_RANK and _LOCAL_SIZE against the node's
 * shared-memory communicator, _NODE_RANK printed (the test compares it). Wrapper
 * scripts read these before MPI_Init, so they are read before it here too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int EnvInt(const char* name) {
  const char* v = getenv(name);
  return v == NULL ? -1 : atoi(v);
}

int main(int argc, char** argv) {
  int env_rank = EnvInt("OMPI_COMM_WORLD_RANK"), env_size = EnvInt("OMPI_COMM_WORLD_SIZE");
  int env_local_rank = EnvInt("OMPI_COMM_WORLD_LOCAL_RANK");
  int env_local_size = EnvInt("OMPI_COMM_WORLD_LOCAL_SIZE");
  int env_node_rank = EnvInt("OMPI_COMM_WORLD_NODE_RANK");
  MPI_Init(&argc, &argv);
  int rank, size, local_rank, local_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  int ok = env_rank == rank && env_size == size && env_local_rank == local_rank &&
           env_local_size == local_size;
  printf("rank %d of %d: env rank %d size %d local %d/%d (MPI %d/%d) node_rank %d %s\n", rank, size,
         env_rank, env_size, env_local_rank, env_local_size, local_rank, local_size, env_node_rank,
         ok ? "ok" : "WRONG");
  fflush(stdout);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return ok ? 0 : 1;
}
