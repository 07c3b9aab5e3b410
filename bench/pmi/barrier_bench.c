/* PMI-1 barrier latency, measured from inside a session's ranks: the counterpart of
 * bench/pmix/fence_bench.c's empty fence for MPICH-family ranks. Each rank is a bare
 * PMI-1 client on PMI_FD (no MPI library); ROUNDS barrier_in/barrier_out with nothing
 * put, then ROUNDS with one key put by every rank before each barrier. Rank 0 prints
 * the median and 90th percentile. Usage: barrier_bench [ROUNDS]  (default 50) */
#include "bench/latency_report.h"

#include "tests/mpich/programs/pmi_client.h"

/* Sends one command; its answer must start with `want` and not be an error. */
static void Ask(const char* line, const char* want) {
  char reply[1024];
  PmiAsk(line, reply, sizeof reply, want);
  if (strstr(reply, "rc=-1")) {
    fprintf(stderr, "barrier_bench: '%s' was refused: %s\n", line, reply);
    exit(3);
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 50;
  if (rounds < 1) rounds = 1;
  const char* fd_text = getenv("PMI_FD");
  if (!fd_text) {
    fprintf(stderr, "barrier_bench: no PMI_FD (run it with psched-exec --mpi pmi1)\n");
    return 2;
  }
  pmi_fd = atoi(fd_text);
  const int rank = atoi(getenv("PMI_RANK")), size = atoi(getenv("PMI_SIZE"));
  Ask("cmd=init pmi_version=1 pmi_subversion=1\n", "cmd=response_to_init");
  double* t = malloc(sizeof(double) * rounds);
  Ask("cmd=barrier_in\n", "cmd=barrier_out"); /* warm up: every rank is up */
  for (int i = 0; i < rounds; ++i) {
    double s = Now();
    Ask("cmd=barrier_in\n", "cmd=barrier_out");
    t[i] = Now() - s;
  }
  if (rank == 0) Report("PMI-1 barrier, nothing put", t, rounds, size);
  char line[256];
  for (int i = 0; i < rounds; ++i) {
    snprintf(line, sizeof line, "cmd=put key=r%d.%d value=%d\n", rank, i, i);
    double s = Now();
    Ask(line, "cmd=put_result");
    Ask("cmd=barrier_in\n", "cmd=barrier_out");
    t[i] = Now() - s;
  }
  if (rank == 0) Report("PMI-1 put + barrier, 1 key per rank", t, rounds, size);
  Ask("cmd=finalize\n", "cmd=finalize_ack");
  free(t);
  return 0;
}
