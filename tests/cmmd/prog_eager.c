/*
 * prog_eager: eager small messages (CM5_EAGER_MAX), seen through the
 * CMMD calls and the counters of cm5_stats().  Expected counts come from
 * the rule of am/am_msg.c: a message of at most CM5_EAGER_MAX bytes goes
 * eagerly while its sender's budget at the receiver lasts; the budget is
 * 16 * (CM5_EAGER_MAX + 64) bytes per peer (at most 1 MiB / nodes, at
 * least one message), a message costs its bytes + 64 and its cost comes
 * back once a receive took it.  With CM5_EAGER_MAX=0 nothing is eager;
 * over tcp (ofi_rxm) it is at most 1536 (msg_eager_fit).
 *
 * "prog_eager all" (2 or more nodes; ANY_NODE needs 3):
 *   bound   node 1 sends K 16-byte CMMD_send_noblock messages and a
 *           marker to node 0, which receives none until the marker is
 *           pending: exactly B = budget / 80 went eagerly and were
 *           buffered at node 0 (eager_unexpected), the other K - B and
 *           the marker went by rendezvous (eager_over_bound); all are
 *           received in order with the right bytes
 *   mixed   node 1 sends 240 messages with one tag, sizes around the
 *           threshold (0, 1, 16, 100, max, max + 1, 2000, 9000) through
 *           CMMD_send_noblock, _async, _block and _noblock_v while node 0
 *           receives them with CMMD_receive_block, late: each arrives in
 *           order, with its length and bytes
 *   sizes   node 1 sends 600 messages of every size 0, 37, 74, ... up to
 *           CM5_EAGER_MAX + 1, node 0 receives them in batches: lengths
 *           and bytes right, nothing written past them (on the rings,
 *           records of every length cross the ring's end)
 *   posted  node 0 posts 64 CMMD_receive_async first (fewer if the
 *           budget holds fewer): all go eagerly into them, none is
 *           buffered
 *   any     every other node sends 30 messages to node 0, which takes
 *           them with ANY_NODE/ANY_TAG (and a CMMD_mcb_pending probe):
 *           per sender in order, sender, tag and length right
 *   sync    CMMD_send_block of an eager message returns only once the
 *           receiver has posted its receive (node 1 posts it 0.3 s late)
 *   path    every packet took the same-host rings, or libfabric when
 *           the job named a provider or set CM5_SHM=off
 * "prog_eager trunc_unexpected" / "trunc_posted" (2 nodes): a 100-byte
 *   message into a 50-byte receive, arrived before the receive or after:
 *   the receiver stops the job with the usual message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#include "t_util.h"

#define SEED(src, i) ((uint32_t)(src)*100000u + (uint32_t)(i))

static long eager_max;

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);

    return s && *s ? strtol(s, NULL, 10) : dflt;
}

/* The per-peer budget (am/am_msg.c, msg_eager_window). */
static long eager_window(void)
{
    long one = eager_max + 64, w = 16 * one;

    if (!eager_max)
        return 0;
    if ((long)t_nodes * w > (1L << 20))
        w = (1L << 20) / t_nodes;
    return w < one ? one : w;
}

static cm5_stats_t stats(void)
{
    cm5_stats_t st;

    cm5_stats(&st);
    return st;
}

/* Every message of the phase is done, then a barrier. */
static void phase_end(void)
{
    CMMD_all_msgs_wait();
    CMMD_sync_with_nodes();
}

/* ---- bound ---- */

