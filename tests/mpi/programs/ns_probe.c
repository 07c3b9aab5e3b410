/* Which namespaces a node's PMIx server knows (plain PMIx client, no MPI).
 *
 * PSCHED_TEST_SESSION=1 (holder): rank 0 publishes its namespace as "probe.ns",
 * then waits until "probe.done" is published, so its session runs meanwhile.
 * PSCHED_TEST_SESSION=2 (prober, 1 rank on another node): looks "probe.ns" up and
 * asks its own server for that namespace's job size, then for its own (the
 * control), prints one line for each and publishes "probe.done".
 * Without a rank there and without a connect, a lazy daemon has never registered
 * the holder's namespace: the get fails ("unknown").
 * PSCHED_TEST_SESSION=3 (connector, 1 rank on another node): no probes; once the
 * holder has ended, connects to it: that fails with an error (the session ended).
 * PSCHED_TEST_SESSION=4 (connector, 1 rank): connects at once to the namespace in
 * PSCHED_TEST_NSPACE (a holder whose node the test has killed), then says whether the
 * holder's "probe.ns" is still published.
 * A connect with no name-service lookup before it (a surpass yields to the connect
 * alone), the peers told through the file PSCHED_TEST_PEER_FILE:
 * PSCHED_TEST_SESSION=5 (connected to): every rank prints its node and namespace and
 * waits for the connector's namespace and chosen rank in the file; that rank connects to
 * it and says so; every rank then fences.
 * PSCHED_TEST_SESSION=6 (connector, 1 rank): picks the holder's rank from the list
 * PSCHED_TEST_TARGET_RANKS by its own node (the N-th entry on node N), writes its
 * namespace and that rank to the file, and connects to it in PSCHED_TEST_NSPACE. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Polls (50 ms steps, at most 60 s) until `key` is published; 0 if it never is. */
static int WaitFor(const char* key, pmix_value_t* out) {
  for (int tries = 0; tries < 1200; ++tries) {
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    if (PMIx_Lookup(&pd, 1, NULL, 0) == PMIX_SUCCESS) {
      if (out != NULL) PMIx_Value_xfer(out, &pd.value);
      PMIX_PDATA_DESTRUCT(&pd);
      return 1;
    }
    PMIX_PDATA_DESTRUCT(&pd);
    usleep(50000);
  }
  return 0;
}

static int Lookup(const char* key, pmix_value_t* out) {
  pmix_pdata_t pd;
  PMIX_PDATA_CONSTRUCT(&pd);
  PMIX_LOAD_KEY(pd.key, key);
  int found = PMIx_Lookup(&pd, 1, NULL, 0) == PMIX_SUCCESS;
  if (found && out != NULL) PMIx_Value_xfer(out, &pd.value);
  PMIX_PDATA_DESTRUCT(&pd);
  return found;
}

static void Publish(const char* key, const char* value) {
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
  PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
}

/* Asks this node's server (not the client's cache) for nspace's job size. */
static void Probe(const char* what, const char* nspace) {
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info[1];
  int timeout = 10;
  PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &timeout, PMIX_INT);
  pmix_value_t* v = NULL;
  pmix_status_t rc = PMIx_Get(&job, PMIX_JOB_SIZE, info, 1, &v);
  if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32) {
    printf("%s namespace known: size %u\n", what, v->data.uint32);
  } else {
    printf("%s namespace unknown here: %s\n", what, PMIx_Error_string(rc));
  }
  if (v != NULL) PMIX_VALUE_RELEASE(v);
  PMIX_INFO_DESTRUCT(&info[0]);
  fflush(stdout);
}

/* Connects rank `target` of `holder` and every rank of `connector`: both sides call it. */
static pmix_status_t ConnectPair(const char* holder, pmix_rank_t target, const char* connector) {
  pmix_proc_t procs[2];
  PMIX_LOAD_PROCID(&procs[0], holder, target);
  PMIX_LOAD_PROCID(&procs[1], connector, PMIX_RANK_WILDCARD);
  return PMIx_Connect(procs, 2, NULL, 0);
}

