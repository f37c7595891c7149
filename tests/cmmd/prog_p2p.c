/*
 * prog_p2p: CMMD point-to-point messages, written as legacy code would
 * against <cm/cmmd.h>.  Runs on any number of nodes (1 included: the
 * node then talks to itself where that cannot deadlock).  Each node
 * checks what it receives against the pattern the sender used and
 * prints "prog_p2p: node I of N ok" at the end.
 *
 * Sections (separated by CMMD_sync_with_nodes):
 *   ring       CMMD_send_block/receive_block, sizes 0..1 MiB, wildcards,
 *              a longer receive buffer, bytes_received/msg_sender/msg_tag
 *   sync       CMMD_send_block returns only once the receiver has posted
 *              its receive (times compared on the shared monotonic clock)
 *   send       CMMD_send/CMMD_receive
 *   noblock    CMMD_send_noblock returns 0, the buffer is reusable at
 *              once; hundreds to node 0 before it receives; same-tag order;
 *              every node sends 100 to each neighbour before receiving
 *   async      send/receive_async, handlers, MCB queries, free in flight,
 *              all_msgs_wait/all_*_done, CMMD_ERR_NO_RPORTS
 *   probe      CMMD_msg_pending and what it reports
 *   shift      CMMD_send_and_receive around the ring
 *   swap       CMMD_swap with the neighbour
 *   wildcard   a posted ANY/ANY receive is not matched by collectives
 *
 * "prog_p2p noblock_nowait" (2 or more nodes) checks only that 1000
 * CMMD_send_noblock calls to a node that computes for 1 s without polling
 * return at once ("never blocks", <cm/cmmd.h>).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

static int next, prev;

#define SEED(src, what) ((uint32_t)(src)*1000u + (uint32_t)(what))

/* ---- ring: send_block / receive_block ---- */

static void ring_one(int k, int size)
{
    int tag = 100 + k, extra = 64;
    int any_node = k == 1 || k == 3 || k == 4, any_tag = k >= 2;
    unsigned char *sbuf = t_malloc((size_t)size);
    unsigned char *rbuf = t_malloc((size_t)size + (size_t)extra);
    int r;

    t_fill(sbuf, (size_t)size, SEED(t_self, k));
    memset(rbuf, 0xEE, (size_t)size + (size_t)extra);
    for (int step = 0; step < 2; step++) {
        if ((step == 0) == (t_self == 0)) {
            r = CMMD_send_block(next, tag, sbuf, size);
            T_EQ(r, 1, "CMMD_send_block's return value");
            T_EQ(CMMD_bytes_sent(), size, "CMMD_bytes_sent()");
        } else {
            r = CMMD_receive_block(any_node ? CMMD_ANY_NODE : prev,
                                   any_tag ? CMMD_ANY_TAG : tag, rbuf,
                                   size + extra);
            T_EQ(r, 1, "CMMD_receive_block's return value");
        }
    }
    T_EQ(CMMD_bytes_received(), size, "CMMD_bytes_received()");
    T_EQ(CMMD_msg_sender(), prev, "CMMD_msg_sender()");
    T_EQ(CMMD_msg_tag(), tag, "CMMD_msg_tag()");
    T_PATTERN(rbuf, (size_t)size, SEED(prev, k),
              "%d-byte block message from node %d (tag %d%s%s)", size, prev,
              tag, any_node ? ", ANY_NODE" : "", any_tag ? ", ANY_TAG" : "");
    for (int i = 0; i < extra; i++)
        T_CHECK(rbuf[size + i] == 0xEE,
                "byte %d past a %d-byte message was overwritten (0x%02x)",
                size + i, size, rbuf[size + i]);
    free(sbuf);
    free(rbuf);
}

static void test_ring(void)
{
    static const int sizes[] = {0, 1, 16, 4096, T_MIB};

    if (t_nodes < 2)
        return; /* a blocking send to oneself cannot complete */
    for (int k = 0; k < 5; k++)
        ring_one(k, sizes[k]);
}

/* ---- send_block is synchronous ---- */

static void test_sync(void)
{
    double t[2] = {0, 0}, all[2 * 64];
    char buf[16] = "synchronous";

    if (t_nodes < 2)
        return;
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        t_sleep(0.3);
        t[0] = t_now(); /* just before the receive is posted */
        CMMD_receive_block(0, 7, buf, sizeof(buf));
    } else if (t_self == 0) {
        T_EQ(CMMD_send_block(1, 7, buf, sizeof(buf)), 1,
             "CMMD_send_block's return value");
        t[1] = t_now(); /* just after it returned */
    }
    if (t_nodes <= 64) {
        CMMD_concat_with_nodes(t, all, (int)sizeof(t));
        if (t_self == 0)
            T_CHECK(all[1] >= all[2],
                    "CMMD_send_block to node 1 returned %.3f s before node "
                    "1 posted its receive: it is not synchronous",
                    all[2] - all[1]);
    }
}

