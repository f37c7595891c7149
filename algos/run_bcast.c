/*
 * The runner of the s-to-p broadcasting plans (plan_bcast.c) on CMMD:
 * this node's messages iteration by iteration.  In iteration t it posts
 * its receives, gathers each combined message (the sources' messages
 * concatenated in increasing rank) and starts it with CMMD_send_async,
 * then polls until the receives of t are in and scatters them into
 * recvbuf.  It never waits for a send (they finish when their receivers
 * get to them) nor for any node it does not receive from, so there is no
 * global synchronisation between iterations.  Where each message's bytes
 * are (in recvbuf or staged) is cm5s_bc_layout's, shared with the MPI
 * port (bench/mpi_bcast_port.c).
 */
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "bcast.h"

/* The CMMD state of layout op j. */
typedef struct {
    CMMD_mcb mcb; /* 0: not started */
    int done;
} mstate_t;

typedef struct {
    cm5s_bc_xfer_t *x;
    const cm5s_bc_plan_t *pl;
    cm5s_bc_layout_t l; /* this node's messages, plan order */
    mstate_t *ms;       /* beside l.op */
    int tag0;
} run_t;

static unsigned bc_seq;

/* Start op j; 0 when CMMD has no asynchronous slot free. */
static int op_start(run_t *u, int j)
{
    const cm5s_bc_op_t *o = &u->l.op[j];
    const cm5s_bc_msg_t *m = o->m;
    mstate_t *s = &u->ms[j];
    int send = m->from == u->x->me, tag = u->tag0 + m->iter;

    if (send)
        cm5s_bc_stage(&u->l, o, 1);
    s->mcb = send
                 ? CMMD_send_async(m->to, tag, o->buf, o->len, NULL, NULL)
                 : CMMD_receive_async(m->from, tag, o->buf, o->len, NULL, NULL);
    if (s->mcb == CMMD_ERRVAL) {
        s->mcb = 0;
        if (CMMD_get_errno() != CMMD_ERR_NO_RPORTS)
            cm5s_bc_fatal(u->x, "CMMD_%s_async %s node %d failed: %s",
                          send ? "send" : "receive", send ? "to" : "from",
                          send ? m->to : m->from,
                          CMMD_error_string(CMMD_get_errno()));
        return 0;
    }
    return 1;
}

/* The stats index of a plan stage: a broadcast-only algorithm has its
 * broadcast in stage[0]. */
static int run_stage(const run_t *u, int stage)
{
    return u->pl->nstages == 1 ? 0 : stage;
}

/* Op j finished: check and count it, scatter a staged receive. */
static void op_finish(run_t *u, int j)
{
    cm5_sched_stats_t *st = u->x->st;
    const cm5s_bc_op_t *o = &u->l.op[j];
    const cm5s_bc_msg_t *m = o->m;
    mstate_t *s = &u->ms[j];

    if (m->to == u->x->me) {
        int got = CMMD_mcb_bytes(s->mcb);

        if (got != o->len)
            cm5s_bc_fatal(u->x,
                          "node %d got %d bytes from node %d in iteration "
                          "%d, expected %d (do the nodes agree on the "
                          "counts and the mesh?)",
                          u->x->me, got, m->from, m->iter, o->len);
        cm5s_bc_stage(&u->l, o, 0);
        st->msgs_recv++;
        st->bytes_recv += (uint64_t)o->len;
        st->stage[run_stage(u, m->stage)].msgs_recv++;
        if (m->len > st->stage[run_stage(u, m->stage)].max_msg_elems)
            st->stage[run_stage(u, m->stage)].max_msg_elems = m->len;
    } else {
        st->msgs_sent++;
        st->bytes_sent += (uint64_t)o->len;
    }
    CMMD_free_mcb(s->mcb);
    s->done = 1;
}

/* Retire what finished among op[lo, hi); how many are still open. */
static int run_reap(run_t *u, int lo, int hi, int *progress)
{
    int j, open = 0;

    for (j = lo; j < hi; j++) {
        mstate_t *s = &u->ms[j];

        if (s->done)
            continue;
        if (s->mcb && CMMD_msg_done(s->mcb)) {
            op_finish(u, j);
            *progress = 1;
        } else {
            open++;
        }
    }
    return open;
}

/* Iteration of op[lo..): its receives, its sends, then wait (polling)
 * for the receives; returns the first op of the next iteration. */
static int run_iter(run_t *u, int lo)
{
    int it = u->l.op[lo].m->iter, hi = lo, j, left, progress;

    while (hi < u->l.nop && u->l.op[hi].m->iter == it)
        hi++;
    for (;;) {
        progress = 0;
        for (j = lo, left = 0; j < hi; j++) {
            const cm5s_bc_msg_t *m = u->l.op[j].m;
            mstate_t *s = &u->ms[j];

            if (!s->mcb && !s->done && op_start(u, j))
                progress = 1;
            if (m->to == u->x->me && !s->done)
                left++;
            if (m->from == u->x->me && !s->mcb && !s->done)
                left++; /* a send still to start */
        }
        if (!left)
            return hi;
        left = run_reap(u, 0, hi, &progress);
        if (!progress)
            CMAML_poll();
    }
}

void cm5s_bc_run(cm5s_bc_xfer_t *x, const cm5s_bc_plan_t *pl)
{
    run_t u;
    int j = 0, progress, st;

    if (pl->niters > CM5S_BC_MAX_ITERS)
        cm5s_bc_fatal(x, "%d iterations, more than the %d the tags allow",
                      pl->niters, CM5S_BC_MAX_ITERS);
    memset(&u, 0, sizeof(u));
    u.x = x;
    u.pl = pl;
    u.tag0 = CM5S_BC_TAG + (int)((bc_seq++ & 0xffu) << 12);
    if (cm5s_bc_layout(&u.l, pl, x->me, x->rbuf, x->displ, x->esz) != CM5_OK ||
        !(u.ms = calloc((size_t)u.l.nop + 1, sizeof(*u.ms))))
        cm5s_bc_fatal(x, "out of memory for the %d messages of node %d",
                      pl->nmsg, x->me);
    while (j < u.l.nop)
        j = run_iter(&u, j);
    while (run_reap(&u, 0, u.l.nop, &progress) > 0)
        if (!progress)
            CMAML_poll();
    x->st->nstages = (uint32_t)pl->nstages;
    for (st = 0; st < CM5S_BC_NST; st++)
        if (pl->nstages > 1 || st == CM5S_BC_ST_BCAST)
            x->st->stage[run_stage(&u, st)].steps =
                (uint32_t)pl->stage_iters[st];
    cm5s_bc_layout_free(&u.l);
    free(u.ms);
}
