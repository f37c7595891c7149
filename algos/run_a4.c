/*
 * liu2002 A4 (four-stage, any P) and A3 (2-D mesh two-stage, square P)
 * on CMMD messages (ALGORITHMS.md 3.3, 3.4).
 *
 * A message is one bucket: the payload of its segments, then the segment
 * descriptors (src, dst, off, len), then their number (a trailer, so a
 * bucket grows without moving its payload).  Every scheduled message is
 * sent, empty or not, so a receiver knows exactly whom it hears from in
 * each step; lengths are learnt from the probe (CMMD_msg_pending and
 * CMMD_bytes_received), the CM-5 way of receiving a message of unknown
 * length.  The final receiver places each segment at rdispl[src] + off.
 *
 * a4_unordered (3.4.8, 003's self-describing records): descriptors are
 * (dst, len) only, one per run of elements for one destination, and the
 * final receiver appends what arrives after its own records.
 *
 * Distribution is done in two passes: the segments of a bucket are
 * listed first (pieces: descriptor and where the data is), and the
 * payload is copied when the bucket is filled; unordered, the pieces are
 * gathered by destination then, so a bucket carries one descriptor per
 * destination.
 *
 * A3 is A4's last two stages run on the input: C-Collect (row) and
 * R-Collect (column) on the sqrt(P) x sqrt(P) grid.
 *
 * Modes (3.4.7): b, a combined send-receive per step (stalls are idle
 * steps, a barrier starts each stage), every bucket filled before the
 * stage; n1, every send of a stage started in schedule order while
 * receives are taken as they come, one set of send buckets, each filled
 * just before its send, i.e. while the send before it is in flight (the
 * pieces point into the previous stage's arrivals, so arrivals alternate
 * between two sets of receive buffers); n2, two sets of send buckets,
 * each arriving message distributed (copied) into the next stage's set at
 * once (unordered, only consecutive pieces for one destination share a
 * descriptor there).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "liu.h"
#include "plan_a4.h"

typedef struct {
    uint32_t src, dst;
    uint64_t off, len;
} seg_t;

/* The descriptor of a4_unordered: no placement. */
typedef struct {
    uint64_t dst, len;
} useg_t;

/* A segment listed in a bucket, its data not copied yet. */
typedef struct {
    seg_t s;
    const char *data;
    size_t order; /* position in the list (a stable sort) */
} piece_t;

typedef struct {
    char *p;
    size_t len, cap;
} gbuf_t;

typedef struct {
    gbuf_t pay, segs, pend; /* payload, seg_t descriptors, piece_t list */
    uint64_t nseg, elems;
} bucket_t;

enum { OP_RDIST, OP_CDIST, OP_CCOLLECT, OP_RCOLLECT, OP_PLACE };

typedef struct {
    cm5s_xfer_t *x;
    cm5s_a4_layout_t L;
    int me, col, N;    /* N: nodes in this node's column */
    int mode, barrier; /* cm5_sched_a4_mode_t; barrier at stage start */
    int nb;            /* buckets per set: max(C, R) */
    int unordered;     /* a4_unordered: (dst, len) descriptors */
    int lazy;          /* appends list pieces (else they copy at once) */
    size_t dsz;        /* bytes of a descriptor on the wire */
    bucket_t *set[2];
    gbuf_t *in[2];       /* received messages of a stage, one per step (n1
                            alternates sets; the others use in[0]) */
    int cur;             /* the set of in[] this stage receives into */
    cm5s_a4_op_t *ops;   /* n1/n2: a stage's fills and sends */
    uint64_t rpos, rend; /* unordered: next free element of rbuf, end */
    CMMD_mcb *rmcb;      /* receives in flight, one per step */
    int *rstate;         /* 0 expected, 1 posted, 2 done, -1 none */
    CMMD_mcb *smcb[2];   /* sends in flight of the last two stages */
    int nsmcb[2];
    cm5s_a4_step_t *steps;
    uint64_t *ctr, *got, *cnt;
    uint64_t rsum; /* payload elements this stage brought in */
    int tag0;
} a4_t;

/* ---- buffers ------------------------------------------------------------ */

