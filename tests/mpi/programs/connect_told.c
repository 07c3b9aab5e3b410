/* Two sessions that connect with PMIx_Connect alone (a plain PMIx client, no MPI and no
 * name service): is one told when the other fails?
 *   pmix_connect_told DIR stay|die
 * Each writes its namespace to DIR/<role> and waits for the other's file (60 s at most),
 * then both connect their whole namespaces and print "<role>: connected".
 * "die" then exits 5 without PMIx_Finalize. "stay" waits up to 20 s for a
 * PMIX_ERR_PROC_ABORTED event and prints "stay: told rank R of NSPACE failed: TEXT"
 * (exit 0), or "stay: never told" (exit 4). */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t told = 0;
static char told_line[1024];

static void OnAborted(size_t id, pmix_status_t status, const pmix_proc_t* source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  (void)id, (void)status, (void)results, (void)nresults;
  const char* text = "";
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE)) text = info[i].value.data.string;
  }
  snprintf(told_line, sizeof told_line, "stay: told rank %u of %s failed: %s\n", source->rank,
           source->nspace, text);
  told = 1;
  if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Writes `text` to DIR/name (through a rename: the reader never sees half of it). */
static int WriteFile(const char* dir, const char* name, const char* text) {
  char tmp[4096], path[4096];
  snprintf(tmp, sizeof tmp, "%s/.%s", dir, name);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(tmp, "w");
  if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) return 0;
  return rename(tmp, path) == 0;
}

static int ReadFile(const char* dir, const char* name, char* out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  for (int tries = 0; tries < 1200; ++tries) {
    FILE* f = fopen(path, "r");
    int ok = f != NULL && fscanf(f, "%255s", out) == 1;
    if (f != NULL) fclose(f);
    if (ok) return 1;
    usleep(50000);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[2], "stay") != 0 && strcmp(argv[2], "die") != 0)) {
    fprintf(stderr, "usage: pmix_connect_told DIR stay|die\n");
    return 2;
  }
  const char* dir = argv[1];
  const int stay = strcmp(argv[2], "stay") == 0;
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_connect_told: PMIx_Init failed\n");
    return 2;
  }
  if (stay) {
    pmix_status_t code = PMIX_ERR_PROC_ABORTED;
    if (PMIx_Register_event_handler(&code, 1, NULL, 0, OnAborted, NULL, NULL) < 0) {
      fprintf(stderr, "pmix_connect_told: cannot register the event handler\n");
      return 2;
    }
  }
  char peer[PMIX_MAX_NSLEN + 1] = {0};
  if (!WriteFile(dir, argv[2], me.nspace) || !ReadFile(dir, stay ? "die" : "stay", peer)) {
    fprintf(stderr, "pmix_connect_told: no peer namespace in %s\n", dir);
    return 3;
  }
  pmix_proc_t procs[2];
  PMIX_LOAD_PROCID(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
  PMIX_LOAD_PROCID(&procs[1], peer, PMIX_RANK_WILDCARD);
  pmix_status_t rc = PMIx_Connect(procs, 2, NULL, 0);
  printf("%s: %s\n", argv[2], rc == PMIX_SUCCESS ? "connected" : PMIx_Error_string(rc));
  fflush(stdout);
  if (rc != PMIX_SUCCESS) return 1;
  if (!stay) _exit(5);
  for (int tries = 0; tries < 400 && !told; ++tries) usleep(50000);
  fputs(told ? told_line : "stay: never told\n", stdout);
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return told ? 0 : 4;
}
