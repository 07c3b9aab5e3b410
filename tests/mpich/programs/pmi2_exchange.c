/* A PMI-2 client through Slurm's libpmi2 (the library Intel MPI and MPICH builds
 * --with-pmi=slurm/pmi2 load), no MPI. Each rank puts a key whose value holds a ';',
 * the first rank of each node puts a node attribute the others wait for, all meet in
 * PMI2_KVS_Fence, each gets every rank's key and reads PMI_process_mapping.
 * "pmi2_exchange abort": rank 1 calls PMI2_Abort, the others wait in a fence that
 * never ends. */
#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int spawned = 0, size = 0, rank = -1, appnum = -1;
  if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
    fprintf(stderr, "PMI2_Init failed\n");
    return 2;
  }
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    if (rank == 1) PMI2_Abort(1, "rank 1 gave up on its input");
    PMI2_KVS_Fence();
    printf("rank %d passed the fence\n", rank);
    PMI2_Finalize();
    return 0;
  }
  char jobid[256], mapping[PMI2_MAX_VALLEN], key[64], value[PMI2_MAX_VALLEN], want[64];
  int found = 0, len = 0;
  if (PMI2_Job_GetId(jobid, sizeof jobid) != PMI2_SUCCESS) return 3;
  if (PMI2_Info_GetJobAttr("PMI_process_mapping", mapping, sizeof mapping, &found) !=
          PMI2_SUCCESS ||
      !found)
    return 4;
  /* Block placement is one block: (vector,(0,NODES,PER_NODE)). */
  int nodes = 0, per_node = 0;
  if (sscanf(mapping, "(vector,(0,%d,%d))", &nodes, &per_node) != 2 || per_node < 1) return 5;

  snprintf(key, sizeof key, "k%d", rank);
  snprintf(value, sizeof value, "v%d;%d", rank, rank * 7);
  if (PMI2_KVS_Put(key, value) != PMI2_SUCCESS) return 6;
  char leader[PMI2_MAX_VALLEN] = "?";
  if (rank % per_node == 0) {
    snprintf(leader, sizeof leader, "rank%d", rank);
    if (PMI2_Info_PutNodeAttr("psched-node-leader", leader) != PMI2_SUCCESS) return 7;
  } else if (PMI2_Info_GetNodeAttr("psched-node-leader", leader, sizeof leader, &found, 1) !=
                 PMI2_SUCCESS ||
             !found) {
    return 8;
  }
  if (PMI2_KVS_Fence() != PMI2_SUCCESS) return 9;

  int good = 0;
  for (int r = 0; r < size; ++r) {
    snprintf(key, sizeof key, "k%d", r);
    snprintf(want, sizeof want, "v%d;%d", r, r * 7);
    if (PMI2_KVS_Get(jobid, r, key, value, sizeof value, &len) == PMI2_SUCCESS &&
        strcmp(value, want) == 0)
      ++good;
    else
      fprintf(stderr, "rank %d: get %s: '%s'\n", rank, key, value);
  }
  if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, "no-such-key", value, sizeof value, &len) == PMI2_SUCCESS)
    fprintf(stderr, "rank %d: a missing key was found\n", rank);
  printf("rank %d job %s mapping %s node leader %s\n", rank, jobid, mapping, leader);
  if (PMI2_Finalize() != PMI2_SUCCESS) return 10;
  printf("rank %d of %d: got %d of %d keys: pmi2 exchange %s\n", rank, size, good, size,
         good == size ? "ok" : "WRONG");
  return good == size ? 0 : 1;
}
