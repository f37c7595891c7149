/*
 * DRS_N (wang1993 4, Fig. 5) and DRS_N+ (ranka1995 5) on CMAML, the way
 * they ran on the CM-5 (ALGORITHMS.md 1.5, 1.6):
 *
 *   sender                          receiver (handlers)
 *   CMAML_request INQ(me, seq, len) -> lock FREE: allocate an rport at
 *                                      rdispl[src], lock BUSY(src),
 *   <- CMAML_reply GRANT(rport)        (DRS_N+: or one early go-ahead)
 *   <- CMAML_reply DENY(busy)          lock busy
 *   CMAML_scopy(rport) ...          -> rport handler: arrival counted,
 *                                      lock freed (drs_release=receiver)
 *   sent handler: RELEASE (drs_release=sender) -> lock freed once the
 *                                      data has landed as well
 *
 * With drs_data=cmmd the data go by CMMD messages instead: the receiver
 * posts a CMMD_receive_async for each piece it expects as the call
 * begins (wang1993's "pre-allocate receiving buffers"), grants a sender
 * only once its piece's receive is posted, and the sender moves the piece
 * by CMMD_send_block; the receive's completion handler counts it.
 *
 * One INQ at a time, one outgoing transfer at a time (the CM-5 processor
 * pushed an scopy itself).  The handlers run to completion, never wait,
 * and the reply handler only records the answer.  Every call carries a
 * sequence number in its AM words: an INQ of the next call reaching a
 * node that has not started it is answered NOTREADY (the sender tries
 * again later); anything from a call this node has finished is a count
 * mismatch and stops the job.  Messages longer than drs_chunk_max bytes
 * (1 GiB by default; rport counters and CMAML lengths are int) go as
 * several pieces, each with its own inquiry; the receiver places them in
 * order.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "plan_drs.h"
#include "sched_internal.h"

/* Retry after an INQ the peer was not ready for. */
#define DRS_NOTREADY_S 20e-6

enum { ANS_NONE = 0, ANS_GRANT, ANS_DENY, ANS_NOTREADY };
enum { INQ_LAST = 1 };

typedef struct {
    cm5s_xfer_t *x;
    uint32_t seq;
    int release_sender;
    /* receiver */
    cm5s_drs_lock_t lock;
    cm5s_drs_policy_t pol;
    size_t *got;    /* bytes granted so far, per source */
    size_t *landed; /* bytes landed so far, per source */
    int expected;   /* sources with something to send here */
    volatile int arrived;
    /* drs_data=cmmd: the tag, the bytes of receives posted per source,
     * and the next piece to post (source, bytes of it already posted) */
    int cmmd, tag;
    size_t *posted;
    int post_src;
    /* sender: the answer to the one INQ outstanding, the transfer */
    volatile int ans, ans_rport, ans_slot, ans_busy_us;
    volatile int sent;
    int dst, slot;
} drs_call_t;

/* The call in progress on this node (handlers find it here), the number
 * of calls started, and the measurements kept from call to call. */
static drs_call_t *volatile drs_cur;
static uint32_t drs_seq;
/* A copy: the caller's name of the call lives on its stack. */
static char drs_last_call[96] = "cm5_sched_alltoallv(drsn)";
static cm5s_drs_est_t drs_est;
static int drs_est_ready;

static void drs_answer(int seq, int code, int a, int b);
static void drs_landed(int rport, void *arg2);
static void slot_landed(drs_call_t *c, int s, int src);

/* Guard state shared with the handlers against an interrupt. */
static int drs_lock_irq(void) { return CMAML_disable_interrupts(); }

static void drs_unlock_irq(int was)
{
    if (was)
        CMAML_enable_interrupts();
}

/* ---- receiver: handlers ------------------------------------------------- */

/* Check an INQ against what this node expects; the INQ is from a node
 * taking part in call c. */
