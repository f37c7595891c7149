/*
 * Bootstrap: who am I, how many are we, and an allgather to exchange
 * endpoint addresses.  Local jobs use cm5run's socket; a program started
 * alone is a 1-node partition.
 */
#ifndef CM5_BOOT_H
#define CM5_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"

typedef struct {
    int rank;
    int size;            /* endpoints: the nodes, and the host if any */
    int host;            /* the host program's endpoint (the last), or -1 */
    uint64_t key;        /* the job's key: cm5run's, the PMIx namespace's,
                            or a lone node's random one */
    int fd;              /* cm5run socket, or -1 */
    int doorbell_fd;     /* cm5run shared doorbell memory, or -1 */
    int local;           /* every node on this host */
    unsigned char *near; /* per endpoint: the launcher says it shares this
                            host (NULL: the launcher does not say) */
    const char *method;  /* "cm5run", "pmix" or "single" */
} cm5i_boot_t;

cm5_status_t cm5i_boot_init(cm5i_boot_t *boot);
/* Every node contributes len bytes; all receives size * len bytes, in
 * node order.  Every node must pass the same len. */
cm5_status_t cm5i_boot_allgather(cm5i_boot_t *boot, const void *mine,
                                 size_t len, void *all);
void cm5i_boot_fini(cm5i_boot_t *boot);
/* The job is failing: let the launcher take every node down now. */
void cm5i_boot_abort(cm5i_boot_t *boot, int status, const char *msg);

/* PMIx (boot_pmix.c, when built with PMIx). */
int cm5i_boot_pmix_present(void);
cm5_status_t cm5i_boot_pmix_init(cm5i_boot_t *boot);
cm5_status_t cm5i_boot_pmix_allgather(cm5i_boot_t *boot, const void *mine,
                                      size_t len, void *all);
void cm5i_boot_pmix_abort(int status, const char *msg);
void cm5i_boot_pmix_fini(void);

#endif
