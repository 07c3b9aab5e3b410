/* Timing and the one-line latency report shared by the in-session benchmarks
 * (bench/pmix/fence_bench.c, bench/pmi/barrier_bench.c), so that the PMIx fence and
 * the PMI-1 barrier they are compared with are timed and summarised the same way. */
#ifndef PSCHED_BENCH_LATENCY_REPORT_H
#define PSCHED_BENCH_LATENCY_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int CompareSeconds(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Sorts the n round times t (seconds) and prints median, p90 and min in ms. */
static void Report(const char* what, double* t, int n, long ranks) {
  qsort(t, n, sizeof *t, CompareSeconds);
  printf("%s: %ld ranks, %d rounds: median %.3f ms, p90 %.3f ms, min %.3f ms\n", what, ranks, n,
         t[n / 2] * 1e3, t[(n * 9) / 10] * 1e3, t[0] * 1e3);
  fflush(stdout);
}

#endif