static void inq_check(drs_call_t *c, int src, int len, int flags)
{
    const cm5s_xfer_t *x = c->x;
    size_t want = x->rcount[src] * x->esz, have = c->got[src];

    if (len <= 0 || (size_t)len > want - have ||
        !!(flags & INQ_LAST) != (have + (size_t)len == want))
        cm5s_fatal(x,
                   "node %d sends node %d a piece of %d bytes at byte %zu "
                   "(%s) but node %d expects %zu elements (%zu bytes) from "
                   "it: send and receive counts do not match",
                   src, x->me, len, have,
                   flags & INQ_LAST ? "its last" : "more to come", x->me,
                   x->rcount[src], want);
}

static void inq_grant(drs_call_t *c, int src, int len, int s, int r)
{
    const cm5s_xfer_t *x = c->x;

    if (!c->cmmd) { /* (drs_data=cmmd: its receive is posted) */
        CMAML_set_rport_addr(r,
                             x->rbuf + x->rdispl[src] * x->esz + c->got[src]);
        CMAML_set_rport_byte_counter(r, len);
        CMAML_set_rport_total_nbytes(r, 0);
        CMAML_set_rport_handler(r, (CMAML_handler_t)drs_landed);
        CMAML_set_rport_handler_arg2(r, (void *)(intptr_t)s);
    }
    c->got[src] += (size_t)len;
    if ((uint32_t)c->lock.max_in > x->st->max_concurrent_in)
        x->st->max_concurrent_in = (uint32_t)c->lock.max_in;
}

/* INQ(src, seq, len, flags): the test-and-set. */
static void drs_inquiry(int src, int seq, int len, int flags)
{
    drs_call_t *c = drs_cur;
    int32_t ahead = (int32_t)((uint32_t)seq - (c ? c->seq : drs_seq));
    double busy = 0;
    int r, s;

    if (ahead > 0) {
        CMAML_reply(src, drs_answer, seq, ANS_NOTREADY, 0, 0);
        return;
    }
    if (!c || ahead < 0)
        cm5_fatal(drs_last_call,
                  "node %d asks node %d to take %d bytes in call #%u, which "
                  "node %d has finished: send and receive counts do not "
                  "match",
                  src, CMMD_self_address(), len, (unsigned)seq,
                  CMMD_self_address());
    if (src < 0 || src >= c->x->p || src == c->x->me)
        cm5s_fatal(c->x, "inquiry from node %d", src);
    inq_check(c, src, len, flags);
    /* drs_data=cmmd: no rport, but the piece's receive must be posted */
    if (c->cmmd)
        r = c->posted[src] >= c->got[src] + (size_t)len ? 0 : -1;
    else
        r = CMAML_allocate_rport();
    s = r < 0 ? -1
              : cm5s_drs_lock_inq(&c->lock, &c->pol, src, r, (double)len,
                                  cm5_wtime(), &busy);
    if (s < 0) {
        if (r < 0) /* out of rports, or not posted: ask again soon */
            busy = c->pol.tau_s;
        else if (!c->cmmd)
            CMAML_free_rport(r);
        busy *= 1e6;
        CMAML_reply(src, drs_answer, seq, ANS_DENY,
                    busy < 1e9 ? (int)busy : 1000000000, 0);
        return;
    }
    inq_grant(c, src, len, s, r);
    CMAML_reply(src, drs_answer, seq, ANS_GRANT, r, s);
}

/* rport handler: the bytes of slot s have landed. */
static void drs_landed(int rport, void *arg2)
{
    drs_call_t *c = drs_cur;
    int s = (int)(intptr_t)arg2, src;
    cm5s_drs_slot_t *sl;

    if (!c)
        cm5_fatal(drs_last_call, "data landed in rport %d outside a call",
                  rport);
    sl = &c->lock.slot[s];
    src = sl->src;
    if (src < 0 || sl->rport != rport)
        cm5s_fatal(c->x, "data landed in rport %d, not granted", rport);
    CMAML_free_rport(rport);
    slot_landed(c, s, src);
}

