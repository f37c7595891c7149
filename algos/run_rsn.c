/*
 * RS_N and RS_NH (wang1993 section 3.3; ALGORITHMS.md 1.3, 1.4): every
 * node gets the whole matrix with the concatenate method, computes the
 * same schedule from the shared seed (plan_rsn.c), and runs its phases
 * loosely synchronously: post the receive, send, wait for both.  The
 * planning is the paper's `comp' (stats sched_s); the concatenate is
 * counted apart (gather_s): wang1993 reports it in Table 3, and its RS_N
 * comp of 1.57 ms at d = 4 is less than the 6.6 ms concatenate alone.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_rsn.h"
#include "run_single.h"

static unsigned rsn_seq[2];

/* Start an asynchronous message, waiting for a free slot if needed. */
static CMMD_mcb rsn_async(const cm5s_xfer_t *x, int is_send, int node, int tag,
                          void *buf, int len)
{
    for (;;) {
        CMMD_mcb m = is_send
                         ? CMMD_send_async(node, tag, buf, len, NULL, NULL)
                         : CMMD_receive_async(node, tag, buf, len, NULL, NULL);

        if (m != CMMD_ERRVAL)
            return m;
        if (CMMD_get_errno() != CMMD_ERR_NO_RPORTS)
            cm5s_fatal(x, "CMMD_%s_async with node %d failed: %s",
                       is_send ? "send" : "receive", node,
                       CMMD_error_string(CMMD_get_errno()));
        CMAML_poll();
    }
}

/* The whole matrix, checked against what this node expects.  Its rows
 * travel as 32-bit counts, as on the CM-5 (wang1993 Table 3's
 * concatenate); a message's count fits: it is a CMMD length. */
static size_t *rsn_matrix(const cm5s_xfer_t *x)
{
    size_t p = (size_t)x->p, *com = malloc(p * p * sizeof(size_t));
    uint32_t *c32 = malloc((p * p + p) * sizeof(uint32_t)), *row;
    int j;

    if (!com || !c32)
        cm5s_fatal(x, "out of memory for the %dx%d matrix", x->p, x->p);
    row = c32 + p * p;
    for (j = 0; j < x->p; j++) { /* (single_len: it fits an int) */
        (void)single_len(x, x->scount[j], j, "to");
        row[j] = (uint32_t)x->scount[j];
    }
    CMMD_concat_with_nodes(row, c32, (int)(p * sizeof(uint32_t)));
    for (size_t i = 0; i < p * p; i++)
        com[i] = c32[i];
    free(c32);
    for (j = 0; j < x->p; j++)
        if (com[(size_t)j * p + (size_t)x->me] != x->rcount[j])
            cm5s_fatal(x,
                       "node %d sends node %d %zu elements, but recvcounts[%d] "
                       "there is %zu",
                       j, x->me, com[(size_t)j * p + (size_t)x->me], j,
                       x->rcount[j]);
    return com;
}

/* Phase q of the plan; soff/roff: elements already moved per pair. */
static void rsn_phase(cm5s_xfer_t *x, const cm5s_rsn_plan_t *pl, int q, int tag,
                      size_t *soff, size_t *roff)
{
    size_t base = (size_t)q * (size_t)x->p;
    int to = pl->psend[base + x->me], from = pl->precv[base + x->me];
    CMMD_mcb rm = 0, sm = 0; /* 0 is never an MCB */
    int lr = 0, ls = 0;

    if (from >= 0) {
        size_t n = pl->size[base + from];

        lr = single_len(x, n, from, "from");
        rm = rsn_async(x, 0, from, tag,
                       x->rbuf + (x->rdispl[from] + roff[from]) * x->esz, lr);
        roff[from] += n;
    }
    if (to >= 0) {
        size_t n = pl->size[base + x->me];

        ls = single_len(x, n, to, "to");
        sm = rsn_async(x, 1, to, tag,
                       (void *)(x->sbuf + (x->sdispl[to] + soff[to]) * x->esz),
                       ls);
        soff[to] += n;
        x->st->msgs_sent++;
        x->st->bytes_sent += (uint64_t)ls;
    }
    if (rm) {
        CMMD_msg_wait(rm);
        single_check(x, CMMD_mcb_bytes(rm), lr, from);
        CMMD_free_mcb(rm);
        x->st->msgs_recv++;
        x->st->bytes_recv += (uint64_t)lr;
    }
    if (sm) {
        CMMD_msg_wait(sm);
        CMMD_free_mcb(sm);
    }
}

static void rsn_run(cm5s_xfer_t *x, int heaps)
{
    cm5_sched_alg_t alg = heaps ? CM5_SCHED_RSNH : CM5_SCHED_RSN;
    unsigned seq = rsn_seq[heaps]++;
    double t0 = cm5_wtime();
    cm5s_rsn_plan_t pl;
    size_t *com, *off;
    cm5_status_t st;
    int q;

    com = rsn_matrix(x);
    x->st->gather_s += cm5_wtime() - t0;
    t0 = cm5_wtime();
    st = cm5s_plan_rsn(x->p, com, x->o, heaps, &pl);
    free(com);
    if (st != CM5_OK)
        cm5s_fatal(x, "planning the schedule failed: %s",
                   cm5_status_string(st));
    /* in virtual time the planning costs its steps, not its CPU time:
     * the same on every run (doc/model.md) */
    if (cm5_model())
        cm5_compute(cm5s_rsn_plan_cost(&pl));
    x->st->sched_s += cm5_wtime() - t0;

    off = calloc(2 * (size_t)x->p, sizeof(size_t));
    if (!off)
        cm5s_fatal(x, "out of memory for %d nodes", x->p);
    for (q = 0; q < pl.nphases; q++) {
        rsn_phase(x, &pl, q, single_tag(alg, seq, (unsigned)q), off,
                  off + x->p);
        if (x->o->rsn_phase_barrier)
            CMMD_sync_with_nodes();
    }
    x->st->phases = (uint32_t)pl.nphases;
    free(off);
    cm5s_rsn_plan_free(&pl);
}

void cm5s_run_rsn(cm5s_xfer_t *x) { rsn_run(x, 0); }

void cm5s_run_rsnh(cm5s_xfer_t *x) { rsn_run(x, 1); }
