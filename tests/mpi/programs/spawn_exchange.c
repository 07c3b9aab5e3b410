/* MPI_Comm_spawn with a message each way through the intercommunicator.
 *   spawn_exchange [N [hold]]
 * The parent (rank 0 is the root) spawns N children (default 2) running this
 * program; rank 0 sends 42+i to child i, which answers twice the value. With
 * "hold", the children print their pid and then wait for a signal (and so does
 * the parent), so a test can kill the parent's launcher and look for orphans. With
 * "childfail", child rank 0 exits with status 3 after MPI_Finalize while the parent
 * waits for a signal, so a test can see the failure reported to the parent's launcher.
 * With "flood", the children and the parent then write lines to stdout without end:
 * output of two sessions for one launcher that may not read it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void Hold(void) {
  for (;;) pause();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 2;
  int hold = argc > 2 && strcmp(argv[2], "hold") == 0;
  int childfail = argc > 2 && strcmp(argv[2], "childfail") == 0;
  int flood = argc > 2 && strcmp(argv[2], "flood") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    int v = 0;
    MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
    printf("child rank %d of %d: got %d from parent\n", rank, size, v);
    v *= 2;
    MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
    if (hold) {
      printf("child rank %d pid %d holding\n", rank, (int)getpid());
      fflush(stdout);
      Hold();
    }
    while (flood) printf("child rank %d flooding its parent's launcher\n", rank);
    fflush(stdout);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return childfail && rank == 0 ? 3 : 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char* child_argv[3] = {argv[1], argc > 2 ? argv[2] : NULL, NULL};
  MPI_Comm children;
  int* errs = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  int rc = MPI_Comm_spawn(argv[0], argc > 1 ? child_argv : MPI_ARGV_NULL, n, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &children, errs);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    printf("parent rank %d: spawn failed: %s\n", rank, msg);
    fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      int v = 42 + i;
      MPI_Send(&v, 1, MPI_INT, i, 0, children);
    }
    for (int i = 0; i < n; ++i) {
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, i, 1, children, MPI_STATUS_IGNORE);
      printf("parent: child %d answered %d\n", i, v);
    }
  }
  fflush(stdout);
  while (flood) printf("parent rank %d flooding its launcher\n", rank);
  if (hold) {
    printf("parent rank %d holding\n", rank);
    fflush(stdout);
    Hold();
  }
  MPI_Comm_disconnect(&children);
  if (childfail) {
    printf("parent rank %d waiting\n", rank);
    fflush(stdout);
    Hold();
  }
  MPI_Finalize();
  free(errs);
  return 0;
}
