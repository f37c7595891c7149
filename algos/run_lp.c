/*
 * LP, linear permutation (wang1993 Fig. 3, ranka1995 Fig. 3;
 * ALGORITHMS.md 1.2, 2.1): in step k node i exchanges with i XOR k,
 * k = 1 .. 2^ceil(log2 p) - 1, skipping partners >= p ([AMB-2]); or, with
 * lp_shift, sends to (i + k) mod p and receives from (i - k) mod p,
 * k = 1 .. p - 1.  Only nonzero messages move ([AMB-1]: the partner's
 * entries); lp_barrier adds ranka1995's barrier after every step.
 *
 * With lp_barrier and lp_scopy (the two-stage algorithm's stages,
 * twostage_data=scopy: ranka1995 ran both its algorithms on active
 * messages) a step's data go by CMAML_scopy instead of CMMD messages:
 *
 *   receiver: rport <- its buffer and length; CMAML_request READY(me,
 *             call, rport) to the node that sends to it
 *   sender:   waits for that node's READY of this call, CMAML_scopy into
 *             its rport, waits until its buffer is free
 *   receiver: waits for the rport's handler; the barrier ends the step
 *
 * A READY may come before its call begins at this node (the sender's
 * previous steps are done): it waits in lp_ready[] by call number, which
 * cm5s_lp_scopy_prepare allocates before the call's first collective.
 * The step's barrier keeps a node's next READY to the same sender from
 * coming before that sender took this one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "run_single.h"

static unsigned lp_seq;

/* lp_scopy: per source, the last READY (its call number + 1, its rport);
 * the rport's landings and this node's finished scopies of the call. */
static volatile int *lp_ready_call, *lp_ready_rport;
static int lp_ready_p;
static volatile int lp_landed, lp_sent;
static int lp_calls; /* scopy calls begun at this node */

void cm5s_lp_scopy_prepare(int p)
{
    if (lp_ready_call) {
        if (lp_ready_p != p)
            cm5_fatal("cm5sched", "LP by scopy on %d nodes, then on %d",
                      lp_ready_p, p);
        return;
    }
    lp_ready_call = calloc((size_t)p, sizeof(int));
    lp_ready_rport = calloc((size_t)p, sizeof(int));
    if (!lp_ready_call || !lp_ready_rport)
        cm5_fatal("cm5sched", "out of memory for LP by scopy on %d nodes", p);
    lp_ready_p = p;
}

/* READY(src, call + 1, rport): src's rport for this node's data. */
static void lp_ready(int src, int call1, int rport)
{
    if (!lp_ready_call || src < 0 || src >= lp_ready_p)
        cm5_fatal("cm5sched",
                  "LP by scopy: node %d is ready for data outside a call", src);
    lp_ready_rport[src] = rport;
    lp_ready_call[src] = call1;
}

static void lp_landed_h(int rport, void *arg2)
{
    (void)rport;
    (void)arg2;
    lp_landed++;
}

static void lp_sent_h(void *arg)
{
    (void)arg;
    lp_sent++;
}