/* ---- CMMD_send / CMMD_receive ---- */

static void test_send(void)
{
    static const int sizes[] = {37, 4096};

    if (t_nodes < 2)
        return;
    for (int k = 0; k < 2; k++) {
        int size = sizes[k], tag = 200 + k;
        char *sbuf = t_malloc((size_t)size), *rbuf = t_malloc((size_t)size);

        t_fill(sbuf, (size_t)size, SEED(t_self, 20 + k));
        memset(rbuf, 0, (size_t)size);
        for (int step = 0; step < 2; step++) {
            if ((step == 0) == (t_self == 0))
                T_EQ(CMMD_send(next, tag, sbuf, size), 1,
                     "CMMD_send's return value");
            else
                T_EQ(CMMD_receive(prev, tag, rbuf, size), 1,
                     "CMMD_receive's return value");
        }
        T_EQ(CMMD_bytes_received(), size,
             "CMMD_bytes_received() after "
             "CMMD_receive");
        T_PATTERN(rbuf, (size_t)size, SEED(prev, 20 + k),
                  "CMMD_send of %d bytes from node %d", size, prev);
        free(sbuf);
        free(rbuf);
    }
}

/* ---- CMMD_send_noblock ---- */

#define NB_COUNT 300

static int nb_len(int seq)
{
    return seq % 100 == 99 ? 100000 : 8 + (seq % 7) * 100;
}

static void nb_check(const unsigned char *buf, int src, int seq, int got)
{
    T_EQ(got, nb_len(seq), "length of a CMMD_send_noblock message");
    T_CHECK(buf[0] == (unsigned char)src && buf[1] == (unsigned char)seq &&
                buf[2] == (unsigned char)(seq >> 8),
            "message %d of node %d arrived out of order: it is message %d "
            "of node %d (same tag, same pair)",
            seq, src, buf[1] | buf[2] << 8, buf[0]);
    T_PATTERN(buf + 3, (size_t)got - 3, SEED(src, 3000 + seq),
              "noblock message %d from node %d", seq, src);
}

static void test_noblock_reuse(void)
{
    static const int sizes[] = {4096, T_MIB};

    for (int k = 0; k < 2; k++) {
        int size = sizes[k], tag = 300 + k;
        char *buf = t_malloc((size_t)size), *rbuf = t_malloc((size_t)size);

        t_fill(buf, (size_t)size, SEED(t_self, 30 + k));
        T_EQ(CMMD_send_noblock(next, tag, buf, size), 0,
             "CMMD_send_noblock's return value");
        t_fill(buf, (size_t)size, SEED(t_self, 40 + k)); /* reuse at once */
        T_EQ(CMMD_send_noblock(next, tag, buf, size), 0,
             "CMMD_send_noblock's return value");
        memset(buf, 0x5A, (size_t)size);
        CMMD_receive_block(prev, tag, rbuf, size);
        T_PATTERN(rbuf, (size_t)size, SEED(prev, 30 + k),
                  "first of two %d-byte CMMD_send_noblock messages from node "
                  "%d (its buffer was overwritten right after the call)",
                  size, prev);
        CMMD_receive_block(prev, tag, rbuf, size);
        T_PATTERN(rbuf, (size_t)size, SEED(prev, 40 + k),
                  "second of two %d-byte CMMD_send_noblock messages from "
                  "node %d",
                  size, prev);
        free(buf);
        free(rbuf);
    }
}

/* Every node but 0 (or node 0 alone) sends NB_COUNT messages to node 0,
 * which receives them only after a CMMD_sync_with_nodes. */
static void test_noblock_many(void)
{
    unsigned char *buf = t_malloc(100000);
    int senders = t_nodes > 1 ? t_nodes - 1 : 1;
    int *seen;

    if (t_nodes == 1 || t_self != 0) {
        for (int seq = 0; seq < NB_COUNT; seq++) {
            int len = nb_len(seq);

            buf[0] = (unsigned char)t_self;
            buf[1] = (unsigned char)seq;
            buf[2] = (unsigned char)(seq >> 8);
            t_fill(buf + 3, (size_t)len - 3, SEED(t_self, 3000 + seq));
            T_EQ(CMMD_send_noblock(0, 400, buf, len), 0,
                 "CMMD_send_noblock's return value");
        }
    }
    CMMD_sync_with_nodes(); /* node 0 has received nothing yet */
    if (t_self == 0) {
        /* Half with wildcards (per-source order checked), then the rest
         * by source, highest node first. */
        seen = calloc((size_t)t_nodes, sizeof(int));
        T_CHECK(seen, "out of memory");
        for (int i = 0; i < senders * NB_COUNT / 2; i++) {
            int src;

            CMMD_receive_block(CMMD_ANY_NODE, 400, buf, 100000);
            src = CMMD_msg_sender();
            T_CHECK(src >= 0 && src < t_nodes && (src != 0 || t_nodes == 1),
                    "CMMD_msg_sender() is %d", src);
            nb_check(buf, src, seen[src]++, CMMD_bytes_received());
        }
        for (int src = t_nodes - 1; src >= 0; src--) {
            if (src == 0 && t_nodes > 1)
                break;
            while (seen[src] < NB_COUNT) {
                CMMD_receive_block(src, 400, buf, 100000);
                T_EQ(CMMD_msg_sender(), src, "CMMD_msg_sender()");
                nb_check(buf, src, seen[src]++, CMMD_bytes_received());
            }
        }
        T_CHECK(!CMMD_msg_pending(CMMD_ANY_NODE, CMMD_ANY_TAG),
                "a message is still pending after all were received");
        free(seen);
    }
    CMMD_all_msgs_wait();
    T_CHECK(CMMD_all_sends_done(), "CMMD_all_sends_done() is false after "
                                   "CMMD_all_msgs_wait()");
    free(buf);
}

