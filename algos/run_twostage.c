/*
 * The two-stage bounded-traffic algorithm (ranka1995 section 6;
 * ALGORITHMS.md 2.3) and liu2002's A2 (3.2) on CMMD.
 *
 * Every element goes source -> intermediate -> destination.  t comes from
 * a global max (CMMD_reduce); each source splits its row (Stg1lpp, or
 * Bader's bins for A2) and packs one message per intermediate; the sizes
 * go to the receivers with Generate_Recv (active messages); stage 1 runs
 * as an exchange of its own (modified LP: XOR steps with a barrier after
 * each, or DRS_N with twostage_engine=drsn; A2: the A1 shift order), the
 * messages landing in the slotted buffer of Stg2pp (slot stride = the
 * largest header + ceil(t/p) elements); each intermediate then packs one
 * message per destination, the sizes go out again, stage 2 runs, and the
 * destination places every chunk at rdispl[src] + its offset.  The chunk
 * of a node for itself (source = intermediate, intermediate =
 * destination) never leaves the node.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "plan_twostage.h"

/* One call's buffers and counts (bytes unless named *_el). */
typedef struct {
    cm5s_xfer_t *x;
    int a2, bader, sparse;
    cm5_sched_alg_t engine;
    cm5_sched_opts_t so; /* options of the stage exchanges */
    size_t t;
    cm5s_split_t sp;
    size_t *m1, *d1, *r1, *rd1; /* stage 1: send sizes/displs, recv */
    size_t *m2, *d2, *r2, *rd2; /* stage 2 */
    size_t *len1, *off1, *fwd, *tot, *col_len, *col_off;
    const char **pay, **msg;
    char *sb1, *rb1, *sb2, *rb2;
    size_t slot;         /* Stg2pp slot stride */
    double g0, gathered; /* gathering inside the planning (gather_s) */
} ts_t;

/* The global max and the Generate_Recv of each stage gather counts: their
 * time goes to gather_s, the rest of the planning to sched_s. */
static void ts_gather_begin(ts_t *ts) { ts->g0 = cm5_wtime(); }

static void ts_gather_end(ts_t *ts)
{
    double d = cm5_wtime() - ts->g0;

    ts->x->st->gather_s += d;
    ts->gathered += d;
}

/* The planning since t0, minus what it gathered. */
static void ts_sched_add(ts_t *ts, double t0)
{
    ts->x->st->sched_s += cm5_wtime() - t0 - ts->gathered;
    ts->gathered = 0;
}

static void *ts_alloc(ts_t *ts, size_t n, size_t size)
{
    void *v;

    if (n && size > SIZE_MAX / n)
        cm5s_fatal(ts->x, "a buffer of %zu x %zu bytes is too large", n, size);
    v = calloc(n ? n : 1, size);
    if (!v)
        cm5s_fatal(ts->x, "out of memory for %zu bytes", n * size);
    return v;
}

/* Packed displacements; the total. */
static size_t ts_displ(int p, const size_t *n, size_t *d)
{
    size_t s = 0;
    int i;

    for (i = 0; i < p; i++) {
        d[i] = s;
        s += n[i];
    }
    return s;
}

/* Run one stage's exchange (bytes: esz 1) with the engine and fold its
 * statistics into the call's. */
static void ts_exchange(ts_t *ts, int stage, const char *sb, size_t *sc,
                        const size_t *sd, char *rb, const size_t *rc,
                        const size_t *rd)
{
    cm5s_xfer_t *x = ts->x, sx;
    cm5_sched_stats_t sst;
    size_t self = sc[x->me];
    char call[96];

    memset(&sx, 0, sizeof(sx));
    memset(&sst, 0, sizeof(sst));
    snprintf(call, sizeof(call), "%s stage %d", x->call, stage);
    sx.p = x->p;
    sx.me = x->me;
    sx.o = &ts->so;
    sx.esz = 1;
    sx.sbuf = sb;
    sx.scount = sc;
    sx.sdispl = sd;
    sx.rbuf = rb;
    sx.rcount = rc;
    sx.rdispl = rd;
    sx.st = &sst;
    sx.call = call;
    sx.lp_scopy = !ts->a2 && !ts->so.twostage_data_cmmd;
    sc[x->me] = 0; /* the self part stays here */
    if (ts->engine == CM5_SCHED_DRSN)
        cm5s_run_drsn(&sx);
    else
        cm5s_run_lp(&sx);
    sc[x->me] = self;
    x->st->phases += sst.phases;
    x->st->msgs_sent += sst.msgs_sent;
    x->st->bytes_sent += sst.bytes_sent;
    x->st->msgs_recv += sst.msgs_recv;
    x->st->bytes_recv += sst.bytes_recv;
    x->st->inquiries += sst.inquiries;
    x->st->denials += sst.denials;
    if (sst.max_concurrent_in > x->st->max_concurrent_in)
        x->st->max_concurrent_in = sst.max_concurrent_in;
    x->st->sched_s += sst.sched_s;
    x->st->gather_s += sst.gather_s;
    x->st->stage[stage - 1].steps = sst.phases;
    x->st->stage[stage - 1].msgs_recv = (uint32_t)sst.msgs_recv;
}