static void gb_reserve(a4_t *a, gbuf_t *g, size_t more)
{
    size_t need = g->len + more, cap = g->cap ? g->cap : 256;
    char *p;

    if (need <= g->cap)
        return;
    while (cap < need)
        cap *= 2;
    p = realloc(g->p, cap);
    if (!p)
        cm5s_fatal(a->x, "out of memory for a message of %zu bytes", need);
    g->p = p;
    g->cap = cap;
}

static void gb_put(a4_t *a, gbuf_t *g, const void *src, size_t n)
{
    gb_reserve(a, g, n);
    if (n)
        memcpy(g->p + g->len, src, n);
    g->len += n;
}

static void bk_reset(bucket_t *b)
{
    b->pay.len = b->segs.len = b->pend.len = 0;
    b->nseg = b->elems = 0;
}

/* Copy a segment into the bucket; unordered, a segment for the same
 * destination as the last one extends it. */
static void bk_copy(a4_t *a, bucket_t *b, const seg_t *s, const char *data)
{
    seg_t *last =
        b->nseg ? (seg_t *)(void *)(b->segs.p + b->segs.len) - 1 : NULL;

    if (a->unordered && last && last->dst == s->dst) {
        last->len += s->len;
    } else {
        gb_put(a, &b->segs, s, sizeof(*s));
        b->nseg++;
    }
    gb_put(a, &b->pay, data, s->len * a->x->esz);
    b->elems += s->len;
}

static void bk_append(a4_t *a, bucket_t *b, const seg_t *s, const char *data)
{
    piece_t pc;

    if (!a->lazy) {
        bk_copy(a, b, s, data);
        return;
    }
    pc.s = *s;
    pc.data = data;
    pc.order = b->pend.len / sizeof(pc);
    gb_put(a, &b->pend, &pc, sizeof(pc));
}

