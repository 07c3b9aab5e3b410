/* A bare PMI-1 client's wire, for the test programs and bench/pmi: one command line out
 * on PMI_FD, one reply line back (MPICH's client is lock-step the same way). */
#ifndef PSCHED_TESTS_MPICH_PMI_CLIENT_H
#define PSCHED_TESTS_MPICH_PMI_CLIENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pmi_fd = -1;

static void PmiSend(const char* text) {
  size_t len = strlen(text);
  if (write(pmi_fd, text, len) != (ssize_t)len) {
    perror("PMI write");
    exit(2);
  }
}

/* One reply line into buf, without its newline. */
static void PmiReceive(char* buf, size_t size) {
  size_t n = 0;
  while (n + 1 < size) {
    if (read(pmi_fd, buf + n, 1) != 1) {
      fprintf(stderr, "PMI connection closed\n");
      exit(2);
    }
    if (buf[n] == '\n') break;
    ++n;
  }
  buf[n] = '\0';
}

/* Sends `text`; the reply must start with `want` (else exit 3). */
static void PmiAsk(const char* text, char* reply, size_t size, const char* want) {
  PmiSend(text);
  PmiReceive(reply, size);
  if (strncmp(reply, want, strlen(want)) != 0) {
    fprintf(stderr, "expected '%s', got '%s'\n", want, reply);
    exit(3);
  }
}

#endif