/* Every node sends 100 messages to each neighbour before receiving any. */
static void test_noblock_sym(void)
{
    int v;

    for (int i = 0; i < 100; i++) {
        v = t_self * 1000 + i;
        CMMD_send_noblock(next, 410, &v, (int)sizeof(v));
        v = -v - 1;
        CMMD_send_noblock(prev, 411, &v, (int)sizeof(v));
    }
    for (int i = 0; i < 100; i++) {
        CMMD_receive_block(prev, 410, &v, (int)sizeof(v));
        T_EQ(v, prev * 1000 + i, "message from the previous node");
        CMMD_receive_block(next, 411, &v, (int)sizeof(v));
        T_EQ(v, -(next * 1000 + i) - 1, "message from the next node");
    }
    CMMD_all_msgs_wait();
}

/* CMMD_send_noblock "never blocks": 1000 of them to a node that computes
 * for a second without polling must return long before it polls. */
static void test_noblock_nowait(void)
{
    char b[64];
    double t[2] = {0, 0}, all[2 * 64];

    memset(b, 7, sizeof(b));
    if (t_nodes < 2)
        return;
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        t_compute(1.0);
        t[0] = t_now(); /* polls from now on */
        for (int i = 0; i < 1000; i++)
            CMMD_receive_block(1, 0, b, sizeof(b));
    } else if (t_self == 1) {
        for (int i = 0; i < 1000; i++)
            T_EQ(CMMD_send_noblock(0, 0, b, sizeof(b)), 0,
                 "CMMD_send_noblock's return value");
        t[1] = t_now();
    }
    CMMD_all_msgs_wait();
    CMMD_concat_with_nodes(t, all, (int)sizeof(t));
    if (t_self == 1)
        T_CHECK(all[3] < all[0] - 0.5,
                "1000 CMMD_send_noblock calls to node 0 returned only %.3f s "
                "before node 0 started polling, after its 1 s of computing: "
                "they blocked",
                all[0] - all[3]);
}

/* ---- asynchronous messages ---- */

typedef struct {
    int calls;
    CMMD_mcb mcb;
    int bytes, tag, node;
    void *buffer;
} actx_t;

static void async_handler(CMMD_mcb *mcb, void *arg)
{
    actx_t *c = arg;

    c->calls++;
    c->mcb = *mcb;
    c->bytes = CMMD_mcb_bytes(*mcb);
    c->tag = CMMD_mcb_tag(*mcb);
    c->node = CMMD_mcb_node(*mcb);
    c->buffer = CMMD_mcb_buffer(*mcb);
}

