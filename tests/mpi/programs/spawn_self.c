/* Every rank spawns one child of its own over MPI_COMM_SELF, at the same moment, ROUNDS
 * times in a row (argv[1], default 1), as mpi4py's MPI.COMM_SELF.Spawn tests do: children
 * start while others end. Each child answers its parent with its node's name and exits.
 * Prints "rank R: child says ..." per round, or "rank R: spawn failed: ..." and stops. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 0, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  int rc = MPI_SUCCESS;
  for (int round = 0; round < rounds && rc == MPI_SUCCESS; ++round) {
    MPI_Comm child;
    int err = MPI_SUCCESS;
    char* child_argv[] = {NULL};
    rc = MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, &err);
    if (rc != MPI_SUCCESS) {
      char msg[MPI_MAX_ERROR_STRING];
      int len;
      MPI_Error_string(rc, msg, &len);
      printf("rank %d: spawn failed: %s\n", rank, msg);
    } else {
      char name[MPI_MAX_PROCESSOR_NAME] = {0};
      MPI_Recv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 0, child, MPI_STATUS_IGNORE);
      printf("rank %d: child says it runs on %s\n", rank, name);
      MPI_Comm_disconnect(&child);
    }
    fflush(stdout);
  }
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : 1;
}