/* Roles 5 and 6: a connect whose peers learn each other from a file, not a lookup. */
static int ConnectWithoutLookup(const char* role, const pmix_proc_t* me) {
  const char* file = getenv("PSCHED_TEST_PEER_FILE");
  if (file == NULL) {
    fprintf(stderr, "ns_probe: roles 5 and 6 need PSCHED_TEST_PEER_FILE\n");
    return 2;
  }
  if (strcmp(role, "6") == 0) {
    /* The holder's rank to connect to: the PSCHED_NODE-th of PSCHED_TEST_TARGET_RANKS. */
    const char* target_ns = getenv("PSCHED_TEST_NSPACE");
    const char* targets = getenv("PSCHED_TEST_TARGET_RANKS");
    const char* node = getenv("PSCHED_NODE");
    if (target_ns == NULL || targets == NULL || node == NULL) {
      fprintf(stderr, "ns_probe: role 6 needs PSCHED_TEST_NSPACE, PSCHED_TEST_TARGET_RANKS\n");
      return 2;
    }
    const char* next = targets;
    long target = -1;
    for (long n = atol(node); n >= 0; --n) {
      char* end = NULL;
      target = strtol(next, &end, 10);
      next = end;
    }
    FILE* f = fopen(file, "w");
    if (f == NULL || fprintf(f, "%s %ld\n", me->nspace, target) < 0 || fclose(f) != 0) {
      perror(file);
      return 2;
    }
    pmix_status_t c = ConnectPair(target_ns, (pmix_rank_t)target, me->nspace);
    printf("connector on node %s: connect to rank %ld %s\n", node, target,
           c == PMIX_SUCCESS ? "succeeded" : PMIx_Error_string(c));
    return c == PMIX_SUCCESS ? 0 : 1;
  }
  printf("holder rank %u node %s namespace %s\n", me->rank, getenv("PSCHED_NODE"), me->nspace);
  fflush(stdout);
  char peer[PMIX_MAX_NSLEN + 1] = {0};
  long target = -1;
  for (int tries = 0; tries < 1200 && peer[0] == 0; ++tries) {
    FILE* f = fopen(file, "r");
    if (f == NULL || fscanf(f, "%255s %ld", peer, &target) != 2) peer[0] = 0;
    if (f != NULL) fclose(f);
    if (peer[0] == 0) usleep(50000);
  }
  int rc = peer[0] == 0 ? 3 : 0;
  if (peer[0] != 0 && target == (long)me->rank) {
    pmix_status_t c = ConnectPair(me->nspace, me->rank, peer);
    printf("holder rank %u: connect %s\n", me->rank,
           c == PMIX_SUCCESS ? "succeeded" : PMIx_Error_string(c));
    rc = c == PMIX_SUCCESS ? 0 : 1;
  }
  fflush(stdout);
  PMIx_Fence(NULL, 0, NULL, 0);
  return rc;
}

int main(void) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
    fprintf(stderr, "ns_probe: PMIx_Init failed\n");
    return 2;
  }
  const char* role = getenv("PSCHED_TEST_SESSION");
  int rc = 0;
  if (role != NULL && (strcmp(role, "5") == 0 || strcmp(role, "6") == 0)) {
    rc = ConnectWithoutLookup(role, &me);
  } else if (role != NULL && strcmp(role, "1") == 0) {
    if (me.rank == 0) {
      Publish("probe.ns", me.nspace);
      /* Registered and published: a test may now kill this node's daemon. */
      printf("holder namespace %s\n", me.nspace);
      fflush(stdout);
    }
    if (!WaitFor("probe.done", NULL)) rc = 3;
  } else if (role != NULL && strcmp(role, "4") == 0) {
    /* Connector to a holder whose node was lost: its namespace comes from the test. */
    const char* target = getenv("PSCHED_TEST_NSPACE");
    if (target == NULL) {
      fprintf(stderr, "ns_probe: role 4 needs PSCHED_TEST_NSPACE\n");
      rc = 2;
    } else {
      pmix_status_t c = ConnectPair(target, 0, me.nspace);
      printf("connect to the lost session: %s\n", c == PMIX_SUCCESS ? "succeeded" : "failed");
      /* What the lost holder published went with it. */
      printf("probe.ns after the loss: %s\n", Lookup("probe.ns", NULL) ? "published" : "gone");
    }
  } else {
    pmix_value_t ns;
    if (!WaitFor("probe.ns", &ns)) {
      fprintf(stderr, "ns_probe: holder never published\n");
      PMIx_Finalize(NULL, 0);
      return 3;
    }
    int connector = role != NULL && strcmp(role, "3") == 0;
    if (!connector) {
      Probe("foreign", ns.data.string);
      Probe("own", me.nspace);
    }
    Publish("probe.done", "1");
    /* Stay until the holder has seen it: its "probe.ns" goes when its session ends
     * (and so would "probe.done" with this session). */
    int tries = 0;
    while (Lookup("probe.ns", NULL) && ++tries < 1200) usleep(50000);
    /* The holder's session has ended: connecting to it fails, the daemons go on.
     * Not after the probes: libpmix 4.2.2 remembers an nspace a get asked about and
     * then holds a connect naming it until it is registered, without asking the host. */
    if (connector) {
      pmix_status_t c = ConnectPair(ns.data.string, 0, me.nspace);
      printf("connect to the ended session: %s\n", c == PMIX_SUCCESS ? "succeeded" : "failed");
    }
    PMIX_VALUE_DESTRUCT(&ns);
  }
  PMIx_Finalize(NULL, 0);
  return rc;
}
