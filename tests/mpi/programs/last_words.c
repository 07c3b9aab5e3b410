/* Last words: after MPI_Init and a barrier, rank 1 fails (exit 3, no MPI_Finalize).
 * Rank 0 traps SIGTERM: it writes argv[1]/rank0 (a checkpoint) and says so on stdout;
 * rank 2 ignores SIGTERM; the others keep SIGTERM's default. The barrier makes sure
 * every rank has set its disposition before rank 1 fails; they then wait outside MPI. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char checkpoint[4096];

static void OnTerm(int sig) {
  (void)sig;
  int fd = open(checkpoint, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    (void)!write(fd, "checkpoint\n", 11);
    close(fd);
  }
  static const char said[] = "rank 0 got SIGTERM and wrote its checkpoint\n";
  (void)!write(1, said, sizeof said - 1);
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  snprintf(checkpoint, sizeof checkpoint, "%s/rank0", argv[1]);
  if (rank == 0) signal(SIGTERM, OnTerm);
  if (rank == 2) signal(SIGTERM, SIG_IGN);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    /* Every other rank has set its disposition (the barrier): fail now. */
    fprintf(stderr, "rank 1 failing\n");
    exit(3);
  }
  for (;;) pause();
}
