/*
 * AC, asynchronous communication (wang1993 Fig. 2; ALGORITHMS.md 1.1):
 * post a receive for every incoming message, send every outgoing one
 * without blocking, destinations in a random order, and wait for all.
 * No schedule; contention is left to chance.
 */
#include <stdlib.h>

#include "run_single.h"

#define AC_STREAM 0x41430000u /* "AC": per-node send order */

typedef struct {
    CMMD_mcb m;
    int node, len, is_send;
} ac_op_t;

typedef struct {
    cm5s_xfer_t *x;
    int tag;
    ac_op_t *ops; /* in flight */
    int nops;
} ac_t;

/* Start one message; 0 when CMMD has no asynchronous slot free. */
static int ac_start(ac_t *a, int is_send, int node)
{
    cm5s_xfer_t *x = a->x;
    size_t n = is_send ? x->scount[node] : x->rcount[node];
    int len = single_len(x, n, node, is_send ? "to" : "from");
    CMMD_mcb m;

    if (is_send)
        m = CMMD_send_async(node, a->tag,
                            (void *)(x->sbuf + x->sdispl[node] * x->esz), len,
                            NULL, NULL);
    else
        m = CMMD_receive_async(node, a->tag, x->rbuf + x->rdispl[node] * x->esz,
                               len, NULL, NULL);
    if (m == CMMD_ERRVAL) {
        if (CMMD_get_errno() != CMMD_ERR_NO_RPORTS)
            cm5s_fatal(x, "CMMD_%s_async to node %d failed: %s",
                       is_send ? "send" : "receive", node,
                       CMMD_error_string(CMMD_get_errno()));
        return 0;
    }
    a->ops[a->nops].m = m;
    a->ops[a->nops].node = node;
    a->ops[a->nops].len = len;
    a->ops[a->nops].is_send = is_send;
    a->nops++;
    if (is_send) {
        x->st->msgs_sent++;
        x->st->bytes_sent += (uint64_t)len;
    }
    return 1;
}

/* Retire every finished message; how many finished. */
static int ac_reap(ac_t *a)
{
    int i = 0, done = 0;

    while (i < a->nops) {
        ac_op_t *op = &a->ops[i];

        if (!CMMD_msg_done(op->m)) {
            i++;
            continue;
        }
        if (!op->is_send) {
            single_check(a->x, CMMD_mcb_bytes(op->m), op->len, op->node);
            a->x->st->msgs_recv++;
            a->x->st->bytes_recv += (uint64_t)op->len;
        }
        CMMD_free_mcb(op->m);
        *op = a->ops[--a->nops];
        done++;
    }
    return done;
}

/* Post the receive of a message that has arrived (its sender is
 * waiting): src[ri..nr) are the sources not posted yet.  0 when there is
 * none or no slot. */
static int ac_post_pending(ac_t *a, int *src, int ri, int nr)
{
    int s, j;

    if (!CMMD_msg_pending(CMMD_ANY_NODE, a->tag))
        return 0;
    s = CMMD_msg_sender();
    for (j = ri; j < nr && src[j] != s; j++)
        ;
    if (j == nr) {
        for (j = 0; j < ri && src[j] != s; j++)
            ;
        if (j == ri) /* neither posted nor expected */
            cm5s_fatal(a->x,
                       "node %d got a message from node %d, which "
                       "recvcounts says sends it nothing",
                       a->x->me, s);
        return 0; /* posted, not matched yet */
    }
    if (!ac_start(a, 0, s))
        return 0;
    src[j] = src[ri];
    src[ri] = s;
    return 1;
}

static unsigned ac_seq;

void cm5s_run_ac(cm5s_xfer_t *x)
{
    int p = x->p, *src, *dst, ns = 0, nr = 0, si = 0, ri = 0, j, on_demand;
    cm5s_rng_t rng;
    ac_t a;

    a.x = x;
    a.tag = single_tag(CM5_SCHED_AC, ac_seq++, 0);
    a.nops = 0;
    a.ops = malloc(2 * (size_t)p * sizeof(ac_op_t));
    src = malloc(2 * (size_t)p * sizeof(int));
    if (!a.ops || !src)
        cm5s_fatal(x, "out of memory for %d nodes", p);
    dst = src + p;
    for (j = 0; j < p; j++) {
        if (x->rcount[j])
            src[nr++] = j;
        if (x->scount[j])
            dst[ns++] = j;
    }
    cm5s_rng_seed(&rng, x->o->seed, AC_STREAM + (uint64_t)x->me);
    cm5s_rng_shuffle(&rng, dst, ns);
    /* Post every receive, then send.  When CMMD has fewer asynchronous
     * receive slots than messages to receive, receives posted ahead could
     * hold every slot for senders that are themselves stuck: post instead
     * only for messages that have arrived (their senders are sending), so
     * every posted receive completes and frees its slot.  Never block on
     * one message; retire finished ones and start the rest as slots free. */
    on_demand = nr > CMMD_available_receives();
    while (ri < nr || si < ns || a.nops > 0) {
        if (on_demand)
            while (ri < nr && ac_post_pending(&a, src, ri, nr))
                ri++;
        else
            while (ri < nr && ac_start(&a, 0, src[ri]))
                ri++;
        while (si < ns && ac_start(&a, 1, dst[si]))
            si++;
        if (ac_reap(&a) == 0)
            CMAML_poll();
    }
    x->st->phases = 1;
    free(src);
    free(a.ops);
}
