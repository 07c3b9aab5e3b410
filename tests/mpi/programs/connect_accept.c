/* Two sessions find each other through the name service and connect:
 * PSCHED_TEST_SESSION=1 publishes a port and accepts, =2 looks it up and connects.
 * Both sides then exchange their world sizes over the intercommunicator.
 * argv[1]: the root rank that publishes / looks up (default 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* role_env = getenv("PSCHED_TEST_SESSION");
  int server = role_env != NULL && strcmp(role_env, "1") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = argc > 1 ? atoi(argv[1]) : 0;
  if (root >= size) root = 0;
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (server) {
    if (rank == root) {
      MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Publish_name("psched-test-service", MPI_INFO_NULL, port);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter);
  } else {
    if (rank == root) {
      /* MPI_Lookup_name does not wait: poll until the other session has published. */
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
      int found = 0;
      for (int tries = 0; tries < 1200 && !found; ++tries) {
        found = MPI_Lookup_name("psched-test-service", MPI_INFO_NULL, port) == MPI_SUCCESS;
        if (!found) usleep(50000);
      }
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
      if (!found) {
        fprintf(stderr, "lookup of psched-test-service never succeeded\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter);
  }
  int remote_size;
  MPI_Comm_remote_size(inter, &remote_size);
  int mine = size, theirs = -1;
  /* Rank 0s swap sizes, then broadcast inside each side. */
  if (rank == 0) {
    MPI_Sendrecv(&mine, 1, MPI_INT, 0, 0, &theirs, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(&theirs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("%s rank %d: connected, remote size %d, told %d\n", server ? "accept" : "connect", rank,
         remote_size, theirs);
  fflush(stdout);
  MPI_Barrier(inter);
  if (server && rank == root) {
    MPI_Unpublish_name("psched-test-service", MPI_INFO_NULL, port);
    MPI_Close_port(port);
  }
  MPI_Comm_disconnect(&inter);
  MPI_Finalize();
  return remote_size == theirs ? 0 : 1;
}
