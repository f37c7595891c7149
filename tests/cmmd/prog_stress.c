/*
 * prog_stress: randomized CM-5 programs of the shapes that hung under the
 * old hold rule (issue 24), mixed with reductions and broadcasts; every
 * count and every byte checked.
 *
 *   prog_stress SEED ROUNDS
 *
 * Each round draws (from SEED and the round, the same on every node) one
 * shape and the collective that ends it:
 *   reqbar   requests to random peers, poll for every reply, then the
 *            collective (a peer may already wait in it: it answers)
 *   counter  the NESL idiom: after a barrier reset a counter, every node
 *            sends a drawn number of requests to every other, poll until
 *            the counter reaches what comes in
 *   drs      test-and-set inquiries, CMAML_scopy into rports the
 *            receivers allocate in their request handlers, the release
 *            from the scopy's completion handler, poll for the arrivals
 *   async    up to 100 CMMD_send_async/receive_async in flight between
 *            drawn pairs, completion handlers counting (one frees its
 *            MCB through the pointer), CMMD_all_msgs_wait, bytes checked
 * and the collective: a barrier, an integer reduction (checked), a
 * broadcast from a drawn root (checked) or a concat (checked).  Node 0
 * prints "prog_stress: seed S: N rounds ok" at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

#define MAXN 64
#define MAXASYNC 100

static uint32_t seed;
static int round_no;

static uint32_t draw(uint32_t a, uint32_t b)
{
    return t_hash(seed ^ (uint32_t)round_no * 0x9e3779b1u, a * 131u + b);
}

/* ---- reqbar ---- */

static volatile int replies;

static void rq_reply(int from, int k)
{
    (void)from;
    (void)k;
    replies++;
}

static void rq_request(int from, int k)
{
    CMAML_reply(from, (CMAML_handler_t)rq_reply, t_self, k);
}

static void shape_reqbar(void)
{
    int n = 1 + (int)(draw(1, (uint32_t)t_self) % 24);

    replies = 0;
    if (draw(2, 0) % t_nodes == (uint32_t)t_self)
        t_compute(0.001);
    for (int k = 0; k < n; k++) {
        int to = (int)(draw(3, (uint32_t)(t_self * 97 + k)) % t_nodes);

        CMAML_request(to, (CMAML_handler_t)rq_request, t_self, k);
    }
    T_POLL_UNTIL(replies >= n, 60, "round %d reqbar: %d of %d replies",
                 round_no, replies, n);
    T_EQ(replies, n, "reqbar replies");
}

/* ---- counter ---- */

static volatile int counted;

static void ct_handler(int from)
{
    (void)from;
    counted++;
}

static int ct_count(int from, int to)
{
    return from == to ? 0 : (int)(draw(4, (uint32_t)(from * MAXN + to)) % 5);
}

static void shape_counter(void)
{
    int want = 0;

    CMMD_sync_with_nodes();
    counted = 0; /* right after the barrier: the legacy idiom */
    for (int s = 0; s < t_nodes; s++)
        want += ct_count(s, t_self);
    for (int to = 0; to < t_nodes; to++)
        for (int k = 0; k < ct_count(t_self, to); k++)
            CMAML_request(to, (CMAML_handler_t)ct_handler, t_self);
    T_POLL_UNTIL(counted >= want, 60, "round %d counter: %d of %d", round_no,
                 counted, want);
    T_EQ(counted, want, "counter");
}

/* ---- drs ---- */

static volatile int expected, arrived, busy, answer, granted, pending;
static volatile int rlen[MAXN];
static unsigned char *rbuf[MAXN];

static int drs_len(int from, int to)
{
    uint32_t h = draw(5, (uint32_t)(from * MAXN + to));

    /* eager, rendezvous or single copy */
    return (int)(h % 3 == 0   ? 1 + h % 2000
                 : h % 3 == 1 ? 4096 + h % 30000
                              : 60000 + h % 140000);
}

static int drs_sends(int from, int to)
{
    return from != to && draw(6, (uint32_t)(from * MAXN + to)) % 3 == 0;
}

static uint32_t drs_seed(int from, int to)
{
    return draw(7, (uint32_t)(from * MAXN + to));
}

static void drs_gen(int src, int len)
{
    rlen[src] = len;
    expected++;
}

