/*
 * What every module needs of the node, at the bottom of am/'s layers
 * (am_init.c, at the top, starts and stops it): who it is (rank, size,
 * host program, key, provider), whether it runs (ready, failed,
 * finalized), its fabric handle; starting it on first use; the status
 * the program exits with; the statistics.
 */
#include "am_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "am_guard.h"
#include "am_util.h"
#include "fabric/fab.h"

cm5i_ctx_t cm5i_ctx;

static cm5_status_t (*ctx_starter)(void);

void cm5i_ctx_starter(cm5_status_t (*fn)(void)) { ctx_starter = fn; }

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

int cm5i_ctx_exit_status(void) { return ctx_exit_status; }

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

/* The modules' counts: each counts in a cm5_stats_t of its own, and
 * each field is counted by the modules that do what it counts (a maximum
 * by one module only), so the sum of the parts is the node's. */
#define CTX_STATS_PARTS 16
static const cm5_stats_t *ctx_parts[CTX_STATS_PARTS];
static int ctx_nparts;

void cm5i_stats_part(const cm5_stats_t *part)
{
    for (int i = 0; i < ctx_nparts; i++)
        if (ctx_parts[i] == part)
            return;
    if (ctx_nparts == CTX_STATS_PARTS)
        cm5_fatal("cm5fab", "more than %d modules count statistics",
                  CTX_STATS_PARTS);
    ctx_parts[ctx_nparts++] = part;
}

void cm5_stats(cm5_stats_t *out)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    cm5i_fab_counts_t c = {0};
    uint64_t *o = (uint64_t *)out;

    _Static_assert(sizeof(cm5_stats_t) % sizeof(uint64_t) == 0,
                   "cm5_stats_t holds 64-bit counters only");
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < ctx_nparts; i++) {
        const uint64_t *p = (const uint64_t *)ctx_parts[i];

        for (size_t k = 0; k < sizeof(*out) / sizeof(uint64_t); k++)
            o[k] += p[k];
    }
    if (cm5i_ctx.fab)
        cm5i_fab_counts(cm5i_ctx.fab, &c);
    out->shm_sent = c.ring_sent;
    out->shm_received = c.ring_received;
    out->fabric_sent = c.fab_sent;
    out->fabric_received = c.fab_received;
}

/* For cm5info: list providers without starting a node. */
int cm5_fabric_list(void (*cb)(void *, const char *, int, const char *),
                    void *arg)
{
    return cm5i_fab_list(cb, arg);
}

const char *cm5_fabric_version(void) { return cm5i_fab_version(); }
