/* MPI_Comm_spawn of children that fail before their MPI_Init completes.
 *   spawn_fail MODE
 * MODE "exit": the child exits 1 before MPI_Init; "signal": the child connects to its
 * PMIx server (as MPI_Init does first) and then kills itself with SIGKILL, inside
 * wire-up; "noexec": the parent spawns a program that does not exist; "init": the child
 * calls MPI_Init (with die_in_connect.so preloaded it exits 3 inside it, at its
 * PMIx_Connect). The parent (errors returned) prints how its MPI_Comm_spawn ended and
 * after how many seconds. */
#include <mpi.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exit";
  if (argc > 2 && strcmp(argv[2], "child") == 0) {
    if (strcmp(mode, "exit") == 0) return 1;
    if (strcmp(mode, "init") == 0) {
      MPI_Init(&argc, &argv);
      MPI_Finalize();
      return 0;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 2;
    raise(SIGKILL);
    return 3;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* child_argv[3] = {argv[1], "child", NULL};
  const char* command =
      strcmp(mode, "noexec") == 0 ? "/nonexistent/psched-no-such-program" : argv[0];
  MPI_Comm children;
  int err = 0;
  double start = Now();
  int rc =
      MPI_Comm_spawn(command, child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, &err);
  double took = Now() - start;
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    printf("parent rank %d: spawn failed after %.1f s: %s\n", rank, took, msg);
  } else {
    printf("parent rank %d: spawned after %.1f s\n", rank, took);
    MPI_Comm_disconnect(&children);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
