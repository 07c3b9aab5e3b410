/* See default_events.c: makes libpmix 4.2.2's server keep its clients' default event
 * handlers, so that PMIx_Notify_event reaches Open MPI 4.1's. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the entry was made, 0 when it was there, -1 when out of memory. Call on the
 * thread that runs PMIx's event base, before clients register (and again later: PMIx
 * may drop the entry once its last client is gone). */
int psched_pmix_ensure_default_events(void);

#ifdef __cplusplus
}
#endif
