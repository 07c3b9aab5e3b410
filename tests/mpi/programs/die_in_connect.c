/* LD_PRELOAD shim for tests: a spawned Open MPI child (OMPI_PARENT_PORT set) exits 3 when
 * it calls PMIx_Connect inside MPI_Init, after it published its participants and looked
 * up its parent's: it dies inside its parent's MPI_Comm_spawn, after the exchange that
 * links the two sessions and before the connect completes. The parent is unaffected. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix.h>
#include <stdlib.h>
#include <unistd.h>

pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo) {
  if (getenv("OMPI_PARENT_PORT") != NULL) _exit(3);
  pmix_status_t (*real)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t) =
      (pmix_status_t(*)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t))dlsym(
          RTLD_NEXT, "PMIx_Connect");
  return real(procs, nprocs, info, ninfo);
}