static void test_async_basic(void)
{
    static char rbuf[8192], sbuf[5000];
    actx_t rc = {0, 0, 0, 0, 0, NULL};
    CMMD_mcb rb, sb;

    memset(rbuf, 0, sizeof(rbuf));
    t_fill(sbuf, sizeof(sbuf), SEED(t_self, 60));
    rb = CMMD_receive_async(prev, 600, rbuf, sizeof(rbuf), async_handler, &rc);
    T_CHECK(rb > 0, "CMMD_receive_async returned no MCB (errno %d: %s)",
            (int)CMMD_get_errno(), CMMD_error_string(CMMD_get_errno()));
    T_EQ(CMMD_mcb_len(rb), sizeof(rbuf), "CMMD_mcb_len of a receive");
    T_EQ(CMMD_mcb_dest(rb), t_self, "CMMD_mcb_dest of a receive");
    T_EQ(CMMD_mcb_pending(prev, 600), 0,
         "CMMD_mcb_pending before the "
         "message was sent");
    T_CHECK(!CMMD_msg_done(rb), "CMMD_msg_done is true before the message "
                                "was sent");
    T_CHECK(!CMMD_all_receives_done(), "CMMD_all_receives_done() is true "
                                       "with a receive posted");
    T_CHECK(!CMMD_all_msgs_done(), "CMMD_all_msgs_done() is true with a "
                                   "receive posted");
    T_CHECK(CMMD_all_sends_done(), "CMMD_all_sends_done() is false with "
                                   "no send in flight");
    T_EQ(CMMD_mcb_bytes(rb), 0, "CMMD_mcb_bytes of an unmatched receive");
    T_CHECK(CMMD_mcb_buffer(rb) == rbuf, "CMMD_mcb_buffer of a receive is "
                                         "not its buffer");
    T_EQ(rc.calls, 0, "handler calls before the message was sent");
    CMMD_sync_with_nodes();

    sb = CMMD_send_async(next, 600, sbuf, (int)sizeof(sbuf), NULL, NULL);
    T_CHECK(sb > 0, "CMMD_send_async returned no MCB");
    CMMD_msg_wait(sb);
    T_CHECK(CMMD_msg_done(sb), "CMMD_msg_done is false after CMMD_msg_wait");
    T_EQ(CMMD_mcb_len(sb), sizeof(sbuf), "CMMD_mcb_len of a send");
    T_EQ(CMMD_mcb_source(sb), t_self, "CMMD_mcb_source of a send");
    T_EQ(CMMD_mcb_dest(sb), next, "CMMD_mcb_dest of a send");
    T_EQ(CMMD_mcb_bytes(sb), sizeof(sbuf), "CMMD_mcb_bytes of a send");
    T_EQ(CMMD_mcb_tag(sb), 600, "CMMD_mcb_tag of a send");
    T_EQ(CMMD_mcb_node(sb), next, "CMMD_mcb_node of a send");
    T_CHECK(CMMD_mcb_buffer(sb) == sbuf, "CMMD_mcb_buffer of a send");
    CMMD_free_mcb(sb);

    CMMD_msg_wait(rb);
    T_EQ(rc.calls, 1, "calls of the receive's handler");
    T_CHECK(rc.mcb == rb, "the handler got another MCB than the receive's");
    T_EQ(rc.bytes, sizeof(sbuf), "CMMD_mcb_bytes in the handler");
    T_EQ(rc.tag, 600, "CMMD_mcb_tag in the handler");
    T_EQ(rc.node, prev, "CMMD_mcb_node in the handler");
    T_CHECK(rc.buffer == rbuf, "CMMD_mcb_buffer in the handler");
    T_EQ(CMMD_mcb_bytes(rb), sizeof(sbuf), "CMMD_mcb_bytes after the wait");
    T_EQ(CMMD_mcb_node(rb), prev, "CMMD_mcb_node after the wait");
    T_EQ(CMMD_mcb_source(rb), prev, "CMMD_mcb_source after the wait");
    T_PATTERN(rbuf, sizeof(sbuf), SEED(prev, 60), "CMMD_receive_async data");
    CMMD_free_mcb(rb);
}

/* Release MCBs whose messages are still in flight. */
static void test_async_free(void)
{
    static char rbuf[100], sbuf[100], sbuf2[3000], rbuf2[3000];
    actx_t rc = {0, 0, 0, 0, 0, NULL};
    CMMD_mcb m;

    memset(rbuf, 0, sizeof(rbuf));
    t_fill(sbuf, sizeof(sbuf), SEED(t_self, 61));
    t_fill(sbuf2, sizeof(sbuf2), SEED(t_self, 62));
    m = CMMD_receive_async(prev, 601, rbuf, sizeof(rbuf), async_handler, &rc);
    T_CHECK(m > 0, "CMMD_receive_async returned no MCB");
    CMMD_free_mcb(m); /* in flight */
    m = CMMD_send_async(next, 602, sbuf2, (int)sizeof(sbuf2), NULL, NULL);
    T_CHECK(m > 0, "CMMD_send_async returned no MCB");
    CMMD_free_mcb(m); /* in flight */
    CMMD_sync_with_nodes();
    CMMD_send_block(next, 601, sbuf, (int)sizeof(sbuf));
    CMMD_receive_block(prev, 602, rbuf2, (int)sizeof(rbuf2));
    CMMD_all_msgs_wait();
    T_EQ(rc.calls, 1,
         "handler calls of a receive whose MCB was freed in "
         "flight");
    T_PATTERN(rbuf, sizeof(rbuf), SEED(prev, 61),
              "receive whose MCB was freed in flight");
    T_PATTERN(rbuf2, sizeof(rbuf2), SEED(prev, 62),
              "send whose MCB was freed in flight");
    T_CHECK(CMMD_all_msgs_done(), "CMMD_all_msgs_done() is false after "
                                  "CMMD_all_msgs_wait()");
}

/* The CMMD idiom: a completion handler frees its own MCB. */
static volatile int self_freed;

static void free_own_mcb(CMMD_mcb *mcb, void *arg)
{
    memset(arg, 0x5a, 16); /* scribble: the freed MCB must not be read */
    CMMD_free_mcb(*mcb);
    self_freed++;
}

