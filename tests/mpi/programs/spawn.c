/* The parent asks for 2 children with MPI_Comm_spawn and errors returned, and
 * prints what happened; a spawned child reports its parent. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parent != MPI_COMM_NULL) {
    printf("child rank %d: spawned\n", rank);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm children;
  int errs[2];
  int rc =
      MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, errs);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    printf("parent rank %d: spawn failed: %s\n", rank, msg);
  } else {
    printf("parent rank %d: spawned 2 children\n", rank);
    MPI_Comm_disconnect(&children);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
