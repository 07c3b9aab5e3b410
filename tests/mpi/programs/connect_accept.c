/* Two sessions find each other through the name service and connect:
 * PSCHED_TEST_SESSION=1 publishes a port and accepts, =2 looks it up and connects.
 * Both sides then exchange their world sizes over the intercommunicator.
 * argv[1]: the root rank that publishes / looks up (default 0).
 * argv[2]: how many connections the accepting side takes, one after another, on the same
 * port (default 1): a simulation that analyses attach to in turn.
 * PSCHED_TEST_ACCEPT_AFTER=FILE: the accepting side publishes at once but accepts only once
 * FILE exists. The accepting side prints "published" once it has published, the
 * connecting side "connecting" before it connects.
 * PSCHED_TEST_PEER_DIES=CODE: once connected, the connecting side exits CODE (no
 * MPI_Finalize) and the accepting side waits in MPI_Recv from it, errors returned. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rank 0s swap world sizes, then broadcast inside each side; true when the intercommunicator's
 * remote size is what the other side told. */
static int Exchange(MPI_Comm inter, int server, int rank, int size) {
  int remote_size;
  MPI_Comm_remote_size(inter, &remote_size);
  int mine = size, theirs = -1;
  if (rank == 0) {
    MPI_Sendrecv(&mine, 1, MPI_INT, 0, 0, &theirs, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(&theirs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("%s rank %d: connected, remote size %d, told %d\n", server ? "accept" : "connect", rank,
         remote_size, theirs);
  fflush(stdout);
  MPI_Barrier(inter);
  return remote_size == theirs;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* role_env = getenv("PSCHED_TEST_SESSION");
  int server = role_env != NULL && strcmp(role_env, "1") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = argc > 1 ? atoi(argv[1]) : 0;
  if (root >= size) root = 0;
  int accepts = argc > 2 ? atoi(argv[2]) : 1;
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  int ok = 1;
  if (server) {
    if (rank == root) {
      MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Publish_name("psched-test-service", MPI_INFO_NULL, port);
      printf("published\n");
      fflush(stdout);
    }
    const char* gate = getenv("PSCHED_TEST_ACCEPT_AFTER");
    while (gate != NULL && access(gate, F_OK) != 0) usleep(20000);
    for (int i = 0; i < accepts; ++i) {
      MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter);
      ok &= Exchange(inter, 1, rank, size);
      if (i + 1 < accepts) MPI_Comm_disconnect(&inter);
    }
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
    if (rank == root) {
      printf("connecting\n");
      fflush(stdout);
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter);
    ok = Exchange(inter, 0, rank, size);
  }
  const char* dies = getenv("PSCHED_TEST_PEER_DIES");
  if (dies != NULL) {
    if (!server) return atoi(dies);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int value = 0;
    int rc = MPI_Recv(&value, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
    printf("accept rank %d: receive from the dead peer returned %d\n", rank, rc);
    fflush(stdout);
  }
  if (server && rank == root) {
    MPI_Unpublish_name("psched-test-service", MPI_INFO_NULL, port);
    MPI_Close_port(port);
  }
  MPI_Comm_disconnect(&inter);
  MPI_Finalize();
  return ok ? 0 : 1;
}
