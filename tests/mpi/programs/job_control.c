/* PMIx job control between two sessions (plain PMIx clients, no MPI).
 *
 * PSCHED_TEST_SESSION=1 (target): every rank publishes its pid, rank 0 its
 * namespace, then all sleep until killed.
 * PSCHED_TEST_SESSION=2 (controller, 1 rank): looks them up, pauses the target
 * session and sees every pid stopped (/proc state T) as soon as the pause returns
 * (the nodes confirmed it), resumes it and sees them run, then terminates it and
 * sees them gone. Prints one line per step, and after pause and resume the target's
 * state in the leader's model ("model after pause: suspended", from psched-ctl). */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char State(int pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = fopen(path, "r");
  if (f == NULL) return 'X';
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char* close_paren = strrchr(buf, ')');
  return close_paren != NULL && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/* Polls (50 ms steps, at most 30 s) until every pid is in a state accepted by `want`. */
static int WaitAll(const int* pids, int n, int (*want)(char)) {
  for (int tries = 0; tries < 600; ++tries) {
    int all = 1;
    for (int i = 0; i < n; ++i) all &= want(State(pids[i]));
    if (all) return 1;
    usleep(50000);
  }
  return 0;
}
static int AllNow(const int* pids, int n, int (*want)(char)) {
  int all = 1;
  for (int i = 0; i < n; ++i) all &= want(State(pids[i]));
  return all;
}
static int Stopped(char s) {
  return s == 'T' || s == 't';
}
static int Running(char s) {
  return s == 'S' || s == 'R' || s == 'D';
}
static int Gone(char s) {
  return s == 'X' || s == 'Z';
}

static int Lookup(const char* key, pmix_value_t* out) {
  for (int tries = 0; tries < 600; ++tries) {
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    if (PMIx_Lookup(&pd, 1, NULL, 0) == PMIX_SUCCESS) {
      PMIx_Value_xfer(out, &pd.value);
      PMIX_PDATA_DESTRUCT(&pd);
      return 1;
    }
    PMIX_PDATA_DESTRUCT(&pd);
    usleep(50000);
  }
  return 0;
}

/* The target's state in `psched-ctl status`; its session id ends the namespace
 * ("psched.<pid>.<session>"). */
static void PrintModelState(const char* nspace, const char* when) {
  const char* dot = strrchr(nspace, '.');
  char cmd[256];
  snprintf(cmd, sizeof cmd,
           "psched-ctl status | awk '$1 == \"%s\" { print \"model after %s: \" $3 }'",
           dot != NULL ? dot + 1 : nspace, when);
  fflush(stdout);
  if (system(cmd) != 0) printf("model after %s: psched-ctl failed\n", when);
  fflush(stdout);
}

static int Control(const char* nspace, const char* directive) {
  pmix_proc_t target;
  PMIX_LOAD_PROCID(&target, nspace, PMIX_RANK_WILDCARD);
  pmix_info_t dir;
  PMIX_INFO_LOAD(&dir, directive, NULL, PMIX_BOOL);
  pmix_info_t* results = NULL;
  size_t nresults = 0;
  pmix_status_t rc = PMIx_Job_control(&target, 1, &dir, 1, &results, &nresults);
  if (rc != PMIX_SUCCESS) fprintf(stderr, "job control %s: %s\n", directive, PMIx_Error_string(rc));
  return rc == PMIX_SUCCESS;
}

int main(void) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
  const char* role = getenv("PSCHED_TEST_SESSION");
  if (role != NULL && strcmp(role, "1") == 0) {
    pmix_info_t info[2];
    char key[64];
    snprintf(key, sizeof key, "jc.pid.%u", me.rank);
    int pid = getpid();
    PMIX_INFO_LOAD(&info[0], key, &pid, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], "jc.nspace", me.nspace, PMIX_STRING);
    PMIx_Publish(info, me.rank == 0 ? 2 : 1);
    for (;;) pause();
  }
  pmix_value_t ns, pid0, pid1;
  if (!Lookup("jc.nspace", &ns) || !Lookup("jc.pid.0", &pid0) || !Lookup("jc.pid.1", &pid1)) {
    fprintf(stderr, "controller: the target never published\n");
    return 2;
  }
  int pids[2] = {pid0.data.integer, pid1.data.integer};
  int ok = Control(ns.data.string, PMIX_JOB_CTRL_PAUSE) && AllNow(pids, 2, Stopped);
  printf("pause: %s\n", ok ? "stopped" : "NOT STOPPED");
  PrintModelState(ns.data.string, "pause");
  ok = ok && Control(ns.data.string, PMIX_JOB_CTRL_RESUME) && WaitAll(pids, 2, Running);
  printf("resume: %s\n", ok ? "running" : "NOT RUNNING");
  PrintModelState(ns.data.string, "resume");
  ok = ok && Control(ns.data.string, PMIX_JOB_CTRL_TERMINATE) && WaitAll(pids, 2, Gone);
  printf("terminate: %s\n", ok ? "gone" : "STILL THERE");
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return ok ? 0 : 1;
}
