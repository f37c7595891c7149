/*
 * The runner of the s-to-p broadcasting plans (plan_bcast.c) on CMMD:
 * this node's messages iteration by iteration.  In iteration t it posts
 * its receives, gathers each combined message (the sources' messages
 * concatenated in increasing rank) and starts it with CMMD_send_async,
 * then polls until the receives of t are in and scatters them into
 * recvbuf.  It never waits for a send (they finish when their receivers
 * get to them) nor for any node it does not receive from, so there is no
 * global synchronisation between iterations.  A combined message whose
 * sources lie back to back in recvbuf goes straight from or into it;
 * the others through one staging arena.
 */
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "bcast.h"

typedef struct {
    const cm5s_bc_msg_t *m;
    char *buf;    /* the bytes (staged or in recvbuf) */
    int staged;   /* buf is in the arena */
    int len;      /* bytes */
    CMMD_mcb mcb; /* 0: not started */
    int done;
} op_t;

typedef struct {
    cm5s_bc_xfer_t *x;
    const cm5s_bc_plan_t *pl;
    op_t *op;      /* this node's messages, plan order */
    int nop;
    int tag0;
    char *arena;
} run_t;

static unsigned bc_seq;

/* Where source k's elements are in recvbuf. */
static char *src_at(const run_t *u, int k)
{
    return u->x->rbuf + u->x->displ[u->pl->src[k]] * u->x->esz;
}

/* Can the message go straight from/into recvbuf?  Its sources back to
 * back, and (receiving) not this node's own message coming back, whose
 * bytes a send of ours may be reading. */
static int op_direct(const run_t *u, const cm5s_bc_msg_t *m, int recv)
{
    const int *set = u->pl->set + m->first;
    int i;

    for (i = 0; i < m->nsrc; i++) {
        if (recv && u->pl->src[set[i]] == u->x->me)
            return 0;
        if (i && src_at(u, set[i - 1]) +
                         u->pl->len[set[i - 1]] * u->x->esz !=
                     src_at(u, set[i]))
            return 0;
    }
    return 1;
}

/* Collect this node's messages and place their bytes. */
static void run_setup(run_t *u)
{
    const cm5s_bc_plan_t *pl = u->pl;
    size_t need = 0, at = 0;
    int j, n = 0;

    u->op = calloc((size_t)pl->nmsg + 1, sizeof(op_t));
    if (!u->op)
        cm5s_bc_fatal(u->x, "out of memory for %d messages", pl->nmsg);
    for (j = 0; j < pl->nmsg; j++) {
        const cm5s_bc_msg_t *m = &pl->msg[j];
        op_t *o = &u->op[n];

        if (m->from != u->x->me && m->to != u->x->me)
            continue;
        o->m = m;
        o->len = (int)(m->len * u->x->esz); /* checked by the call */
        o->staged = !op_direct(u, m, m->to == u->x->me);
        if (o->staged)
            need += (size_t)o->len;
        else
            o->buf = src_at(u, pl->set[m->first]);
        n++;
    }
    u->nop = n;
    u->arena = need ? malloc(need) : NULL;
    if (need && !u->arena)
        cm5s_bc_fatal(u->x, "out of memory for %zu staging bytes", need);
    for (j = 0; j < n; j++)
        if (u->op[j].staged) {
            u->op[j].buf = u->arena + at;
            at += (size_t)u->op[j].len;
        }
}

/* Copy between the staged combined message and recvbuf; a receive skips
 * this node's own message. */
static void op_copy(run_t *u, op_t *o, int gather)
{
    const int *set = u->pl->set + o->m->first;
    char *b = o->buf;
    int i;

    for (i = 0; i < o->m->nsrc; i++) {
        size_t n = u->pl->len[set[i]] * u->x->esz;

        if (gather)
            memcpy(b, src_at(u, set[i]), n);
        else if (u->pl->src[set[i]] != u->x->me)
            memcpy(src_at(u, set[i]), b, n);
        b += n;
    }
}

/* Start o; 0 when CMMD has no asynchronous slot free. */
static int op_start(run_t *u, op_t *o)
{
    const cm5s_bc_msg_t *m = o->m;
    int send = m->from == u->x->me, tag = u->tag0 + m->iter;

    if (send && o->staged)
        op_copy(u, o, 1);
    o->mcb = send ? CMMD_send_async(m->to, tag, o->buf, o->len, NULL, NULL)
                  : CMMD_receive_async(m->from, tag, o->buf, o->len, NULL,
                                       NULL);
    if (o->mcb == CMMD_ERRVAL) {
        o->mcb = 0;
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

/* o finished: check and count it, scatter a staged receive. */
static void op_finish(run_t *u, op_t *o)
{
    cm5_sched_stats_t *st = u->x->st;
    const cm5s_bc_msg_t *m = o->m;

    if (m->to == u->x->me) {
        int got = CMMD_mcb_bytes(o->mcb);

        if (got != o->len)
            cm5s_bc_fatal(u->x,
                          "node %d got %d bytes from node %d in iteration "
                          "%d, expected %d (do the nodes agree on the "
                          "counts and the mesh?)",
                          u->x->me, got, m->from, m->iter, o->len);
        if (o->staged)
            op_copy(u, o, 0);
        st->msgs_recv++;
        st->bytes_recv += (uint64_t)o->len;
        st->stage[run_stage(u, m->stage)].msgs_recv++;
        if (m->len > st->stage[run_stage(u, m->stage)].max_msg_elems)
            st->stage[run_stage(u, m->stage)].max_msg_elems = m->len;
    } else {
        st->msgs_sent++;
        st->bytes_sent += (uint64_t)o->len;
    }
    CMMD_free_mcb(o->mcb);
    o->done = 1;
}

/* Retire what finished among op[lo, hi); how many are still open. */
static int run_reap(run_t *u, int lo, int hi, int *progress)
{
    int j, open = 0;

    for (j = lo; j < hi; j++) {
        op_t *o = &u->op[j];

        if (o->done)
            continue;
        if (o->mcb && CMMD_msg_done(o->mcb)) {
            op_finish(u, o);
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
    int it = u->op[lo].m->iter, hi = lo, j, left, progress;

    while (hi < u->nop && u->op[hi].m->iter == it)
        hi++;
    for (;;) {
        progress = 0;
        for (j = lo, left = 0; j < hi; j++) {
            op_t *o = &u->op[j];

            if (!o->mcb && !o->done && op_start(u, o))
                progress = 1;
            if (o->m->to == u->x->me && !o->done)
                left++;
            if (o->m->from == u->x->me && !o->mcb && !o->done)
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
    run_setup(&u);
    while (j < u.nop)
        j = run_iter(&u, j);
    while (run_reap(&u, 0, u.nop, &progress) > 0)
        if (!progress)
            CMAML_poll();
    x->st->nstages = (uint32_t)pl->nstages;
    for (st = 0; st < CM5S_BC_NST; st++)
        if (pl->nstages > 1 || st == CM5S_BC_ST_BCAST)
            x->st->stage[run_stage(&u, st)].steps =
                (uint32_t)pl->stage_iters[st];
    free(u.arena);
    free(u.op);
}