static void test_async_free_in_handler(void)
{
    static char rbuf[64], sbuf[64], scratch_r[16], scratch_s[16];
    CMMD_mcb r, s;

    t_fill(sbuf, sizeof(sbuf), SEED(t_self, 63));
    self_freed = 0;
    r = CMMD_receive_async(prev, 603, rbuf, sizeof(rbuf), free_own_mcb,
                           scratch_r);
    T_CHECK(r > 0, "CMMD_receive_async returned no MCB");
    CMMD_sync_with_nodes();
    s = CMMD_send_async(next, 603, sbuf, (int)sizeof(sbuf), free_own_mcb,
                        scratch_s);
    T_CHECK(s > 0, "CMMD_send_async returned no MCB");
    CMMD_all_msgs_wait();
    T_EQ(self_freed, 2, "handlers that freed their own MCB");
    T_PATTERN(rbuf, sizeof(rbuf), SEED(prev, 63),
              "receive whose handler freed its MCB");
    CMMD_sync_with_nodes();
}

/* Charm++'s CM-5 machine layer (src/arch/cm5/machine.c): a completion
 * handler gets a pointer to the MCB, frees the MCB and the message, and
 * turns interrupts off and on around it; with interrupts off and on. */
enum { CHARM_MSGS = 40, CHARM_LEN = 300 };
static volatile int charm_done, charm_bad, charm_irq_was;
/* (with interrupts on a handler may run as CMMD_send_async returns,
 * before its caller stores the MCB: the two are compared at the end) */
static CMMD_mcb charm_mcbs[CHARM_MSGS], charm_seen[CHARM_MSGS];

static void charm_send_handler(CMMD_mcb *mcb, void *msg)
{
    int was = CMMD_disable_interrupts();
    int k = ((unsigned char *)msg)[0];

    if (was != charm_irq_was || CMMD_interrupt_status() != 0 ||
        k >= CHARM_MSGS || charm_seen[k])
        charm_bad++;
    else
        charm_seen[k] = *mcb;
    CMMD_free_mcb(*mcb);
    free(msg);
    charm_done++;
    if (was)
        CMMD_enable_interrupts();
}

static void test_async_charm(int irq)
{
    int before = irq ? CMMD_enable_interrupts() : CMMD_disable_interrupts();

    charm_done = charm_bad = 0;
    memset(charm_seen, 0, sizeof(charm_seen));
    charm_irq_was = irq;
    CMMD_sync_with_nodes();
    for (int k = 0; k < CHARM_MSGS; k++) {
        unsigned char *msg = malloc(CHARM_LEN);

        T_CHECK(msg != NULL, "malloc");
        t_fill(msg, CHARM_LEN, SEED(t_self, 700 + k));
        msg[0] = (unsigned char)k;
        charm_mcbs[k] =
            CMMD_send_async(next, 640, msg, CHARM_LEN, charm_send_handler, msg);
        T_CHECK(charm_mcbs[k] > 0, "CMMD_send_async returned no MCB");
    }
    for (int k = 0; k < CHARM_MSGS; k++) {
        unsigned char in[CHARM_LEN], want[CHARM_LEN];

        CMMD_receive_block(prev, 640, in, CHARM_LEN);
        t_fill(want, CHARM_LEN, SEED(prev, 700 + k));
        want[0] = (unsigned char)k;
        T_CHECK(memcmp(in, want, CHARM_LEN) == 0,
                "message %d from node %d differs", k, prev);
    }
    CMMD_all_msgs_wait();
    for (int k = 0; k < CHARM_MSGS; k++)
        if (charm_seen[k] != charm_mcbs[k])
            charm_bad++;
    T_EQ(charm_done, CHARM_MSGS, "Charm-style handlers that ran");
    T_EQ(charm_bad, 0, "handlers that saw a wrong MCB or interrupt state");
    T_EQ(CMMD_interrupt_status(), irq, "interrupt state after the handlers");
    if (before)
        CMMD_enable_interrupts();
    else
        CMMD_disable_interrupts();
    /* Every MCB went back: as many can be taken again. */
    static char one[CHARM_MSGS], none = 1;

    for (int k = 0; k < CHARM_MSGS; k++) {
        charm_mcbs[k] = CMMD_receive_async(prev, 641, &one[k], 1, NULL, NULL);
        T_CHECK(charm_mcbs[k] > 0, "MCB %d not free again", k);
    }
    CMMD_sync_with_nodes();
    for (int k = 0; k < CHARM_MSGS; k++)
        CMMD_send_noblock(next, 641, &none, 1);
    CMMD_all_msgs_wait();
    for (int k = 0; k < CHARM_MSGS; k++)
        CMMD_free_mcb(charm_mcbs[k]);
    CMMD_sync_with_nodes();
}