static int piece_cmp(const void *x, const void *y)
{
    const piece_t *p = x, *q = y;

    if (p->s.dst != q->s.dst)
        return p->s.dst < q->s.dst ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Copy the listed pieces (unordered: gathered by destination). */
static void bk_fill(a4_t *a, bucket_t *b)
{
    piece_t *pc = (piece_t *)(void *)b->pend.p;
    size_t n = b->pend.len / sizeof(*pc), i, elems = 0;

    if (!n)
        return;
    if (a->unordered)
        qsort(pc, n, sizeof(*pc), piece_cmp);
    for (i = 0; i < n; i++)
        elems += pc[i].s.len;
    gb_reserve(a, &b->pay, elems * a->x->esz);
    for (i = 0; i < n; i++)
        bk_copy(a, b, &pc[i].s, pc[i].data);
    b->pend.len = 0;
}

/* The bucket as one message: payload, descriptors, their number. */
static void bk_finish(a4_t *a, bucket_t *b)
{
    const seg_t *s = (const seg_t *)(const void *)b->segs.p;
    useg_t u;
    uint64_t i;

    if (!a->unordered)
        gb_put(a, &b->pay, b->segs.p, b->segs.len);
    for (i = 0; a->unordered && i < b->nseg; i++) {
        u.dst = s[i].dst;
        u.len = s[i].len;
        gb_put(a, &b->pay, &u, sizeof(u));
    }
    gb_put(a, &b->pay, &b->nseg, sizeof(b->nseg));
    if (b->pay.len > INT_MAX)
        cm5s_fatal(a->x, "a message of %zu bytes exceeds CMMD's int length",
                   b->pay.len);
}

/* Fill and finish a bucket, the time counted as schedule time. */
static void bk_ready(a4_t *a, bucket_t *b)
{
    double t0 = cm5_wtime();

    bk_fill(a, b);
    bk_finish(a, b);
    a->x->st->sched_s += cm5_wtime() - t0;
}

/* ---- distribution ------------------------------------------------------- */

static int op_nbuckets(const a4_t *a, int op)
{
    return op == OP_CDIST || op == OP_RCOLLECT ? a->N : a->L.C;
}

/* Split seg (payload data) by the counts in a->cnt into the buckets. */
static void split(a4_t *a, bucket_t *bk, int nb, const seg_t *s,
                  const char *data)
{
    seg_t sub = *s;
    int b;

    for (b = 0; b < nb; b++) {
        if (!a->cnt[b])
            continue;
        sub.len = a->cnt[b];
        bk_append(a, &bk[b], &sub, data + (sub.off - s->off) * a->x->esz);
        sub.off += sub.len;
    }
}

/* Unordered: the records go after those already there. */
static void place_next(a4_t *a, const seg_t *s, const char *data)
{
    cm5s_xfer_t *x = a->x;

    if (s->len > a->rend - a->rpos)
        cm5s_fatal(x,
                   "node %d got more than the %llu elements its recvcounts "
                   "add up to (a4_unordered=1)",
                   a->me, (unsigned long long)(a->rend - x->rfirst));
    memcpy(x->rbuf + a->rpos * x->esz, data, s->len * x->esz);
    a->rpos += s->len;
}

static void place(a4_t *a, const seg_t *s, const char *data)
{
    cm5s_xfer_t *x = a->x;

    if ((int)s->dst != a->me)
        cm5s_fatal(x, "node %d got %llu elements for node %u at the end", a->me,
                   (unsigned long long)s->len, s->dst);
    if (a->unordered) {
        place_next(a, s, data);
        return;
    }
    if (s->off + s->len > x->rcount[s->src])
        cm5s_fatal(x,
                   "node %u sends node %d elements %llu..%llu, but "
                   "recvcounts[%u] is %zu",
                   s->src, a->me, (unsigned long long)s->off,
                   (unsigned long long)(s->off + s->len - 1), s->src,
                   x->rcount[s->src]);
    memcpy(x->rbuf + (x->rdispl[s->src] + s->off) * x->esz, data,
           s->len * x->esz);
    a->got[s->src] += s->len;
}

static void dist_seg(a4_t *a, int op, bucket_t *bk, const seg_t *s,
                     const char *data)
{
    int rot = a->x->o->a4_rotate_counters, b;

    switch (op) {
    case OP_RDIST:
        cm5s_a4_rdist(&a->L, cm5s_a4_counter_start(a->me, s->dst, a->L.C, rot),
                      s->len, a->cnt);
        split(a, bk, a->L.C, s, data);
        return;
    case OP_CDIST:
        cm5s_a4_cdist(a->N, a->ctr[s->dst], s->len, a->cnt);
        a->ctr[s->dst] += s->len;
        split(a, bk, a->N, s, data);
        return;
    case OP_CCOLLECT:
        bk_append(a, &bk[cm5s_a4_ccollect_bucket(&a->L, (int)s->dst)], s, data);
        return;
    case OP_RCOLLECT:
        if ((int)s->dst % a->L.C != a->col)
            cm5s_fatal(a->x,
                       "node %d (column %d) holds data for node %u at "
                       "the last stage",
                       a->me, a->col, s->dst);
        b = cm5s_a4_rcollect_bucket(&a->L, (int)s->dst);
        bk_append(a, &bk[b], s, data);
        return;
    default:
        place(a, s, data);
    }
}

/* Descriptor i of a message whose descriptors start at d. */
static void desc_get(const a4_t *a, const char *d, size_t i, seg_t *s)
{
    useg_t u;

    if (!a->unordered) {
        memcpy(s, d + i * sizeof(*s), sizeof(*s));
        return;
    }
    memcpy(&u, d + i * sizeof(u), sizeof(u));
    s->src = 0; /* unknown, and not needed */
    s->dst = u.dst < UINT32_MAX ? (uint32_t)u.dst : UINT32_MAX;
    s->off = 0;
    s->len = u.len;
}

/* Distribute one received message (checked) by op into bk. */
static void dist_msg(a4_t *a, int op, bucket_t *bk, const gbuf_t *m, int from)
{
    size_t esz = a->x->esz, pay, i;
    uint64_t nseg, elems = 0;
    const char *d = m->p;
    seg_t s;

    if (m->len < sizeof(nseg))
        cm5s_fatal(a->x, "message of %zu bytes from node %d is malformed",
                   m->len, from);
    memcpy(&nseg, m->p + m->len - sizeof(nseg), sizeof(nseg));
    if (nseg > (m->len - sizeof(nseg)) / a->dsz)
        cm5s_fatal(a->x, "message from node %d claims %llu segments", from,
                   (unsigned long long)nseg);
    pay = m->len - sizeof(nseg) - nseg * a->dsz;
    for (i = 0; i < nseg; i++) {
        desc_get(a, m->p + pay, i, &s);
        elems += s.len;
        if (s.src >= (uint32_t)a->L.P || s.dst >= (uint32_t)a->L.P ||
            s.len > pay / esz || elems * esz > pay)
            cm5s_fatal(a->x,
                       "message from node %d has a bad segment "
                       "(%u -> %u, %llu elements)",
                       from, s.src, s.dst, (unsigned long long)s.len);
        dist_seg(a, op, bk, &s, d);
        d += s.len * esz;
    }
    if (elems * esz != pay)
        cm5s_fatal(a->x,
                   "message from node %d carries %zu payload bytes "
                   "for %llu elements",
                   from, pay, (unsigned long long)elems);
}

/* n2: an arrival distributed at once (counted as schedule time). */
static void dist_now(a4_t *a, int op, bucket_t *bk, const gbuf_t *m, int from)
{
    double t0 = cm5_wtime();

    dist_msg(a, op, bk, m, from);
    a->x->st->sched_s += cm5_wtime() - t0;
}

static void dist_input(a4_t *a, int op, bucket_t *bk)
{
    cm5s_xfer_t *x = a->x;
    seg_t s;
    int j;

    for (j = 0; j < x->p; j++) {
        if (!x->scount[j])
            continue;
        s.src = (uint32_t)a->me;
        s.dst = (uint32_t)j;
        s.off = 0;
        s.len = x->scount[j];
        dist_seg(a, op, bk, &s, x->sbuf + x->sdispl[j] * x->esz);
    }
}

static void set_reset(a4_t *a, bucket_t *bk)
{
    int b;

    for (b = 0; b < a->nb; b++)
        bk_reset(&bk[b]);
}

/* Fill and finish the first n buckets of a set. */
static void set_ready(a4_t *a, bucket_t *bk, int n)
{
    int b;

    for (b = 0; b < n; b++)
        bk_ready(a, &bk[b]);
}

/* ---- communication ------------------------------------------------------ */

static void note_recv(a4_t *a, int stage, const gbuf_t *m, int from)
{
    cm5_sched_stats_t *st = a->x->st;
    uint64_t nseg, elems;

    memcpy(&nseg, m->p + m->len - sizeof(nseg), sizeof(nseg));
    /* Payload elements: what is left without descriptors and count. */
    elems = (m->len - sizeof(nseg) - nseg * a->dsz) / a->x->esz;
    st->stage[stage].msgs_recv++;
    a->rsum += elems;
    if (elems > st->stage[stage].max_msg_elems)
        st->stage[stage].max_msg_elems = elems;
    if (from != a->me) {
        st->msgs_recv++;
        st->bytes_recv += m->len;
    }
}

static void note_send(a4_t *a, size_t len)
{
    a->x->st->msgs_sent++;
    a->x->st->bytes_sent += len;
}

/* The self copy: the bucket's message becomes the step's arrival. */
static void self_move(bucket_t *b, gbuf_t *in)
{
    gbuf_t t = *in;

    *in = b->pay;
    b->pay = t;
    b->pay.len = 0;
}

/* Wait for node from's message with tag and receive it into m. */
static void recv_probed(a4_t *a, int from, int tag, gbuf_t *m)
{
    int n;

    while (!CMMD_msg_pending(from, tag))
        CMAML_poll(); /* runs handlers, and yields once it keeps failing */
    n = CMMD_bytes_received();
    m->len = 0;
    gb_reserve(a, m, (size_t)n);
    CMMD_receive_block(from, tag, m->p, n);
    m->len = (size_t)n;
}

static CMMD_mcb send_start(a4_t *a, int to, int tag, gbuf_t *m)
{
    CMMD_mcb mcb;

    while ((mcb = CMMD_send_async(to, tag, m->p, (int)m->len, NULL, NULL)) ==
           CMMD_ERRVAL)
        CMMD_poll(); /* too many in flight: let some finish */
    note_send(a, m->len);
    return mcb;
}

/* Mode b: one combined send-receive per step. */
static void step_blocking(a4_t *a, int stage, int i, bucket_t *bk, int row)
{
    cm5s_a4_step_t s = a->steps[i];
    int tag = a->tag0 + stage;
    bucket_t *b =
        s.send < 0 ? NULL : &bk[cm5s_a4_send_bucket(&a->L, row, s.send)];
    gbuf_t *in = &a->in[a->cur][i];
    CMMD_mcb mcb = 0; /* 0 is never an MCB */

    if (s.send == a->me) {
        self_move(b, in);
        note_recv(a, stage, in, a->me);
        return;
    }
    if (b)
        mcb = send_start(a, s.send, tag, &b->pay);
    if (s.recv >= 0) {
        recv_probed(a, s.recv, tag, in);
        note_recv(a, stage, in, s.recv);
    }
    if (mcb) {
        CMMD_msg_wait(mcb);
        CMMD_free_mcb(mcb);
    }
}

/* Modes n1/n2: take what has arrived; with next, distribute it at once.
 * Returns the number of receives still outstanding. */
static int recv_poll(a4_t *a, int stage, int n, int op, bucket_t *next)
{
    int i, left = 0, tag = a->tag0 + stage, from, len;
    gbuf_t *in = a->in[a->cur];

    for (i = 0; i < n; i++) {
        from = a->steps[i].recv;
        if (a->rstate[i] == 0 && CMMD_msg_pending(from, tag)) {
            len = CMMD_bytes_received();
            in[i].len = 0;
            gb_reserve(a, &in[i], (size_t)len);
            a->rmcb[i] =
                CMMD_receive_async(from, tag, in[i].p, len, NULL, NULL);
            if (a->rmcb[i] != CMMD_ERRVAL) {
                in[i].len = (size_t)len;
                a->rstate[i] = 1;
            }
        }
        if (a->rstate[i] == 1 && CMMD_msg_done(a->rmcb[i])) {
            CMMD_free_mcb(a->rmcb[i]);
            a->rstate[i] = 2;
            note_recv(a, stage, &in[i], from);
            if (next)
                dist_now(a, op, next, &in[i], from);
        }
        left += a->rstate[i] == 0 || a->rstate[i] == 1;
    }
    return left;
}

static void sends_wait(a4_t *a, int k)
{
    int i;

    for (i = 0; i < a->nsmcb[k]; i++) {
        CMMD_msg_wait(a->smcb[k][i]);
        CMMD_free_mcb(a->smcb[k][i]);
    }
    a->nsmcb[k] = 0;
}

/* liu2002 Table 4: the stage's send set (every bucket now filled) and
 * what it received, against the high-water marks. */
static void note_buffers(a4_t *a, const bucket_t *bk)
{
    cm5_sched_stats_t *st = a->x->st;
    uint64_t sent = 0;
    int b;

    for (b = 0; b < a->nb; b++)
        sent += bk[b].elems;
    if (sent > st->sbuf_elems)
        st->sbuf_elems = sent;
    if (a->rsum > st->rbuf_elems)
        st->rbuf_elems = a->rsum;
}

/* The actions of a stage: n1 fills each bucket just before its send
 * (3.4.7); n2's buckets are ready, so only the sends. */
static int stage_ops(a4_t *a, int n)
{
    int i, m = 0;

    if (a->mode == CM5_SCHED_A4_NONBLOCKING)
        return cm5s_a4_n1_order(a->steps, n, a->ops);
    for (i = 0; i < n; i++)
        if (a->steps[i].send >= 0)
            a->ops[m++] = (cm5s_a4_op_t){0, i};
    return m;
}

static void stage_nonblocking(a4_t *a, int stage, int n, bucket_t *bk, int row,
                              int op, bucket_t *next)
{
    int i, k, to, m = stage_ops(a, n), sk = stage % 2;
    const cm5s_a4_step_t *s = a->steps;
    gbuf_t *in = a->in[a->cur];
    bucket_t *b;

    for (i = 0; i < n; i++)
        a->rstate[i] = s[i].recv < 0 || s[i].recv == a->me ? -1 : 0;
    for (k = 0; k < m; k++) {
        i = a->ops[k].step;
        to = s[i].send;
        b = &bk[cm5s_a4_send_bucket(&a->L, row, to)];
        if (a->ops[k].fill) {
            bk_ready(a, b);
        } else if (to == a->me) {
            self_move(b, &in[i]);
            note_recv(a, stage, &in[i], to);
            if (next)
                dist_now(a, op, next, &in[i], to);
        } else {
            a->smcb[sk][a->nsmcb[sk]++] =
                send_start(a, to, a->tag0 + stage, &b->pay);
        }
        recv_poll(a, stage, n, op, next);
    }
    while (recv_poll(a, stage, n, op, next))
        CMAML_poll(); /* the probes alone never give the CPU away */
}

/* List what arrived in this stage by op into the pieces of bk (or, at the
 * end, place it). */
static void dist_arrivals(a4_t *a, int n, int op, bucket_t *bk)
{
    double t0 = cm5_wtime();
    int i;

    set_reset(a, bk);
    a->lazy = 1;
    for (i = 0; i < n; i++)
        if (a->steps[i].recv >= 0)
            dist_msg(a, op, bk, &a->in[a->cur][i], a->steps[i].recv);
    a->x->st->sched_s += cm5_wtime() - t0;
}

/* One stage: its schedule, the exchange, and the distribution of what
 * arrived by op into the next stage's buckets: n2 copies each arrival
 * at once; b lists them all and fills every bucket; n1 lists them, and
 * the next stage fills each bucket just before its send. */
static void stage_run(a4_t *a, int stage, int row, int op)
{
    int n, i, last = op == OP_PLACE;
    bucket_t *bk = a->set[a->mode == CM5_SCHED_A4_DUAL ? stage % 2 : 0];
    bucket_t *next;

    n = row ? cm5s_a4_row_sched(&a->L, a->me, a->steps)
            : cm5s_a4_col_sched(&a->L, a->me, a->steps);
    a->x->st->stage[stage].steps = (uint32_t)n;
    a->x->st->phases += (uint32_t)n;
    a->cur = a->mode == CM5_SCHED_A4_NONBLOCKING ? stage % 2 : 0;
    a->rsum = 0;
    switch (a->mode) {
    case CM5_SCHED_A4_DUAL:
        next = a->set[(stage + 1) % 2];
        sends_wait(a, (stage + 1) % 2); /* next's previous sends */
        set_reset(a, next);
        a->lazy = 0;
        stage_nonblocking(a, stage, n, bk, row, op, next);
        note_buffers(a, bk);
        if (!last)
            set_ready(a, next, op_nbuckets(a, op));
        return;
    case CM5_SCHED_A4_NONBLOCKING:
        stage_nonblocking(a, stage, n, bk, row, op, NULL);
        sends_wait(a, stage % 2);
        note_buffers(a, bk);
        dist_arrivals(a, n, op, bk);
        return;
    default:
        if (a->barrier)
            CMMD_sync_with_nodes();
        for (i = 0; i < n; i++)
            step_blocking(a, stage, i, bk, row);
        note_buffers(a, bk);
        dist_arrivals(a, n, op, bk);
        if (!last)
            set_ready(a, bk, op_nbuckets(a, op));
    }
}

/* ---- set-up ------------------------------------------------------------- */

static void a4_init(a4_t *a, cm5s_xfer_t *x, int alg)
{
    static unsigned seq[2];
    int b;

    memset(a, 0, sizeof(*a));
    a->x = x;
    a->me = x->me;
    cm5s_a4_layout(x->p, &a->L);
    a->col = x->me % a->L.C;
    a->N = cm5s_a4_colsize(&a->L, a->col);
    a->mode = alg == 4 ? (int)x->o->a4_mode : CM5_SCHED_A4_BLOCKING;
    if (a->mode < CM5_SCHED_A4_BLOCKING || a->mode > CM5_SCHED_A4_DUAL)
        cm5s_fatal(x, "a4_mode %d is not b, n1 or n2", a->mode);
    a->barrier = alg == 4;
    a->unordered = alg == 4 && x->o->a4_unordered;
    a->dsz = a->unordered ? sizeof(useg_t) : sizeof(seg_t);
    a->tag0 = cm5s_liu_tag(alg, seq[alg == 4]++, 0);
    a->nb = a->L.C > a->L.R ? a->L.C : a->L.R;
    a->set[0] = calloc((size_t)a->nb * 2, sizeof(bucket_t));
    a->in[0] = calloc(((size_t)a->nb + 2) * 2, sizeof(gbuf_t));
    a->rmcb = calloc((size_t)a->nb + 2, sizeof(CMMD_mcb));
    a->rstate = calloc((size_t)a->nb + 2, sizeof(int));
    a->smcb[0] = calloc((size_t)(a->nb + 2) * 2, sizeof(CMMD_mcb));
    a->steps = calloc((size_t)a->nb + 2, sizeof(cm5s_a4_step_t));
    a->ops = calloc(((size_t)a->nb + 2) * 2, sizeof(cm5s_a4_op_t));
    a->ctr = calloc((size_t)x->p * 2 + (size_t)a->nb, sizeof(uint64_t));
    if (!a->set[0] || !a->in[0] || !a->rmcb || !a->rstate || !a->smcb[0] ||
        !a->steps || !a->ops || !a->ctr)
        cm5s_fatal(x, "out of memory for the schedule of %d nodes", x->p);
    a->set[1] = a->set[0] + a->nb;
    a->in[1] = a->in[0] + a->nb + 2;
    a->smcb[1] = a->smcb[0] + a->nb + 2;
    a->rpos = a->rend = x->rfirst;
    for (b = 0; b < x->p; b++)
        a->rend += x->rcount[b];
    a->got = a->ctr + x->p;
    a->cnt = a->got + x->p;
    for (b = 0; b < x->p; b++)
        a->ctr[b] =
            cm5s_a4_counter_start(a->me, b, a->N, x->o->a4_rotate_counters);
}

static void a4_fini(a4_t *a)
{
    int b;

    sends_wait(a, 0);
    sends_wait(a, 1);
    for (b = 0; b < 2 * a->nb; b++) {
        free(a->set[0][b].pay.p);
        free(a->set[0][b].segs.p);
        free(a->set[0][b].pend.p);
    }
    for (b = 0; b < 2 * (a->nb + 2); b++)
        free(a->in[0][b].p);
    free(a->set[0]);
    free(a->in[0]);
    free(a->rmcb);
    free(a->rstate);
    free(a->smcb[0]);
    free(a->steps);
    free(a->ops);
    free(a->ctr);
}

/* Every element from every source arrived. */
static void a4_check(a4_t *a)
{
    int j;

    if (a->unordered && a->rpos != a->rend)
        cm5s_fatal(a->x,
                   "node %d got %llu elements from the other nodes, but its "
                   "recvcounts add up to %llu (a4_unordered=1)",
                   a->me, (unsigned long long)(a->rpos - a->x->rfirst),
                   (unsigned long long)(a->rend - a->x->rfirst));
    for (j = 0; !a->unordered && j < a->x->p; j++)
        if (a->got[j] != a->x->rcount[j])
            cm5s_fatal(a->x,
                       "node %d got %llu elements from node %d, but "
                       "recvcounts[%d] is %zu",
                       a->me, (unsigned long long)a->got[j], j, j,
                       a->x->rcount[j]);
}

/* Stages as (row?, distribution applied to what arrives). */
static void a4_stages(a4_t *a, int nst, const int *row, const int *op)
{
    double t0 = cm5_wtime();
    int s;

    a->lazy = 1;
    dist_input(a, op[0], a->set[0]);
    a->x->st->sched_s += cm5_wtime() - t0;
    if (a->mode != CM5_SCHED_A4_NONBLOCKING) /* n1 fills on the way */
        set_ready(a, a->set[0], op_nbuckets(a, op[0]));
    a->x->st->nstages = (uint32_t)nst;
    for (s = 0; s < nst; s++)
        stage_run(a, s, row[s], op[s + 1]);
    a4_check(a);
}

void cm5s_run_a4(cm5s_xfer_t *x)
{
    static const int row[4] = {1, 0, 1, 0};
    static const int op[5] = {OP_RDIST, OP_CDIST, OP_CCOLLECT, OP_RCOLLECT,
                              OP_PLACE};
    a4_t a;

    a4_init(&a, x, 4);
    a4_stages(&a, 4, row, op);
    a4_fini(&a);
}

void cm5s_run_a3(cm5s_xfer_t *x)
{
    static const int row[2] = {1, 0};
    static const int op[3] = {OP_CCOLLECT, OP_RCOLLECT, OP_PLACE};
    int q = cm5s_isqrt_floor(x->p);
    a4_t a;

    if (q * q != x->p)
        cm5s_fatal(x, "a3 needs a perfect-square number of nodes, not %d",
                   x->p);
    a4_init(&a, x, 3);
    a4_stages(&a, 2, row, op);
    a4_fini(&a);
}