/* The piece of slot s, from src, is in place. */
static void slot_landed(drs_call_t *c, int s, int src)
{
    cm5s_drs_slot_t *sl = &c->lock.slot[s];

    cm5s_drs_est_transfer(&drs_est, sl->bytes, cm5_wtime() - sl->t_grant);
    c->landed[src] += (size_t)sl->bytes;
    c->x->st->msgs_recv++;
    c->x->st->bytes_recv += (uint64_t)sl->bytes;
    if (c->landed[src] == c->x->rcount[src] * c->x->esz)
        c->arrived++;
    cm5s_drs_lock_landed(&c->lock, s);
}

/* drs_data=cmmd: a posted receive from node arg completed (its sender
 * was granted: its slot is the one of src not landed yet). */
static void drs_received(CMMD_mcb *mcb, void *arg)
{
    drs_call_t *c = drs_cur;
    int src = (int)(intptr_t)arg, s;

    if (!c)
        cm5_fatal(drs_last_call, "a message from node %d landed outside a call",
                  src);
    for (s = 0; s < 2; s++)
        if (c->lock.slot[s].src == src && !c->lock.slot[s].landed)
            break;
    if (s == 2)
        cm5s_fatal(c->x, "a message from node %d landed, not granted", src);
    if ((size_t)CMMD_mcb_bytes(*mcb) != (size_t)c->lock.slot[s].bytes)
        cm5s_fatal(c->x,
                   "node %d sent %d bytes where node %d granted %.0f: send "
                   "and receive counts do not match",
                   src, CMMD_mcb_bytes(*mcb), c->x->me, c->lock.slot[s].bytes);
    CMMD_free_mcb(*mcb);
    slot_landed(c, s, src);
}

/* drs_data=cmmd: post the receives of the pieces still to post, in
 * source order, while CMMD has asynchronous slots. */
static void drs_post(drs_call_t *c)
{
    cm5s_xfer_t *x = c->x;

    while (c->post_src < x->p) {
        int src = c->post_src;
        size_t want = x->rcount[src] * x->esz, off = c->posted[src], len;
        CMMD_mcb m;

        if (off == want) {
            c->post_src++;
            continue;
        }
        len = cm5s_drs_chunk(want - off, x->o->drs_chunk_max);
        m = CMMD_receive_async(src, c->tag,
                               x->rbuf + x->rdispl[src] * x->esz + off,
                               (int)len, drs_received, (void *)(intptr_t)src);
        if (m == CMMD_ERRVAL) {
            if (CMMD_get_errno() != CMMD_ERR_NO_RPORTS)
                cm5s_fatal(x, "CMMD_receive_async from node %d failed: %s", src,
                           CMMD_error_string(CMMD_get_errno()));
            return; /* more once earlier ones complete */
        }
        c->posted[src] = off + len;
    }
}

/* RELEASE(src, seq, slot) with drs_release=sender. */
static void drs_release(int src, int seq, int slot, int unused)
{
    drs_call_t *c = drs_cur;

    (void)unused;
    if (!c || (uint32_t)seq != c->seq)
        return; /* the call is over here: its last data has landed */
    if (cm5s_drs_lock_release(&c->lock, slot, src) < 0)
        cm5s_fatal(c->x, "RELEASE from node %d for slot %d it does not hold",
                   src, slot);
}

/* ---- sender ------------------------------------------------------------- */

/* Reply handler: only records the answer. */
static void drs_answer(int seq, int code, int a, int b)
{
    drs_call_t *c = drs_cur;

    if (!c || (uint32_t)seq != c->seq || c->ans != ANS_NONE)
        cm5_fatal(drs_last_call,
                  "unexpected answer to an inquiry (call "
                  "#%u)",
                  (unsigned)seq);
    c->ans_rport = a;
    c->ans_slot = b;
    c->ans_busy_us = a;
    c->ans = code;
}

/* scopy sent handler: the buffer is free; RELEASE if the sender frees. */
static void drs_sent(void *arg)
{
    drs_call_t *c = arg;

    if (c->release_sender)
        CMAML_request(c->dst, drs_release, c->x->me, (int)c->seq, c->slot, 0);
    c->sent = 1;
}

