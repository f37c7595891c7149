/*
 * What every module needs of the node (am_ctx.c), below them all: who it
 * is, whether it runs, its fabric handle, its statistics; starting it on
 * first use.  am_init.c, at the top, starts and stops it.
 */
#ifndef CM5_AM_CTX_H
#define CM5_AM_CTX_H

#include <stdint.h>

#include "am_util.h"
#include "boot/boot.h"
#include "cm5/cm5.h"
#include "fabric/fab.h"

typedef struct {
    int ready;
    int failed;
    int finalized; /* shut down at exit: no restart */
    int rank;
    int size; /* the partition: nodes 0..size-1 */
    int nep;  /* endpoints: the nodes, then the host program if any */
    int host; /* the host program's endpoint (cm5run --host), or -1 */
    uint64_t key;
    cm5i_boot_t boot;
    cm5i_fab_t *fab;
    char provider[64];

    int exit_hooked; /* the exit-status handler is registered */
    int in_ctor;     /* starting from the library's constructor */

    int finalizing; /* in the exit barrier: handlers are served */
    /* The heartbeat's timeout in seconds while it watches this node's
     * predecessor (a dead node is named by its successor within it), else
     * 0: set by am_alive.c, read where a failure names no node. */
    double watch_s;
} cm5i_ctx_t;

extern cm5i_ctx_t cm5i_ctx;

/* A module's statistics, counted where the module counts them: its
 * setup registers them, and cm5_stats adds up every part. */
void cm5i_stats_part(const cm5_stats_t *part);

/* May this process send to node: a node of the partition, or the host. */
static inline int cm5i_node_ok(int node)
{
    return (node >= 0 && node < cm5i_ctx.size) ||
           (node >= 0 && node == cm5i_ctx.host);
}

/* Register the handler that learns the exit status (am_ctx.c), and read
 * it (0 until the program exits). */
void cm5i_exit_hook(void);
int cm5i_ctx_exit_status(void);

/* Initialize on first use when the launcher did not: run the starter
 * the top of the layers registered (am_init.c); a node that cannot start
 * dies. */
void cm5i_lazy_init(void);
void cm5i_ctx_starter(cm5_status_t (*fn)(void));
static inline void cm5i_ensure_init(void)
{
    if (CM5I_UNLIKELY(!cm5i_ctx.ready))
        cm5i_lazy_init();
}

#endif