static void drs_arrival(int rport, void *arg2)
{
    (void)arg2;
    CMAML_free_rport(rport);
    arrived++;
}

static void drs_answer(int ok, int rport)
{
    granted = rport;
    answer = ok ? 1 : -1;
}

static void drs_inquiry(int src)
{
    int rp;

    if (busy || (rp = CMAML_allocate_rport()) < 0) {
        CMAML_reply(src, (CMAML_handler_t)drs_answer, 0, -1);
        return;
    }
    busy = 1;
    rbuf[src] = malloc((size_t)rlen[src]);
    CMAML_set_rport_addr(rp, rbuf[src]);
    CMAML_set_rport_byte_counter(rp, rlen[src]);
    CMAML_set_rport_handler(rp, (CMAML_handler_t)drs_arrival);
    CMAML_set_rport_handler_arg2(rp, NULL);
    CMAML_reply(src, (CMAML_handler_t)drs_answer, 1, rp);
}

static void drs_release(int src)
{
    (void)src;
    busy = 0;
}

static void drs_sent(void *arg)
{
    CMAML_request((int)(long)arg, (CMAML_handler_t)drs_release, t_self);
    pending--;
}

static void shape_drs(void)
{
    int left[MAXN], nleft = 0, want;
    unsigned char *sbuf[MAXN] = {0};

    /* (ALGORITHMS.md B2: a barrier first.  The last round's collective
     * may let a node run ahead, a broadcast's root: its announcements
     * must not count in a slower node's last round.) */
    CMMD_sync_with_nodes();
    for (int to = 0; to < t_nodes; to++)
        if (drs_sends(t_self, to)) {
            int len = drs_len(t_self, to);

            sbuf[to] = malloc((size_t)len);
            T_CHECK(sbuf[to] != NULL, "malloc");
            t_fill(sbuf[to], (size_t)len, drs_seed(t_self, to));
            CMAML_request(to, (CMAML_handler_t)drs_gen, t_self, len);
            left[nleft++] = to;
        }
    CMMD_sync_with_nodes();
    /* A barrier does not deliver what was sent before it: wait for every
     * Generate_Recv (who sends here is known: drs_sends). */
    want = 0;
    for (int s = 0; s < t_nodes; s++)
        want += drs_sends(s, t_self);
    T_POLL_UNTIL(expected >= want, 60, "round %d drs: %d of %d announced",
                 round_no, expected, want);
    T_EQ(expected, want, "Generate_Recv announcements");
    pending = 0;
    while (nleft > 0) {
        int moved = 0;

        for (int i = 0; i < nleft; i++) {
            int to = left[i];

            answer = 0;
            CMAML_request(to, (CMAML_handler_t)drs_inquiry, t_self);
            T_POLL_UNTIL(answer != 0, 60, "round %d drs: no answer from %d",
                         round_no, to);
            if (answer < 0)
                continue;
            pending++;
            CMAML_scopy(to, granted, 0, 0, sbuf[to], drs_len(t_self, to),
                        (CMAML_handler_t)drs_sent, (void *)(long)to);
            left[i--] = left[--nleft];
            moved = 1;
        }
        if (!moved)
            CMAML_poll();
    }
    while (arrived < expected)
        CMAML_poll();
    for (int s = 0; s < t_nodes; s++)
        if (rbuf[s]) {
            long at = t_diff(rbuf[s], (size_t)rlen[s], drs_seed(s, t_self));

            T_CHECK(at < 0, "round %d drs: byte %ld of %d from node %d",
                    round_no, at, rlen[s], s);
            free(rbuf[s]);
            rbuf[s] = NULL;
        }
    T_POLL_UNTIL(pending == 0 && !busy, 60, "round %d drs: releases", round_no);
    /* Buffers go once every scopy out of them is done (pending == 0). */
    for (int to = 0; to < t_nodes; to++)
        free(sbuf[to]);
    expected = arrived = 0; /* before the round's collective */
}

/* ---- async ---- */

static volatile int done_send, done_recv;

static void as_done(CMMD_mcb *mcb, void *arg)
{
    if (arg)
        (*(volatile int *)arg)++;
    (void)mcb;
}

static void as_done_free(CMMD_mcb *mcb, void *arg)
{
    (*(volatile int *)arg)++;
    CMMD_free_mcb(*mcb); /* the CM-5 idiom, through the pointer */
}