/* A message length as a CMMD length, or stop. */
static void ts_fits(ts_t *ts, size_t bytes, const char *what, int node)
{
    if (bytes > (size_t)INT_MAX)
        cm5s_fatal(ts->x,
                   "the %s message for node %d would be %zu bytes, longer "
                   "than a CMMD message (%d bytes)",
                   what, node, bytes, INT_MAX);
}

/* t, the header format and the stage-1 split and sizes. */
static void ts_plan1(ts_t *ts)
{
    cm5s_xfer_t *x = ts->x;
    int p = x->p, me = x->me, k;
    size_t r = 0, c = 0, bound, hmax;
    cm5s_rng_t rng;

    for (k = 0; k < p; k++) {
        r += x->scount[k];
        c += x->rcount[k];
    }
    ts_gather_begin(ts);
    ts->t = CMMD_reduce_luint(r > c ? r : c, CMMD_combiner_umax);
    ts_gather_end(ts);
    bound = (ts->t + (size_t)p - 1) / (size_t)p; /* ceil(t/p) */
    if (x->o->hdr_format == CM5_SCHED_HDR_AUTO)
        ts->sparse = 2 * bound < (size_t)p;
    else
        ts->sparse = x->o->hdr_format == CM5_SCHED_HDR_SPARSE;
    if (cm5s_split_init(&ts->sp, p) != 0)
        cm5s_fatal(x, "out of memory for the %dx%d stage-1 split", p, p);
    if (ts->bader) {
        cm5s_stg1_bader(&ts->sp, me, x->scount);
        bound += (size_t)p; /* sum_j ceil(a_ij / p) <= t/p + p */
    } else {
        cm5s_rng_seed(&rng, x->o->seed, 0x5747310000ULL + (uint64_t)me);
        cm5s_stg1lpp(&ts->sp, me, x->scount, x->o->stg1_rotate,
                     x->o->stg1_shuffle ? &rng : NULL);
    }
    for (k = 0; k < p; k++) {
        size_t n = ts->sp.total[k];

        ts->m1[k] =
            n ? cm5s_hdr_bytes(p, ts->sparse, &ts->sp.part[(size_t)k * p]) +
                    n * x->esz
              : 0;
        ts_fits(ts, ts->m1[k], "stage-1", k);
    }
    hmax = cm5s_hdr_max(p, ts->sparse, bound);
    if (bound > (SIZE_MAX / 2 - hmax) / x->esz / (size_t)p)
        cm5s_fatal(x, "the stage-1 buffer for t = %zu is too large", ts->t);
    ts->slot = (hmax + bound * x->esz + 7) & ~(size_t)7;
}

