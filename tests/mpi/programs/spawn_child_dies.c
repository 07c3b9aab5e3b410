/* MPI_Comm_spawn of a child that dies after the spawn completed.
 *   spawn_child_dies MODE
 * MODE "exit": the child exits 3 after MPI_Init; "signal": it kills itself with SIGKILL;
 * "hang": it waits for ever (to be killed from outside).
 * The child first answers the parent once, so the spawn has completed on both sides.
 * The parent (errors returned on the intercommunicator) then blocks in MPI_Recv from
 * the child and prints "parent: receive returned: ERROR" if that receive ever returns. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int value = 1;
  if (parent != MPI_COMM_NULL) {
    MPI_Send(&value, 1, MPI_INT, 0, 0, parent);
    usleep(200 * 1000);
    if (strcmp(mode, "signal") == 0) raise(SIGKILL);
    while (strcmp(mode, "hang") == 0) pause();
    return 3;
  }
  MPI_Comm child;
  char* child_argv[2] = {argv[1], NULL};
  MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
                 MPI_ERRCODES_IGNORE);
  MPI_Comm_set_errhandler(child, MPI_ERRORS_RETURN);
  MPI_Recv(&value, 1, MPI_INT, 0, 0, child, MPI_STATUS_IGNORE);
  printf("parent: child answered\n");
  fflush(stdout);
  int rc = MPI_Recv(&value, 1, MPI_INT, 0, 1, child, MPI_STATUS_IGNORE);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  printf("parent: receive returned: %s\n", msg);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