static void shape_async(void)
{
    int k = 1 + (int)(draw(8, 0) % MAXASYNC);
    int to =
        (t_self + 1 + (int)(draw(9, 0) % (uint32_t)(t_nodes - 1))) % t_nodes;
    int from = (t_self - (to - t_self) + 2 * t_nodes) % t_nodes;
    static int sv[MAXASYNC], rv[MAXASYNC];
    static CMMD_mcb sm[MAXASYNC], rm[MAXASYNC];

    done_send = done_recv = 0;
    for (int i = 0; i < k; i++) {
        rm[i] = CMMD_receive_async(from, 5000 + i, &rv[i], (int)sizeof(int),
                                   i % 2 ? as_done_free : as_done,
                                   (void *)&done_recv);
        T_CHECK(rm[i] != CMMD_ERRVAL, "receive_async %d", i);
    }
    for (int i = 0; i < k; i++) {
        sv[i] = (int)draw(10, (uint32_t)(t_self * 1000 + i));
        sm[i] = CMMD_send_async(to, 5000 + i, &sv[i], (int)sizeof(int), as_done,
                                (void *)&done_send);
        T_CHECK(sm[i] != CMMD_ERRVAL, "send_async %d", i);
    }
    CMMD_all_msgs_wait();
    T_EQ(done_send, k, "send completion handlers");
    T_EQ(done_recv, k, "receive completion handlers");
    for (int i = 0; i < k; i++) {
        T_EQ(rv[i], (int)draw(10, (uint32_t)(from * 1000 + i)),
             "asynchronous message value");
        CMMD_free_mcb(sm[i]);
        if (i % 2 == 0)
            CMMD_free_mcb(rm[i]);
    }
}

/* ---- the collective that ends a round ---- */

static void collective(void)
{
    int all[MAXN], v = t_self + round_no;
    char buf[64];
    int root = (int)(draw(11, 0) % t_nodes);

    switch (draw(12, 0) % 4) {
    case 0:
        CMMD_sync_with_nodes();
        break;
    case 1:
        T_EQ(CMMD_reduce_int(v, CMMD_combiner_add),
             t_nodes * round_no + t_nodes * (t_nodes - 1) / 2, "reduction");
        break;
    case 2:
        snprintf(buf, sizeof(buf), "round %d root %d", round_no, root);
        if (t_self == root) {
            CMMD_bc_to_nodes(buf, (int)sizeof(buf));
        } else {
            char want[64];

            memcpy(want, buf, sizeof(want));
            memset(buf, 0, sizeof(buf));
            CMMD_receive_bc_from_node(buf, (int)sizeof(buf));
            T_CHECK(strcmp(buf, want) == 0, "broadcast got \"%s\"", buf);
        }
        break;
    default:
        CMMD_concat_with_nodes(&v, all, (int)sizeof(int));
        for (int i = 0; i < t_nodes; i++)
            T_EQ(all[i], i + round_no, "concat element");
        break;
    }
}

int main(int argc, char **argv)
{
    int rounds;

    t_init("prog_stress");
    if (argc < 3) {
        fprintf(stderr, "usage: prog_stress SEED ROUNDS\n");
        return 2;
    }
    seed = (uint32_t)strtoul(argv[1], NULL, 0);
    rounds = atoi(argv[2]);
    T_CHECK(t_nodes >= 2 && t_nodes <= MAXN, "2 to %d nodes", MAXN);
    CMMD_sync_with_nodes();
    for (round_no = 0; round_no < rounds; round_no++) {
        uint32_t shape = draw(13, 0) % 4;

        /* With interrupts the counter idiom races on any machine: a
         * handler held by the barrier runs as it returns, before the
         * reset (NESL polled). */
        if (shape == 1 && CMAML_interrupt_status())
            shape = 0;
        switch (shape) {
        case 0:
            shape_reqbar();
            break;
        case 1:
            shape_counter();
            break;
        case 2:
            shape_drs();
            break;
        default:
            shape_async();
            break;
        }
        collective();
    }
    CMMD_sync_with_nodes();
    if (t_self == 0)
        printf("prog_stress: seed %u: %d rounds ok\n", seed, rounds);
    t_done();
    return 0;
}