static void test_bound(void)
{
    long b = eager_window() / (16 + 64), k = b + 40;
    unsigned char buf[16];
    cm5_stats_t st0, st1;

    /* With interrupts, node 0's interrupt thread buffers what arrives
     * before its first count: count first. */
    st0 = stats();
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        for (long i = 0; i < k; i++) {
            t_fill(buf, 16, SEED(1, i));
            CMMD_send_noblock(0, 7, buf, 16);
        }
        CMMD_send_noblock(0, 8, buf, 16); /* the marker */
        /* (Sends short of flow-control credits leave later, but were
         * made eager or not by the call.) */
        CMMD_all_msgs_wait();
        st1 = stats();
        T_EQ(st1.eager_sent - st0.eager_sent, b,
             "messages sent eagerly before the bound");
        T_EQ(st1.eager_over_bound - st0.eager_over_bound,
             eager_max ? k - b + 1 : 0,
             "messages sent by rendezvous past the bound");
    } else if (t_self == 0) {
        T_POLL_UNTIL(CMMD_msg_pending(1, 8), 30.0, "the marker never came");
        st1 = stats();
        T_EQ(st1.eager_unexpected - st0.eager_unexpected, b,
             "eager messages buffered before their receive");
        for (long i = 0; i < k; i++) {
            memset(buf, 0xee, sizeof(buf));
            CMMD_receive_block(1, 7, buf, 16);
            T_EQ(CMMD_bytes_received(), 16, "CMMD_bytes_received()");
            T_PATTERN(buf, 16, SEED(1, i), "bound: message %ld of %ld", i, k);
        }
        CMMD_receive_block(1, 8, buf, 16);
    }
    phase_end();
}

/* ---- mixed ---- */

static int mixed_size(int i)
{
    int sizes[8] = {16,  9000, 0, (int)eager_max, (int)eager_max + 1,
                    100, 2000, 1};

    return sizes[i % 8];
}

static void test_mixed(void)
{
    enum { M = 240, BIG = 16384 };
    unsigned char *buf = t_malloc(BIG), *wide = t_malloc(2 * BIG);

    if (t_self == 1) {
        for (int i = 0; i < M; i++) {
            int len = mixed_size(i);
            CMMD_mcb h;

            t_fill(buf, (size_t)len, SEED(1, i));
            switch (i % 4) {
            case 0:
                CMMD_send_noblock(0, 9, buf, len);
                break;
            case 1:
                h = CMMD_send_async(0, 9, buf, len, NULL, NULL);
                T_CHECK(h != CMMD_ERRVAL, "CMMD_send_async failed");
                CMMD_msg_wait(h);
                CMMD_free_mcb(h);
                break;
            case 2:
                CMMD_send_block(0, 9, buf, len);
                break;
            default: /* 4-byte elements 8 bytes apart */
                for (int e = 0; e < len / 4; e++)
                    memcpy(wide + 8 * e, buf + 4 * e, 4);
                CMMD_send_noblock_v(0, 9, wide, 4, len / 4, 8);
                break;
            }
        }
    } else if (t_self == 0) {
        t_sleep(0.2); /* let some arrive first */
        for (int i = 0; i < M; i++) {
            int len = mixed_size(i);

            if (i % 4 == 3)
                len -= len % 4; /* sent as 4-byte elements */

            CMMD_receive_block(1, 9, buf, BIG);
            T_EQ(CMMD_bytes_received(), len, "mixed: message length");
            T_PATTERN(buf, (size_t)len, SEED(1, i),
                      "mixed: message %d (%d "
                      "bytes)",
                      i, len);
        }
    }
    free(buf);
    free(wide);
    phase_end();
}

/* ---- sizes ---- */

/* Every size from 0 to CM5_EAGER_MAX + 1 in steps of 37 bytes, 600
 * messages: on the same-host rings, records of every number of slots
 * start at every offset and cross the end of the ring in every place. */
