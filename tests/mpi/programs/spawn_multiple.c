/* MPI_Comm_spawn_multiple of two commands in one call:
 *   spawn_multiple            (parent)
 * The parent spawns 2 copies of "spawn_multiple worker A" and 1 of
 * "spawn_multiple worker B"; the 3 children share one MPI_COMM_WORLD (ranks 0-1
 * run command A, rank 2 command B, in the order of the commands). Each child
 * reports its world rank, size, command and MPI_APPNUM to the parent through the
 * intercommunicator, and the children check their own world with an allreduce. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char role = argc > 2 ? argv[2][0] : '?';
    int flag = 0;
    int* appnum = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    int report[5] = {rank, size, role, sum, flag ? *appnum : -1};
    MPI_Send(report, 5, MPI_INT, 0, 7, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char* argv_a[] = {"worker", "A", NULL};
  char* argv_b[] = {"worker", "B", NULL};
  char* commands[2] = {argv[0], argv[0]};
  char** argvs[2] = {argv_a, argv_b};
  int maxprocs[2] = {2, 1};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  MPI_Comm children;
  int errs[3];
  int rc = MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD,
                                   &children, errs);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    printf("parent rank %d: spawn_multiple failed: %s\n", rank, msg);
    fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  if (rank == 0) {
    int remote = 0;
    MPI_Comm_remote_size(children, &remote);
    printf("parent: %d children\n", remote);
    for (int i = 0; i < remote; ++i) {
      int report[5];
      MPI_Recv(report, 5, MPI_INT, i, 7, children, MPI_STATUS_IGNORE);
      printf("parent: child %d is rank %d of %d running command %c (allreduce %d) appnum %d\n", i,
             report[0], report[1], (char)report[2], report[3], report[4]);
    }
  }
  fflush(stdout);
  MPI_Comm_disconnect(&children);
  MPI_Finalize();
  return 0;
}