static void test_async_many(void)
{
    enum { N = 10 };
    static int rv[N], sv[N];
    actx_t rc[N];
    CMMD_mcb r[N], s[N];

    memset(rc, 0, sizeof(rc));
    for (int i = 0; i < N; i++) {
        rv[i] = -1;
        r[i] = CMMD_receive_async(CMMD_ANY_NODE, 610 + i, &rv[i],
                                  (int)sizeof(int), async_handler, &rc[i]);
        T_CHECK(r[i] > 0, "CMMD_receive_async %d returned no MCB", i);
    }
    T_EQ(CMMD_available_receives(), 128 - N, "CMMD_available_receives()");
    CMMD_sync_with_nodes();
    for (int i = N - 1; i >= 0; i--) { /* reverse: matched by tag */
        sv[i] = t_self * 100 + i;
        s[i] = CMMD_send_async(next, 610 + i, &sv[i], (int)sizeof(int), NULL,
                               NULL);
        T_CHECK(s[i] > 0, "CMMD_send_async %d returned no MCB", i);
    }
    /* With interrupts on, an eager send whose receive is posted may
     * complete (its acknowledgement delivered by interrupt) before the
     * count is read. */
    if (CMAML_interrupt_status())
        T_CHECK(CMMD_available_sends() >= 128 - N &&
                    CMMD_available_sends() <= 128,
                "CMMD_available_sends() is %d, not in [%d, 128]",
                CMMD_available_sends(), 128 - N);
    else
        T_EQ(CMMD_available_sends(), 128 - N, "CMMD_available_sends()");
    CMMD_all_msgs_wait();
    T_CHECK(CMMD_all_sends_done() && CMMD_all_receives_done() &&
                CMMD_all_msgs_done(),
            "CMMD_all_*_done() false after CMMD_all_msgs_wait()");
    for (int i = 0; i < N; i++) {
        T_CHECK(CMMD_msg_done(r[i]) && CMMD_msg_done(s[i]),
                "MCB %d not done after CMMD_all_msgs_wait()", i);
        T_EQ(rc[i].calls, 1, "handler calls of an async receive");
        T_EQ(rv[i], prev * 100 + i, "value of async message");
        T_EQ(rc[i].tag, 610 + i, "CMMD_mcb_tag in the handler");
        T_EQ(rc[i].node, prev, "CMMD_mcb_node of an ANY_NODE receive");
        CMMD_free_mcb(r[i]);
        CMMD_free_mcb(s[i]);
    }
    T_EQ(CMMD_available_receives(), 128, "CMMD_available_receives()");
    T_EQ(CMMD_available_sends(), 128, "CMMD_available_sends()");
}

/* More asynchronous operations than CMMD_available_*() allows. */
static void test_async_exhaust(void)
{
    static int rv[128], sv[128], tmp;
    int avail = CMMD_available_receives();
    CMMD_mcb r[128], s[128], extra;
    const char *es;

    T_EQ(avail, 128, "CMMD_available_receives() with none in flight");
    T_EQ(CMMD_available_sends(), 128, "CMMD_available_sends()");
    for (int i = 0; i < avail; i++) {
        r[i] =
            CMMD_receive_async(prev, 620, &rv[i], (int)sizeof(int), NULL, NULL);
        T_CHECK(r[i] > 0, "CMMD_receive_async %d of %d returned no MCB", i,
                avail);
    }
    T_EQ(CMMD_available_receives(), 0,
         "CMMD_available_receives() with "
         "all in use");
    extra = CMMD_receive_async(prev, 620, &tmp, (int)sizeof(int), NULL, NULL);
    T_CHECK(extra == CMMD_ERRVAL,
            "receive %d beyond CMMD_available_receives() "
            "did not return CMMD_ERRVAL",
            avail + 1);
    T_EQ(CMMD_get_errno(), CMMD_ERR_NO_RPORTS,
         "CMMD_get_errno() after a "
         "receive too many");
    es = CMMD_error_string(CMMD_ERR_NO_RPORTS);
    T_CHECK(es && *es && strcmp(es, CMMD_error_string(CMMD_ERR_NONE)) &&
                strcmp(es, CMMD_error_string(CMMD_ERR_BAD_ARG)) &&
                strcmp(CMMD_error_string(CMMD_ERR_NONE),
                       CMMD_error_string(CMMD_ERR_BAD_ARG)),
            "CMMD_error_string does not name the three errors apart");
    for (int i = 0; i < 128; i++) {
        sv[i] = t_self * 1000 + i;
        s[i] = CMMD_send_async(next, 621, &sv[i], (int)sizeof(int), NULL, NULL);
        T_CHECK(s[i] > 0, "CMMD_send_async %d of 128 returned no MCB", i);
    }
    T_EQ(CMMD_available_sends(), 0,
         "CMMD_available_sends() with all in "
         "use");
    extra = CMMD_send_async(next, 621, &tmp, (int)sizeof(int), NULL, NULL);
    T_CHECK(extra == CMMD_ERRVAL, "send 129 beyond CMMD_available_sends() "
                                  "did not return CMMD_ERRVAL");
    T_EQ(CMMD_get_errno(), CMMD_ERR_NO_RPORTS,
         "CMMD_get_errno() after a "
         "send too many");
    CMMD_sync_with_nodes();
    for (int i = 0; i < 128; i++) {
        tmp = i; /* in order, into the receives in posting order */
        T_EQ(CMMD_send_noblock(next, 620, &tmp, (int)sizeof(int)), 0,
             "CMMD_send_noblock's return value");
    }
    for (int i = 0; i < 128; i++) {
        CMMD_receive_block(prev, 621, &tmp, (int)sizeof(int));
        T_EQ(tmp, prev * 1000 + i, "asynchronous send received in order");
    }
    CMMD_all_msgs_wait();
    for (int i = 0; i < 128; i++) {
        T_EQ(rv[i], i, "value in the i-th posted receive");
        CMMD_free_mcb(r[i]);
        CMMD_free_mcb(s[i]);
    }
    T_EQ(CMMD_available_receives(), 128, "CMMD_available_receives() after");
    T_EQ(CMMD_available_sends(), 128, "CMMD_available_sends() after");
}