/* Stage 1: pack, tell the intermediates the sizes, exchange. */
static void ts_stage1(ts_t *ts)
{
    cm5s_xfer_t *x = ts->x;
    int p = x->p, me = x->me, k;
    size_t n;
    double t0 = cm5_wtime();

    ts_plan1(ts);
    if (ts->t == 0) { /* nothing to move anywhere: every node agrees */
        ts_sched_add(ts, t0);
        return;
    }
    /* Generate_Recv: every intermediate learns what it receives. */
    ts->m1[me] = 0;
    ts_gather_begin(ts);
    cm5s_recv_am(p, me, ts->m1, ts->r1);
    ts_gather_end(ts);
    for (k = 0; k < p; k++) {
        if (ts->r1[k] > ts->slot)
            cm5s_fatal(x,
                       "node %d sends a stage-1 message of %zu bytes, more "
                       "than the slot of %zu (t = %zu)",
                       k, ts->r1[k], ts->slot, ts->t);
        ts->rd1[k] = (size_t)k * ts->slot;
    }
    n = ts->sp.total[me];
    ts->m1[me] =
        n ? cm5s_hdr_bytes(p, ts->sparse, &ts->sp.part[(size_t)me * p]) +
                n * x->esz
          : 0;
    ts_sched_add(ts, t0);

    n = ts_displ(p, ts->m1, ts->d1);
    ts->sb1 = ts_alloc(ts, n, 1);
    t0 = cm5_wtime();
    for (k = 0; k < p; k++)
        if (ts->m1[k] &&
            cm5s_pack1(ts->sb1 + ts->d1[k], ts->sparse, x->esz, &ts->sp, k,
                       x->sbuf, x->sdispl) != ts->m1[k])
            cm5s_fatal(x,
                       "the stage-1 header for node %d does not fit 32-bit "
                       "words",
                       k);
    x->st->copy_s += cm5_wtime() - t0;
    ts->rb1 = ts_alloc(ts, (size_t)p, ts->slot);
    ts_exchange(ts, 1, ts->sb1, ts->m1, ts->d1, ts->rb1, ts->r1, ts->rd1);
}

static void ts_note_buf(uint64_t *hw, uint64_t elems)
{
    if (elems > *hw)
        *hw = elems;
}

/* liu2002 Table 4 (sBUF, rBUF), in payload elements: stage 1 sent the
 * row (this node's share for itself included) and received the slots'
 * payload; stage 2 sends what this intermediate holds (tot[]) and
 * receives every element for this node but the part it forwards to
 * itself, which stays in sb2. */
static void ts_buffers(ts_t *ts)
{
    cm5s_xfer_t *x = ts->x;
    uint64_t s1 = 0, r1 = 0, s2 = 0, r2 = 0;
    int k, i, p = x->p;

    for (k = 0; k < p; k++) {
        s1 += ts->sp.total[k];
        s2 += ts->tot[k];
        r2 += x->rcount[k];
        for (i = 0; i < p; i++)
            r1 += k != x->me ? ts->len1[(size_t)k * p + i] : 0;
    }
    r2 -= ts->tot[x->me];
    ts_note_buf(&x->st->sbuf_elems, s1);
    ts_note_buf(&x->st->sbuf_elems, s2);
    ts_note_buf(&x->st->rbuf_elems, r1);
    ts_note_buf(&x->st->rbuf_elems, r2);
}

/* Stg2pp: read the slots, plan and size the stage-2 messages. */
static void ts_plan2(ts_t *ts)
{
    cm5s_xfer_t *x = ts->x;
    int p = x->p, me = x->me, i, j;
    uint64_t maxlen = 0;

    for (i = 0; i < p; i++) {
        const char *m = i == me ? ts->sb1 + ts->d1[me] : ts->rb1 + ts->rd1[i];
        size_t ml = i == me ? ts->m1[me] : ts->r1[i], h;

        if (ml == 0) {
            memset(&ts->len1[(size_t)i * p], 0, sizeof(size_t) * p);
            ts->pay[i] = m;
            continue;
        }
        h = cm5s_hdr_read(m, ml, p, ts->sparse, x->esz,
                          &ts->len1[(size_t)i * p], &ts->off1[(size_t)i * p]);
        if (h == 0)
            cm5s_fatal(x,
                       "the stage-1 message of %zu bytes from node %d has a "
                       "malformed header",
                       ml, i);
        ts->pay[i] = m + h;
        if (i != me && (ml - h) / x->esz > maxlen)
            maxlen = (ml - h) / x->esz;
    }
    x->st->stage[0].max_msg_elems = maxlen;
    cm5s_stg2pp(p, ts->len1, ts->fwd, ts->tot);
    ts_buffers(ts);
    for (j = 0; j < p; j++) {
        size_t h;

        for (i = 0; i < p; i++)
            ts->col_len[i] = ts->len1[(size_t)i * p + j];
        h = cm5s_hdr_bytes(p, ts->sparse, ts->col_len);
        ts->m2[j] = ts->tot[j] ? h + ts->tot[j] * x->esz : 0;
        ts_fits(ts, ts->m2[j], "stage-2", j);
    }
}

