/* A bare PMI-1 client (no MPI): speaks the wire protocol on PMI_FD. Each rank puts
 * one key, all meet in a barrier, each gets every other rank's key. Then it sends a
 * malformed command and prints the server's answer. Prints "exchange ok" when every
 * value came back as put. */
#include "pmi_client.h"

int main(void) {
  const char* fd_text = getenv("PMI_FD");
  const char* rank_text = getenv("PMI_RANK");
  const char* size_text = getenv("PMI_SIZE");
  if (!fd_text || !rank_text || !size_text) {
    fprintf(stderr, "no PMI_FD/PMI_RANK/PMI_SIZE\n");
    return 2;
  }
  pmi_fd = atoi(fd_text);
  const int rank = atoi(rank_text), size = atoi(size_text);
  char reply[1024], line[1024], kvs[256];

  PmiAsk("cmd=init pmi_version=1 pmi_subversion=1\n", reply, sizeof reply, "cmd=response_to_init");
  PmiAsk("cmd=get_my_kvsname\n", reply, sizeof reply, "cmd=my_kvsname");
  if (sscanf(strstr(reply, "kvsname=") + 8, "%255s", kvs) != 1) return 3;

  snprintf(line, sizeof line, "cmd=put kvsname=%s key=k%d value=v%d-%d\n", kvs, rank, rank,
           rank * 7);
  PmiAsk(line, reply, sizeof reply, "cmd=put_result rc=0");
  PmiAsk("cmd=barrier_in\n", reply, sizeof reply, "cmd=barrier_out");

  int good = 0;
  for (int r = 0; r < size; ++r) {
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=k%d\n", kvs, r);
    PmiSend(line);
    PmiReceive(reply, sizeof reply);
    char want[64];
    snprintf(want, sizeof want, "value=v%d-%d", r, r * 7);
    if (strstr(reply, "rc=0") && strstr(reply, want))
      ++good;
    else
      fprintf(stderr, "rank %d: get k%d: %s\n", rank, r, reply);
  }
  snprintf(line, sizeof line, "cmd=get kvsname=%s key=PMI_process_mapping\n", kvs);
  PmiSend(line);
  PmiReceive(reply, sizeof reply);
  printf("rank %d mapping %s\n", rank, strstr(reply, "value=") ? strstr(reply, "value=") + 6 : "?");
  PmiSend("this is not pmi\n");
  PmiReceive(reply, sizeof reply);
  printf("rank %d malformed reply: %s\n", rank, reply);
  PmiAsk("cmd=finalize\n", reply, sizeof reply, "cmd=finalize_ack");
  printf("rank %d of %d: got %d of %d keys: exchange %s\n", rank, size, good, size,
         good == size ? "ok" : "WRONG");
  return good == size ? 0 : 1;
}