/* ---- probes ---- */

/* CMMD_mcb_pending(node, tag) as 1990s code used it (Charm's CMMD
 * machine layer): an int MCB describing the waiting message, 0 if none. */
static void probe_mcb(int tag, int len)
{
    CMMD_mcb m = CMMD_mcb_pending(CMMD_ANY_NODE, CMMD_ANY_TAG), m2;

    T_CHECK(m > 0, "CMMD_mcb_pending(ANY, ANY) is %d with a message waiting",
            m);
    T_EQ(CMMD_mcb_bytes(m), len, "CMMD_mcb_bytes of a pending message");
    T_EQ(CMMD_mcb_len(m), len, "CMMD_mcb_len of a pending message");
    T_EQ(CMMD_mcb_tag(m), tag, "CMMD_mcb_tag of a pending message");
    T_EQ(CMMD_mcb_node(m), prev, "CMMD_mcb_node of a pending message");
    T_EQ(CMMD_mcb_source(m), prev, "CMMD_mcb_source of a pending message");
    T_EQ(CMMD_mcb_dest(m), t_self, "CMMD_mcb_dest of a pending message");
    T_CHECK(!CMMD_msg_done(m), "CMMD_msg_done of a pending message");
    m2 = CMMD_mcb_pending(prev, tag);
    T_CHECK(m2 > 0 && m2 != m, "a second CMMD_mcb_pending is %d (first %d)", m2,
            m);
    T_CHECK(CMMD_mcb_pending(prev, tag + 1) == 0,
            "CMMD_mcb_pending(%d, "
            "%d) found a message: wrong tag",
            prev, tag + 1);
    CMMD_free_mcb(m);
    CMMD_free_mcb(m2);
    T_CHECK(CMMD_msg_pending(prev, tag), "the message is gone after "
                                         "freeing its probe MCBs");
}

static void test_probe(void)
{
    static char sbuf[200], rbuf[200];
    int mytag = 700 + t_self % 5, tag = 700 + prev % 5, len = 123 + prev;

    t_fill(sbuf, sizeof(sbuf), SEED(t_self, 70));
    T_CHECK(!CMMD_msg_pending(CMMD_ANY_NODE, CMMD_ANY_TAG),
            "CMMD_msg_pending is true before anything was sent");
    CMMD_sync_with_nodes();
    CMMD_send_noblock(next, mytag, sbuf, 123 + t_self);
    T_POLL_UNTIL(CMMD_msg_pending(CMMD_ANY_NODE, CMMD_ANY_TAG), 20,
                 "CMMD_msg_pending(ANY, ANY) still false 20 s after node %d "
                 "sent",
                 prev);
    T_EQ(CMMD_msg_sender(), prev, "CMMD_msg_sender() after a probe");
    T_EQ(CMMD_msg_tag(), tag, "CMMD_msg_tag() after a probe");
    T_EQ(CMMD_bytes_received(), len, "CMMD_bytes_received() after a probe");
    T_CHECK(CMMD_msg_pending(prev, tag), "CMMD_msg_pending(%d, %d) false", prev,
            tag);
    T_CHECK(CMMD_msg_pending(prev, CMMD_ANY_TAG),
            "CMMD_msg_pending(%d, "
            "ANY) false",
            prev);
    T_CHECK(!CMMD_msg_pending(prev, tag + 1),
            "CMMD_msg_pending(%d, %d) "
            "true: wrong tag",
            prev, tag + 1);
    T_CHECK(!CMMD_msg_pending(CMMD_ANY_NODE, tag + 100),
            "CMMD_msg_pending(ANY, %d) true: no such tag", tag + 100);
    if (t_nodes > 2)
        T_CHECK(!CMMD_msg_pending(next, CMMD_ANY_TAG),
                "CMMD_msg_pending(%d, ANY) true: that node sent nothing", next);
    probe_mcb(tag, len);
    CMMD_receive_block(prev, tag, rbuf, sizeof(rbuf));
    T_EQ(CMMD_bytes_received(), len, "CMMD_bytes_received()");
    T_PATTERN(rbuf, (size_t)len, SEED(prev, 70), "probed message");
    T_EQ(CMMD_mcb_pending(CMMD_ANY_NODE, CMMD_ANY_TAG), 0,
         "CMMD_mcb_pending after the message was received");
    T_CHECK(!CMMD_msg_pending(CMMD_ANY_NODE, CMMD_ANY_TAG),
            "CMMD_msg_pending is true after the message was received");
    CMMD_all_msgs_wait();
}