/* Stage 2: pack, sizes, exchange, place. */
static void ts_stage2(ts_t *ts)
{
    cm5s_xfer_t *x = ts->x;
    int p = x->p, me = x->me, k;
    size_t n, self, maxlen;
    double t0 = cm5_wtime();
    char err[256];

    ts_plan2(ts);
    self = ts->m2[me];
    ts->m2[me] = 0;
    ts_gather_begin(ts);
    cm5s_recv_am(p, me, ts->m2, ts->r2);
    ts_gather_end(ts);
    ts->m2[me] = self;
    ts_sched_add(ts, t0);

    n = ts_displ(p, ts->m2, ts->d2);
    ts->sb2 = ts_alloc(ts, n, 1);
    t0 = cm5_wtime();
    for (k = 0; k < p; k++)
        if (ts->m2[k] && cm5s_pack2(ts->sb2 + ts->d2[k], p, ts->sparse, x->esz,
                                    k, ts->len1, ts->off1, ts->fwd, ts->pay,
                                    ts->col_len, ts->col_off) != ts->m2[k])
            cm5s_fatal(x,
                       "the stage-2 header for node %d does not fit 32-bit "
                       "words",
                       k);
    x->st->copy_s += cm5_wtime() - t0;
    ts->r2[me] = 0;
    n = ts_displ(p, ts->r2, ts->rd2);
    ts->rb2 = ts_alloc(ts, n, 1);
    ts_exchange(ts, 2, ts->sb2, ts->m2, ts->d2, ts->rb2, ts->r2, ts->rd2);

    for (k = 0; k < p; k++)
        ts->msg[k] = k == me ? ts->sb2 + ts->d2[me] : ts->rb2 + ts->rd2[k];
    ts->r2[me] = ts->m2[me];
    t0 = cm5_wtime();
    if (cm5s_unpack2(p, ts->sparse, x->esz, ts->msg, ts->r2, x->rbuf, x->rcount,
                     x->rdispl, me, &maxlen, err, sizeof(err)) != 0)
        cm5s_fatal(x, "node %d: %s", me, err);
    x->st->copy_s += cm5_wtime() - t0;
    x->st->stage[1].max_msg_elems = maxlen;
}

static void ts_run(cm5s_xfer_t *x, int a2)
{
    ts_t ts;
    size_t *v;
    int p = x->p;

    memset(&ts, 0, sizeof(ts));
    ts.x = x;
    ts.so = *x->o;
    ts.so.elem_size = 1;
    ts.so.recv = CM5_SCHED_RECV_GIVEN;
    ts.a2 = a2;
    if (a2) { /* liu2002: two all-to-alls in the A1 shift order */
        ts.bader = x->o->a2_bader;
        ts.engine = CM5_SCHED_LP;
        ts.so.lp_shift = 1;
        ts.so.lp_barrier = 0;
    } else { /* ranka1995: modified LP (barrier per step) or DRS_N */
        ts.engine = x->o->twostage_engine == CM5_SCHED_DRSN ? CM5_SCHED_DRSN
                                                            : CM5_SCHED_LP;
        ts.so.lp_barrier = 1;
    }
    x->st->nstages = 2;
    v = ts_alloc(&ts, 11 * (size_t)p + 3 * (size_t)p * p, sizeof(size_t));
    ts.pay = ts_alloc(&ts, 2 * (size_t)p, sizeof(char *));
    ts.msg = ts.pay + p;
    ts.m1 = v;
    ts.d1 = v + p;
    ts.r1 = v + 2 * p;
    ts.rd1 = v + 3 * p;
    ts.m2 = v + 4 * p;
    ts.d2 = v + 5 * p;
    ts.r2 = v + 6 * p;
    ts.rd2 = v + 7 * p;
    ts.tot = v + 8 * p;
    ts.col_len = v + 9 * p;
    ts.col_off = v + 10 * p;
    ts.len1 = v + 11 * p;
    ts.off1 = ts.len1 + (size_t)p * p;
    ts.fwd = ts.off1 + (size_t)p * p;

    /* (before the global max: no READY of LP by scopy comes sooner) */
    if (!a2 && ts.engine == CM5_SCHED_LP && !ts.so.twostage_data_cmmd)
        cm5s_lp_scopy_prepare(p);
    ts_stage1(&ts);
    if (ts.t > 0)
        ts_stage2(&ts);
    cm5s_split_fini(&ts.sp);
    free(ts.sb1);
    free(ts.rb1);
    free(ts.sb2);
    free(ts.rb2);
    free(ts.pay);
    free(v);
}

void cm5s_run_two_stage(cm5s_xfer_t *x) { ts_run(x, 0); }

void cm5s_run_a2(cm5s_xfer_t *x) { ts_run(x, 1); }
