/* One-sided communication across nodes: MPI_Win_allocate over MPI_COMM_WORLD; each rank
 * puts its rank into the window of the next one and reads it back after a fence; then
 * MPI_Win_allocate_shared over each node's ranks (MPI_COMM_TYPE_SHARED): every rank writes
 * its slot, and each reads its neighbours' slots straight from the shared segment. Prints
 * "rank R of N: allocate ok" and "rank R: shared ok node_size S" or what failed. */
#include <mpi.h>
#include <stdio.h>

static int Check(int rc, int rank, const char* what) {
  if (rc == MPI_SUCCESS) return 0;
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, msg, &len);
  printf("rank %d: %s failed: %s\n", rank, what, msg);
  fflush(stdout);
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int* base = NULL;
  MPI_Win win;
  if (Check(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
            rank, "MPI_Win_allocate"))
    MPI_Abort(MPI_COMM_WORLD, 3);
  *base = -1;
  MPI_Win_fence(0, win);
  int mine = rank;
  MPI_Put(&mine, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  const int want = (rank + size - 1) % size;
  printf("rank %d of %d: allocate %s (got %d, want %d)\n", rank, size,
         *base == want ? "ok" : "WRONG", *base, want);
  MPI_Win_free(&win);

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  int node_rank, node_size;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  int* slots = NULL;
  if (Check(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &slots, &win),
            rank, "MPI_Win_allocate_shared"))
    MPI_Abort(MPI_COMM_WORLD, 4);
  MPI_Win_fence(0, win);
  *slots = 1000 + rank;
  MPI_Win_fence(0, win);
  int wrong = 0;
  for (int r = 0; r < node_size; ++r) {
    MPI_Aint bytes;
    int unit;
    int* theirs = NULL;
    MPI_Win_shared_query(win, r, &bytes, &unit, &theirs);
    int world = -1;
    MPI_Group g, wg;
    MPI_Comm_group(node, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &r, wg, &world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    wrong += theirs == NULL || *theirs != 1000 + world;
  }
  MPI_Win_fence(0, win);
  printf("rank %d: shared %s node_size %d\n", rank, wrong ? "WRONG" : "ok", node_size);
  fflush(stdout);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
