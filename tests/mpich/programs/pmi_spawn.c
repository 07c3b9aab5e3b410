/* MPI_Comm_spawn over the PMI-1 wire, as MPICH's simple client asks for it (mcmd=spawn
 * blocks, one spawn_result), from a bare client: Debian's MPICH 4.0.2 (ch4:ucx) refuses
 * MPI_Comm_spawn before it speaks to any process manager ("not supported with ucx
 * netmod", under mpiexec.hydra too), so no MPICH program can exercise this path here.
 *
 *   pmi_spawn N DIR [M]   rank 0 asks for N children (this program, argument "child")
 *                     with PARENT_ROOT_PORT_NAME preput (and, given M, for M more with
 *                     argument "second": MPI_Comm_spawn_multiple's two blocks), prints
 *                     the answer and, when the children started, waits (up to 30 s) for
 *                     DIR/child<R> of each.
 *   pmi_spawn child DIR   (a child, PMI_SPAWNED=1): prints what it finds of its parent
 *                     in its own key-value space, meets its siblings in a barrier and
 *                     leaves DIR/child<R>. */
#include "pmi_client.h"

int main(int argc, char** argv) {
  const char* fd_text = getenv("PMI_FD");
  const char* spawned = getenv("PMI_SPAWNED");
  if (!fd_text || !spawned || argc < 3) {
    fprintf(stderr, "usage: pmi_spawn N|child DIR, with PMI_FD and PMI_SPAWNED\n");
    return 2;
  }
  pmi_fd = atoi(fd_text);
  const int rank = atoi(getenv("PMI_RANK")), size = atoi(getenv("PMI_SIZE"));
  char reply[1024], line[1024], kvs[256];
  PmiAsk("cmd=init pmi_version=1 pmi_subversion=1\n", reply, sizeof reply, "cmd=response_to_init");
  PmiAsk("cmd=get_my_kvsname\n", reply, sizeof reply, "cmd=my_kvsname");
  if (sscanf(strstr(reply, "kvsname=") + 8, "%255s", kvs) != 1) return 3;

  if (strcmp(spawned, "1") == 0) {
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=PARENT_ROOT_PORT_NAME\n", kvs);
    PmiAsk(line, reply, sizeof reply, "cmd=get_result");
    const char* value = strstr(reply, "value=");
    char port[256];
    snprintf(port, sizeof port, "%s", value ? value + 6 : "(none)");
    PmiAsk("cmd=get_appnum\n", reply, sizeof reply, "cmd=appnum");
    const char* appnum = strstr(reply, "appnum=");
    printf("child rank %d of %d (%s, app %d): parent port %s\n", rank, size, argv[1],
           appnum ? atoi(appnum + 7) : -1, port);
    fflush(stdout);
    PmiAsk("cmd=barrier_in\n", reply, sizeof reply, "cmd=barrier_out");
    PmiAsk("cmd=finalize\n", reply, sizeof reply, "cmd=finalize_ack");
    snprintf(line, sizeof line, "%s/child%d", argv[2], rank);
    FILE* mark = fopen(line, "w");
    if (mark) fclose(mark);
    return 0;
  }
  if (strcmp(spawned, "0") != 0) return 2;
  const int first = atoi(argv[1]), second = argc > 3 ? atoi(argv[3]) : 0;
  const int n = first + second, commands = second > 0 ? 2 : 1;
  int started = 0;
  if (rank == 0) {
    for (int c = 1; c <= commands; ++c) {
      snprintf(line, sizeof line,
               "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\nspawnssofar=%d\narg1=%s\n"
               "arg2=%s\nargcnt=2\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
               "preput_val_0=port-of-%s\ninfo_num=0\nendcmd\n",
               c == 1 ? first : second, argv[0], commands, c, c == 1 ? "child" : "second", argv[2],
               kvs);
      if (c < commands) PmiSend(line); /* the answer comes after the last block */
    }
    PmiAsk(line, reply, sizeof reply, "cmd=spawn_result");
    printf("parent rank 0: %s\n", reply);
    fflush(stdout);
    started = strstr(reply, "rc=0") != NULL;
  }
  /* The children are killed when this session ends: wait for them to finish. */
  for (int waited = 0; started && waited < 300; ++waited) {
    int done = 0;
    for (int r = 0; r < n; ++r) {
      snprintf(line, sizeof line, "%s/child%d", argv[2], r);
      done += access(line, F_OK) == 0;
    }
    if (done == n) break;
    usleep(100 * 1000);
  }
  PmiAsk("cmd=barrier_in\n", reply, sizeof reply, "cmd=barrier_out");
  PmiAsk("cmd=finalize\n", reply, sizeof reply, "cmd=finalize_ack");
  return 0;
}
