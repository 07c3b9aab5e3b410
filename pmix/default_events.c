/* libpmix 4.2.2 drops its clients' default event handlers: when a client registers a
 * handler for no particular code (Open MPI 4.1's "MPI-Default", which aborts on any
 * event, and its PMIx glue's own), the server adds the client to its list entry for
 * "every code" (PMIX_MAX_ERR_CONSTANT) only if that entry exists, and nothing ever
 * creates it (src/server/pmix_server_ops.c, pmix_server_register_events: the default
 * branch walks the list, finds nothing, answers success). PMIx_Notify_event from the host
 * then reaches no Open MPI client at all. Later OpenPMIx creates the entry there.
 *
 * This creates the entry the way the server would, before clients register. C, since
 * libpmix's internal headers (installed under pmix2/include/pmix/src) are C11 only.
 * Only where the caller runs PMIx's event base itself (pschedd): the list belongs to
 * PMIx's progress thread otherwise. */
#include <src/server/pmix_server_ops.h>

#include "pmix/default_events.h"

static void Construct(pmix_regevents_info_t* p) {
  PMIX_CONSTRUCT(&p->peers, pmix_list_t);
  p->code = PMIX_MAX_ERR_CONSTANT;
}

static void Destruct(pmix_regevents_info_t* p) {
  PMIX_LIST_DESTRUCT(&p->peers);
}

/* The server's own class for these entries is not exported: the same layout, our class. */
typedef pmix_regevents_info_t psched_default_events_t;
static PMIX_CLASS_INSTANCE(psched_default_events_t, pmix_list_item_t, Construct, Destruct);

int psched_pmix_ensure_default_events(void) {
  pmix_regevents_info_t* r;
  PMIX_LIST_FOREACH(r, &pmix_server_globals.events, pmix_regevents_info_t) {
    if (PMIX_MAX_ERR_CONSTANT == r->code) return 0;
  }
  r = (pmix_regevents_info_t*)PMIX_NEW(psched_default_events_t);
  if (NULL == r) return -1;
  pmix_list_append(&pmix_server_globals.events, &r->super);
  return 1;
}