/* INQ to j for len bytes; returns the answer. */
static int send_inquiry(drs_call_t *c, int j, size_t len, int last)
{
    double t = cm5_wtime();
    int was;

    c->ans = ANS_NONE;
    CMAML_request(j, drs_inquiry, c->x->me, (int)c->seq, (int)len,
                  last ? INQ_LAST : 0);
    c->x->st->inquiries++;
    while (c->ans == ANS_NONE)
        CMAML_poll();
    was = drs_lock_irq();
    cm5s_drs_est_rtt(&drs_est, cm5_wtime() - t);
    drs_unlock_irq(was);
    return c->ans;
}

static void send_piece(drs_call_t *c, int j, size_t off, size_t len)
{
    cm5s_xfer_t *x = c->x;

    c->sent = 0;
    c->dst = j;
    c->slot = c->ans_slot;
    if (c->cmmd) { /* the receive is posted: a blocking send */
        CMMD_send_block(j, c->tag,
                        (void *)(x->sbuf + (x->sdispl[j] * x->esz + off)),
                        (int)len);
        x->st->msgs_sent++;
        x->st->bytes_sent += len;
        drs_sent(c);
        return;
    }
    CMAML_scopy(j, c->ans_rport, 0, 0,
                (void *)(x->sbuf + (x->sdispl[j] * x->esz + off)), (int)len,
                (CMAML_handler_t)drs_sent, c);
    x->st->msgs_sent++;
    x->st->bytes_sent += len;
    while (!c->sent)
        CMAML_poll();
}

/* Delay before asking j again after an answer other than GRANT. */
static double retry_after(const drs_call_t *c, int ans, int plus)
{
    double d = c->x->o->drs_retry_delay_us * 1e-6, b;

    if (ans == ANS_NOTREADY)
        return d > DRS_NOTREADY_S ? d : DRS_NOTREADY_S;
    b = c->ans_busy_us * 1e-6;
    return plus && b > d ? b : d;
}

/* The sender loop of 1.5: random order, cyclic, one INQ at a time. */
static void drs_send_all(drs_call_t *c, int *order, int n, size_t *left,
                         double *not_before, int plus)
{
    cm5s_xfer_t *x = c->x;
    int pos = 0, last_i = -1;

    while (n > 0) {
        double now, wake;
        int i, j, ans;
        size_t len, total;

        if (c->cmmd)
            drs_post(c);
        now = cm5_wtime();
        i = cm5s_drs_next(order, n, pos, not_before, now, &wake);

        if (i < 0) { /* every destination is in its window: sleep */
            while (cm5_wtime() < wake)
                CMAML_poll();
            continue;
        }
        if (i <= last_i || x->st->phases == 0)
            x->st->phases++; /* one more sweep over the pending list */
        last_i = i;
        j = order[i];
        total = x->scount[j] * x->esz;
        len = cm5s_drs_chunk(left[j], x->o->drs_chunk_max);
        ans = send_inquiry(c, j, len, len == left[j]);
        if (ans != ANS_GRANT) {
            x->st->denials++;
            not_before[j] = cm5_wtime() + retry_after(c, ans, plus);
            pos = (i + 1) % n;
            continue;
        }
        send_piece(c, j, total - left[j], len);
        left[j] -= len;
        if (left[j] == 0) {
            memmove(order + i, order + i + 1,
                    sizeof(int) * (size_t)(n - i - 1));
            n--;
            pos = i < n ? i : 0;
            last_i = i - 1;
        } else {
            pos = (i + 1) % n;
        }
    }
}

/* ---- the call ----------------------------------------------------------- */