/* One step by scopy; rport is this node's, call1 the call's number + 1. */
static void lp_step_scopy(cm5s_xfer_t *x, int rport, int call1, int to,
                          int from)
{
    size_t ns = to >= 0 ? x->scount[to] : 0;
    size_t nr = from >= 0 ? x->rcount[from] : 0;
    int ls = ns ? single_len(x, ns, to, "to") : 0;
    int lr = nr ? single_len(x, nr, from, "from") : 0;
    int landed = lp_landed, sent = lp_sent;

    if (nr) {
        CMAML_set_rport_addr(rport, x->rbuf + x->rdispl[from] * x->esz);
        CMAML_set_rport_byte_counter(rport, lr);
        CMAML_set_rport_total_nbytes(rport, 0);
        CMAML_request(from, (CMAML_handler_t)lp_ready, x->me, call1, rport);
    }
    if (ns) {
        CMAML_poll_while_lt(&lp_ready_call[to], call1);
        if (lp_ready_call[to] != call1)
            cm5s_fatal(x,
                       "node %d is ready for call %d of LP by scopy, this "
                       "node is in call %d",
                       to, lp_ready_call[to] - 1, call1 - 1);
        CMAML_scopy(to, lp_ready_rport[to], 0, 0,
                    (void *)(x->sbuf + x->sdispl[to] * x->esz), ls,
                    (CMAML_handler_t)lp_sent_h, NULL);
        CMAML_poll_while_lt(&lp_sent, sent + 1);
        x->st->msgs_sent++;
        x->st->bytes_sent += (uint64_t)ls;
    }
    if (nr) {
        CMAML_poll_while_lt(&lp_landed, landed + 1);
        single_check(x, lr - CMAML_get_rport_byte_counter(rport), lr, from);
        x->st->msgs_recv++;
        x->st->bytes_recv += (uint64_t)lr;
    }
}

/* One step: send n_s elements to `to`, receive n_r from `from`. */
static void lp_step(cm5s_xfer_t *x, int tag, int to, int from)
{
    size_t ns = to >= 0 ? x->scount[to] : 0;
    size_t nr = from >= 0 ? x->rcount[from] : 0;
    int ls = ns ? single_len(x, ns, to, "to") : 0;
    int lr = nr ? single_len(x, nr, from, "from") : 0;
    void *sb = ns ? (void *)(x->sbuf + x->sdispl[to] * x->esz) : NULL;
    void *rb = nr ? x->rbuf + x->rdispl[from] * x->esz : NULL;

    if (ns && nr)
        CMMD_send_and_receive(from, tag, rb, lr, to, tag, sb, ls);
    else if (ns)
        CMMD_send_block(to, tag, sb, ls);
    else if (nr)
        CMMD_receive_block(from, tag, rb, lr);
    if (nr) {
        single_check(x, CMMD_bytes_received(), lr, from);
        x->st->msgs_recv++;
        x->st->bytes_recv += (uint64_t)lr;
    }
    if (ns) {
        x->st->msgs_sent++;
        x->st->bytes_sent += (uint64_t)ls;
    }
}

void cm5s_run_lp(cm5s_xfer_t *x)
{
    int p = x->p, me = x->me, k, steps, pow2 = 1, rport = -1, call1 = 0;
    unsigned seq = lp_seq++;

    while (pow2 < p)
        pow2 <<= 1;
    steps = x->o->lp_shift ? p - 1 : pow2 - 1;
    if (x->lp_scopy && x->o->lp_barrier) {
        if (!lp_ready_call || lp_ready_p != p)
            cm5s_fatal(x, "LP by scopy: cm5s_lp_scopy_prepare was not "
                          "called before the call");
        rport = CMAML_allocate_rport();
        if (rport < 0)
            cm5s_fatal(x, "LP by scopy: no free rport");
        CMAML_set_rport_handler(rport, (CMAML_handler_t)lp_landed_h);
        call1 = ++lp_calls;
    }
    for (k = 1; k <= steps; k++) {
        int tag = single_tag(CM5_SCHED_LP, seq, (unsigned)k);

        if (rport >= 0) {
            int q = (me ^ k) < p ? me ^ k : -1;

            lp_step_scopy(x, rport, call1, x->o->lp_shift ? (me + k) % p : q,
                          x->o->lp_shift ? (me - k + p) % p : q);
        } else if (x->o->lp_shift) {
            lp_step(x, tag, (me + k) % p, (me - k + p) % p);
        } else if ((me ^ k) < p) {
            lp_step(x, tag, me ^ k, me ^ k);
        }
        if (x->o->lp_barrier)
            CMMD_sync_with_nodes();
    }
    if (rport >= 0)
        CMAML_free_rport(rport);
    x->st->phases = (uint32_t)steps;
}
