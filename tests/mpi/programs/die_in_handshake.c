/* LD_PRELOAD shim for tests: a rank of the chosen session dies (SIGKILL) at its first
 * recv(). In a PMIx client that is the wait for the server's answer to the connection
 * request it has just sent, so the server goes on writing the handshake to a dead
 * peer: libpmix 4.2.2's connection handler then takes its error path
 * ("UNREACHABLE ... ptl_base_connection_hdlr.c"), the one that double-releases the
 * rank's record. Active only when PSCHED_TEST_SESSION equals
 * PSCHED_DIE_IN_HANDSHAKE_SESSION. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  const char* session = getenv("PSCHED_TEST_SESSION");
  const char* doomed = getenv("PSCHED_DIE_IN_HANDSHAKE_SESSION");
  if (session != NULL && doomed != NULL && strcmp(session, doomed) == 0) raise(SIGKILL);
  ssize_t (*real)(int, void*, size_t, int) =
      (ssize_t(*)(int, void*, size_t, int))dlsym(RTLD_NEXT, "recv");
  return real(fd, buf, len, flags);
}
