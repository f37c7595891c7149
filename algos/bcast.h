/*
 * Internals of the s-to-p broadcasting family (bcast.c, run_bcast.c):
 * one call's state and the runner.  Names are cm5s_bc_*; nothing here is
 * exported.
 */
#ifndef CM5S_BCAST_H
#define CM5S_BCAST_H

#include <stddef.h>

#include "plan_bcast.h"
#include "sched_internal.h"

typedef struct {
    int p, me, r, c;       /* partition, this node, the mesh */
    size_t esz;            /* bytes per element */
    size_t *count, *displ; /* elements of each node, where they go */
    char *rbuf;            /* receive buffer (own message in place) */
    cm5_sched_stats_t *st; /* never NULL; zeroed */
    char call[64];         /* "cm5_sched_allgatherv(br_lin)" */
} cm5s_bc_xfer_t;

/* Execute this node's messages of the plan: per iteration, post its
 * receives, send what it holds, and go on once the receives are in
 * (polling); no global synchronisation. */
void cm5s_bc_run(cm5s_bc_xfer_t *x, const cm5s_bc_plan_t *pl);

/* Stop the job: "cm5[node] error <x->call>: <message>". */
#define cm5s_bc_fatal(x, ...) cm5s_die((x)->call, __VA_ARGS__)

/* CMMD tags: CM5S_BC_TAG + call number (8 bits) << 12 + iteration. */
#define CM5S_BC_TAG (CM5S_TAG_BASE + 0x10000000)
#define CM5S_BC_MAX_ITERS 4096

#endif /* CM5S_BCAST_H */