static void drs_setup(drs_call_t *c, cm5s_xfer_t *x, int plus)
{
    const cm5_sched_opts_t *o = x->o;
    double tau, mu;
    int was, i;

    if (o->drs_chunk_max < 1 || o->drs_chunk_max > CM5S_DRS_CHUNK_LIMIT)
        cm5s_fatal(x, "drs_chunk_max %zu is not in 1..%zu bytes",
                   o->drs_chunk_max, CM5S_DRS_CHUNK_LIMIT);
    memset(c, 0, sizeof(*c));
    c->x = x;
    c->seq = drs_seq + 1;
    c->release_sender = o->drs_release_sender;
    c->cmmd = o->drs_data_cmmd;
    c->tag = CM5S_TAG_BASE + ((int)CM5_SCHED_DRSN << 24) +
             (int)((c->seq & 0xfu) << 20);
    cm5s_drs_lock_init(&c->lock, o->drs_release_sender);
    was = drs_lock_irq();
    if (!drs_est_ready) {
        cm5s_drs_est_init(&drs_est);
        drs_est_ready = 1;
    }
    cm5s_drs_est_get(&drs_est, o->drs_mu_ns_per_byte, o->drs_tau_us, &tau, &mu);
    c->pol.theta_s = cm5s_drs_theta(&drs_est, o->drs_theta_us, tau);
    drs_unlock_irq(was);
    c->pol.tau_s = tau;
    c->pol.mu_s = mu;
    c->pol.early = plus && c->pol.theta_s > 0;
    for (i = 0; i < x->p; i++) {
        if (x->rcount[i] > SIZE_MAX / x->esz ||
            x->scount[i] > SIZE_MAX / x->esz)
            cm5s_fatal(x,
                       "%zu elements of %zu bytes to or from node %d "
                       "overflow",
                       x->rcount[i] > x->scount[i] ? x->rcount[i]
                                                   : x->scount[i],
                       x->esz, i);
        c->expected += x->rcount[i] > 0;
    }
}

static void drs_run(cm5s_xfer_t *x, int plus)
{
    drs_call_t c;
    cm5s_rng_t rng;
    double t0 = cm5_wtime(), *not_before;
    size_t *mem, *left;
    int *order, n = 0, i, was;

    drs_setup(&c, x, plus);
    mem = calloc((size_t)x->p * 4, sizeof(size_t));
    not_before = calloc((size_t)x->p, sizeof(double));
    order = malloc(sizeof(int) * (size_t)x->p);
    if (!mem || !not_before || !order)
        cm5s_fatal(x, "out of memory for %d nodes", x->p);
    c.got = mem;
    c.landed = mem + x->p;
    left = mem + 2 * x->p;
    c.posted = mem + 3 * x->p;
    for (i = 0; i < x->p; i++) {
        left[i] = x->scount[i] * x->esz;
        if (left[i])
            order[n++] = i;
    }
    cm5s_rng_seed(&rng, x->o->seed, (uint64_t)c.seq << 32 | (uint32_t)x->me);
    cm5s_rng_shuffle(&rng, order, n);
    x->st->sched_s += cm5_wtime() - t0;

    if (c.cmmd) /* before any grant: a grant needs its receive posted */
        drs_post(&c);
    was = drs_lock_irq(); /* the handlers see the call from here on */
    snprintf(drs_last_call, sizeof(drs_last_call), "%s", x->call);
    drs_seq = c.seq;
    drs_cur = &c;
    drs_unlock_irq(was);

    drs_send_all(&c, order, n, left, not_before, plus);
    while (c.arrived < c.expected) {
        CMAML_poll();
        if (c.cmmd)
            drs_post(&c);
    }

    was = drs_lock_irq();
    drs_cur = NULL;
    drs_unlock_irq(was);
    if ((uint32_t)c.lock.max_in > x->st->max_concurrent_in)
        x->st->max_concurrent_in = (uint32_t)c.lock.max_in;
    free(order);
    free(not_before);
    free(mem);
}

void cm5s_run_drsn(cm5s_xfer_t *x) { drs_run(x, 0); }

void cm5s_run_drsn_plus(cm5s_xfer_t *x) { drs_run(x, 1); }
