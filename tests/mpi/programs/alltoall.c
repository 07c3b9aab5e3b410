/* MPI_Alltoall of rank-tagged integers: every rank checks what each peer sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* out = malloc(sizeof(int) * size);
  int* in = malloc(sizeof(int) * size);
  for (int i = 0; i < size; ++i) out[i] = rank * 100000 + i;
  MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
  int ok = 1;
  for (int i = 0; i < size; ++i) ok &= in[i] == i * 100000 + rank;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("alltoall over %d ranks: %s\n", size, all_ok ? "ok" : "WRONG");
  free(out);
  free(in);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