static void test_sizes(void)
{
    enum { N = 600 };
    long span = eager_max + 2;
    unsigned char *buf = t_malloc((size_t)span + 64);

    if (t_self == 1) {
        for (int i = 0; i < N; i++) {
            int len = (int)((37L * i) % span);

            t_fill(buf, (size_t)len, SEED(1, i));
            CMMD_send_noblock(0, 10, buf, len);
        }
    } else if (t_self == 0) {
        for (int i = 0; i < N; i++) {
            int len = (int)((37L * i) % span);

            if (i % 50 == 0)
                t_sleep(0.01); /* let some arrive first */
            memset(buf, 0xee, (size_t)span + 64);
            CMMD_receive_block(1, 10, buf, (int)span + 64);
            T_EQ(CMMD_bytes_received(), len, "sizes: message length");
            T_PATTERN(buf, (size_t)len, SEED(1, i),
                      "sizes: message %d (%d "
                      "bytes)",
                      i, len);
            T_CHECK(buf[len] == 0xee,
                    "sizes: a byte written after message "
                    "%d (%d bytes)",
                    i, len);
        }
    }
    free(buf);
    phase_end();
}

/* ---- posted ---- */

static void test_posted(void)
{
    enum { NMAX = 64 };
    static unsigned char bufs[NMAX][16];
    CMMD_mcb h[NMAX];
    cm5_stats_t st0 = stats(), st1;
    long b = eager_window() / (16 + 64);
    int N = eager_max && b < NMAX ? (int)b : NMAX; /* within the budget */

    if (t_self == 0)
        for (int i = 0; i < N; i++) {
            h[i] = CMMD_receive_async(1, 11, bufs[i], 16, NULL, NULL);
            T_CHECK(h[i] != CMMD_ERRVAL, "CMMD_receive_async failed");
        }
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        for (int i = 0; i < N; i++) {
            t_fill(bufs[i], 16, SEED(2, i));
            CMMD_send_noblock(0, 11, bufs[i], 16);
        }
        st1 = stats();
        T_EQ(st1.eager_sent - st0.eager_sent, eager_max ? N : 0,
             "posted: messages sent eagerly");
    } else if (t_self == 0) {
        for (int i = 0; i < N; i++) {
            CMMD_msg_wait(h[i]);
            T_PATTERN(bufs[i], 16, SEED(2, i), "posted: message %d", i);
            CMMD_free_mcb(h[i]);
        }
        st1 = stats();
        T_EQ(st1.eager_unexpected - st0.eager_unexpected, 0,
             "posted: eager messages buffered");
    }
    phase_end();
}

/* ---- any ---- */

static void test_any(void)
{
    enum { N = 30 };
    unsigned char buf[64];

    if (t_nodes < 3)
        return;
    if (t_self > 0) {
        for (int i = 0; i < N; i++) {
            t_fill(buf, (size_t)(8 + t_self), SEED(t_self, i));
            CMMD_send_noblock(0, 20 + i % 3, buf, 8 + t_self);
        }
    } else {
        int *next = calloc((size_t)t_nodes, sizeof(int));
        CMMD_mcb p;

        T_CHECK(next, "out of memory");
        T_POLL_UNTIL(CMMD_msg_pending(CMMD_ANY_NODE, 20), 30.0,
                     "no message with tag 20 came");
        p = CMMD_mcb_pending(CMMD_ANY_NODE, 20);
        T_CHECK(p > 0, "CMMD_mcb_pending found nothing");
        T_EQ(CMMD_mcb_bytes(p), 8 + CMMD_mcb_node(p), "probed length");
        T_EQ(CMMD_mcb_tag(p), 20, "probed tag");
        CMMD_free_mcb(p);
        for (int j = 0; j < N * (t_nodes - 1); j++) {
            int src, i;

            CMMD_receive_block(CMMD_ANY_NODE, CMMD_ANY_TAG, buf, sizeof(buf));
            src = CMMD_msg_sender();
            T_CHECK(src > 0 && src < t_nodes, "sender %d", src);
            i = next[src]++;
            T_EQ(CMMD_msg_tag(), 20 + i % 3, "any: tag");
            T_EQ(CMMD_bytes_received(), 8 + src, "any: length");
            T_PATTERN(buf, (size_t)(8 + src), SEED(src, i),
                      "any: message %d from node %d", i, src);
        }
        free(next);
    }
    phase_end();
}