/* ---- send_and_receive, swap ---- */

static void test_shift(void)
{
    static const int sizes[] = {12, T_MIB};

    for (int k = 0; k < 2; k++) {
        int size = sizes[k];
        char *s = t_malloc((size_t)size), *r = t_malloc((size_t)size + 8);

        t_fill(s, (size_t)size, SEED(t_self, 80 + k));
        T_EQ(CMMD_send_and_receive(prev, 800 + k, r, size + 8, next, 800 + k, s,
                                   size),
             1, "CMMD_send_and_receive's return value");
        T_EQ(CMMD_bytes_received(), size,
             "CMMD_bytes_received() after "
             "CMMD_send_and_receive");
        T_EQ(CMMD_msg_sender(), prev,
             "CMMD_msg_sender() after "
             "CMMD_send_and_receive");
        T_PATTERN(r, (size_t)size, SEED(prev, 80 + k),
                  "CMMD_send_and_receive of %d bytes from node %d", size, prev);
        free(s);
        free(r);
    }
}

static void test_swap(void)
{
    static const int sizes[] = {1000, T_MIB};
    int partner = (t_self ^ 1) < t_nodes ? t_self ^ 1 : t_self;

    for (int k = 0; k < 2; k++) {
        int size = sizes[k];
        char *b = t_malloc((size_t)size);

        t_fill(b, (size_t)size, SEED(t_self, 90 + k));
        T_EQ(CMMD_swap(partner, 900 + k, b, size), 1,
             "CMMD_swap's return value");
        T_PATTERN(b, (size_t)size, SEED(partner, 90 + k),
                  "CMMD_swap of %d bytes with node %d", size, partner);
        free(b);
    }
}

/* A posted wildcard receive must not take the collectives' traffic. */
static void test_wildcard_vs_coll(void)
{
    int v = -1, sum, buf[4] = {1, 2, 3, 4}, out = 950 + t_self;
    CMMD_mcb m = CMMD_receive_async(CMMD_ANY_NODE, CMMD_ANY_TAG, &v,
                                    (int)sizeof(v), NULL, NULL);

    T_CHECK(m > 0, "CMMD_receive_async returned no MCB");
    sum = CMMD_reduce_int(t_self, CMMD_combiner_add);
    T_EQ(sum, t_nodes * (t_nodes - 1) / 2, "CMMD_reduce_int sum of nodes");
    if (t_self == 0)
        CMMD_bc_to_nodes(buf, (int)sizeof(buf));
    else
        CMMD_receive_bc_from_node(buf, (int)sizeof(buf));
    /* Before the barrier: no user message can have been sent yet. */
    T_CHECK(!CMMD_msg_done(m),
            "a posted ANY_NODE/ANY_TAG receive was "
            "matched by a collective (got %d)",
            v);
    CMMD_sync_with_nodes();
    CMMD_send_noblock(next, 950, &out, (int)sizeof(out));
    CMMD_msg_wait(m);
    T_EQ(CMMD_mcb_tag(m), 950,
         "tag of the message the wildcard receive "
         "got");
    T_EQ(v, 950 + prev, "value the wildcard receive got");
    CMMD_free_mcb(m);
    CMMD_all_msgs_wait();
}

int main(int argc, char **argv)
{
    t_init("prog_p2p");
    next = (t_self + 1) % t_nodes;
    prev = (t_self + t_nodes - 1) % t_nodes;
    if (argc > 1 && strcmp(argv[1], "noblock_nowait") == 0) {
        test_noblock_nowait();
        CMMD_sync_with_nodes();
        t_done();
        return 0;
    }

    test_ring();
    CMMD_sync_with_nodes();
    test_sync();
    CMMD_sync_with_nodes();
    test_send();
    CMMD_sync_with_nodes();
    test_noblock_reuse();
    CMMD_sync_with_nodes();
    test_noblock_many();
    CMMD_sync_with_nodes();
    test_noblock_sym();
    CMMD_sync_with_nodes();
    test_async_basic();
    CMMD_sync_with_nodes();
    test_async_free();
    test_async_free_in_handler();
    test_async_charm(0);
    test_async_charm(1);
    CMMD_sync_with_nodes();
    test_async_many();
    CMMD_sync_with_nodes();
    test_async_exhaust();
    CMMD_sync_with_nodes();
    test_probe();
    CMMD_sync_with_nodes();
    test_shift();
    CMMD_sync_with_nodes();
    test_swap();
    CMMD_sync_with_nodes();
    test_wildcard_vs_coll();
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
