/*
 * What every module needs of the node, at the bottom of am/'s layers
 * (am_init.c, at the top, starts and stops it): who it is (rank, size,
 * host program, key, provider), whether it runs (ready, failed,
 * finalized), its fabric handle; starting it on first use; the status
 * the program exits with; the statistics.
 */
#include "am_ctx.h"

#include <stdlib.h>

#include "am_guard.h"
#include "am_util.h"
#include "fabric/fab.h"

cm5i_ctx_t cm5i_ctx;

static cm5_status_t (*ctx_starter)(void);

void cm5i_ctx_starter(cm5_status_t (*fn)(void))
{
    ctx_starter = fn;
}

void cm5i_lazy_init(void)
{
    if (ctx_starter && ctx_starter() == CM5_OK)
        return;
    /* Why was logged: one line, then stop like cm5_fatal. */
    cm5i_die("cm5fab: a node failed to start");
}

/* The status the program exits with, from an on_exit() handler: see
 * am_init.c's ctx_atexit for why it is registered by the first wait. */
static int ctx_exit_status;

static void ctx_on_exit(int status, void *arg)
{
    (void)arg;
    ctx_exit_status = status;
}

void cm5i_exit_hook(void)
{
    if (cm5i_ctx.exit_hooked || cm5i_ctx.in_ctor)
        return;
    cm5i_ctx.exit_hooked = 1;
    on_exit(ctx_on_exit, NULL);
}

int cm5i_ctx_exit_status(void)
{
    return ctx_exit_status;
}

int cm5_rank(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.rank;
}

int cm5_size(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.size;
}

const char *cm5_provider(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.provider;
}

const char *cm5_bootstrap(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.boot.method;
}

void cm5_stats(cm5_stats_t *out)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    cm5i_fab_counts_t c = {0};

    if (cm5i_ctx.fab)
        cm5i_fab_counts(cm5i_ctx.fab, &c);
    *out = cm5i_ctx.stats;
    out->shm_sent = c.ring_sent;
    out->shm_received = c.ring_received;
    out->fabric_sent = c.fab_sent;
    out->fabric_received = c.fab_received;
}

/* For cm5info: list providers without starting a node. */
int cm5_fabric_list(void (*cb)(void *, const char *, int,
                                          const char *),
                               void *arg)
{
    return cm5i_fab_list(cb, arg);
}

const char *cm5_fabric_version(void)
{
    return cm5i_fab_version();
}