/* ---- sync ---- */

static void test_sync(void)
{
    unsigned char buf[32];
    double t0;

    if (t_self == 1) {
        t_sleep(0.3);
        CMMD_receive_block(0, 12, buf, sizeof(buf));
        T_PATTERN(buf, 32, SEED(3, 0), "sync: message");
    } else if (t_self == 0) {
        t_fill(buf, 32, SEED(3, 0));
        t0 = t_now();
        CMMD_send_block(1, 12, buf, 32);
        T_CHECK(t_now() - t0 > 0.2,
                "CMMD_send_block returned after %.3f s, "
                "before the receive was posted",
                t_now() - t0);
    }
    phase_end();
}

/* Which path carried the packets: the same-host rings unless the job
 * named a provider (cm5run --provider) or CM5_SHM=off, libfabric then
 * (CM5_SHM=on keeps the rings beside a named provider).  A job across
 * hosts (CM5TEST_TWO_PATHS=1, tests/cluster/paths.sh) takes either, by
 * the peer's host (paths.sh checks the counts by path). */
static void check_path(void)
{
    const char *shm = getenv("CM5_SHM"), *prov = getenv("CM5_PROVIDER"),
               *two = getenv("CM5TEST_TWO_PATHS");
    int rings = shm && strcmp(shm, "on") == 0
                    ? 1
                    : !(shm && strcmp(shm, "off") == 0) && !(prov && *prov);
    cm5_stats_t st = stats();

    if (two && strcmp(two, "1") == 0) { /* (which: by the peer's host) */
        T_CHECK(st.shm_sent + st.fabric_sent > 0, "no packet sent");
    } else if (rings) {
        T_EQ(st.fabric_sent, 0, "packets sent through libfabric");
        T_CHECK(st.shm_sent > 0, "no packet through the rings");
    } else {
        T_EQ(st.shm_sent, 0, "packets sent through the rings");
        T_CHECK(st.fabric_sent > 0, "no packet through libfabric");
    }
}

static void too_long(int posted)
{
    unsigned char buf[100] = {0};

    if (t_self == 1) {
        if (posted) {
            CMMD_mcb h = CMMD_receive_async(0, 5, buf, 50, NULL, NULL);

            CMMD_sync_with_nodes();
            CMMD_msg_wait(h);
        } else {
            CMMD_sync_with_nodes();
            T_POLL_UNTIL(CMMD_msg_pending(0, 5), 30.0, "nothing came");
            CMMD_receive_block(0, 5, buf, 50);
        }
    } else if (t_self == 0) {
        CMMD_sync_with_nodes();
        CMMD_send_noblock(1, 5, buf, 100);
    }
    for (;;)
        CMMD_poll();
}

int main(int argc, char **argv)
{
    t_init("prog_eager");
    eager_max = env_long("CM5_EAGER_MAX", 4096);
    /* ofi_rxm keeps order up to FI_OFI_RXM_BUFFER_SIZE (2048) - 512. */
    if ((strstr(cm5_provider(), "ofi_rxm") ||
         strncmp(cm5_provider(), "tcp", 3) == 0) &&
        eager_max > 1536)
        eager_max = 1536;
    if (argc > 1 && strcmp(argv[1], "trunc_unexpected") == 0)
        too_long(0);
    if (argc > 1 && strcmp(argv[1], "trunc_posted") == 0)
        too_long(1);
    test_bound();
    test_mixed();
    test_sizes();
    test_posted();
    test_any();
    test_sync();
    check_path();
    if (t_self == 0) {
        cm5_stats_t st = stats();

        printf("prog_eager: node 0: eager sent %llu, buffered %llu, over "
               "the bound %llu\n",
               (unsigned long long)st.eager_sent,
               (unsigned long long)st.eager_unexpected,
               (unsigned long long)st.eager_over_bound);
    }
    t_done();
    return 0;
}
