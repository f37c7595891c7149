/*
 * prog_offer: offered receives (am/am_msg.c): a receive posted for one
 * node, longer than CM5_EAGER_MAX, is offered to it, and a send that
 * finds the offer writes its data straight into the receive.  Matching must
 * stay as CMMD's: receives in the order they were posted, each sender's
 * messages with one tag in the order they were sent, whichever way each message
 * went.  Node 0 receives; every other node sends.  All nodes draw the same
 * decisions from one seed.
 *
 *   order   rounds of K messages from each sender to node 0 with one tag,
 *           of sizes 0..70000 (eager, single copy, empty), by
 *           CMMD_send_block, _noblock and _async; node 0 posts some of
 *           its receives before the senders start and the rest at random
 *           moments while they send (the senders' earlier messages then
 *           went announced, the later ones into offers); receive i from
 *           a sender holds its message i, length and tag right, and the
 *           bytes after it untouched
 *   any     a receive for any node posted before one for node 1 with the
 *           same tag: node 1's first message goes to the first receive
 *   tags    a receive for tag 9, then one for any tag (both offered):
 *           node 1 sends tag 3 then tag 9; tag 3 lands in the second
 *           receive, tag 9 in the first (messages of 5000 bytes, written
 *           into the offers, and of 16, sent into them in one packet)
 *   path    with "rings" as the argument (single copy between the nodes):
 *           node 1 wrote into offered receives (cm5_stats puts_sent) and
 *           node 0 offered them (offers_made)
 *
 *   cm5run -n P prog_offer [rings]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#include "t_util.h"

#define ROUNDS 40
#define K 12
#define GUARD 0x5c
#define SEED(r, src, i) (((uint32_t)(r)*64u + (uint32_t)(src)) * 64u + (i))

static const int sizes[] = {0, 1, 16, 100, 4095, 4096, 4097, 9000, 70000};
#define NSIZES ((int)(sizeof(sizes) / sizeof(*sizes)))

static uint32_t rng = 12345;

static uint32_t draw(uint32_t n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

static void test_order(void)
{
    int nsend = t_nodes - 1;
    int len[K];
    unsigned char *buf[64][K];
    CMMD_mcb h[64][K];

    if (nsend < 1)
        return;
    for (int r = 0; r < ROUNDS; r++) {
        int tag = 40 + r % 5, early = (int)draw(K + 1), how = (int)draw(3);

        for (int i = 0; i < K; i++)
            len[i] = sizes[draw(NSIZES)];
        if (t_self == 0) {
            for (int s = 0; s < nsend; s++)
                for (int i = 0; i < K; i++) {
                    buf[s][i] = t_malloc((size_t)len[i] + 16);
                    memset(buf[s][i], GUARD, (size_t)len[i] + 16);
                }
            /* The early receives are posted (and offered) before the
             * senders start; the rest while they send. */
            for (int i = 0; i < early; i++)
                for (int s = 0; s < nsend; s++)
                    h[s][i] = CMMD_receive_async(s + 1, tag, buf[s][i],
                                                 len[i] + 16, NULL, NULL);
            CMMD_sync_with_nodes();
            for (int i = early; i < K; i++) {
                if (draw(2))
                    t_sleep(0.0002);
                for (int s = 0; s < nsend; s++)
                    h[s][i] = CMMD_receive_async(s + 1, tag, buf[s][i],
                                                 len[i] + 16, NULL, NULL);
            }
            for (int s = 0; s < nsend; s++)
                for (int i = 0; i < K; i++) {
                    T_CHECK(h[s][i] != CMMD_ERRVAL, "CMMD_receive_async");
                    CMMD_msg_wait(h[s][i]);
                    T_EQ(CMMD_mcb_bytes(h[s][i]), len[i],
                         "length of the message in a receive");
                    T_EQ(CMMD_mcb_tag(h[s][i]), tag, "tag of a message");
                    T_PATTERN(buf[s][i], (size_t)len[i], SEED(r, s + 1, i),
                              "round %d: receive %d from node %d (%d bytes)", r,
                              i, s + 1, len[i]);
                    for (int g = 0; g < 16; g++)
                        T_CHECK(buf[s][i][len[i] + g] == GUARD,
                                "round %d: byte %d past message %d from "
                                "node %d written",
                                r, g, i, s + 1);
                    CMMD_free_mcb(h[s][i]);
                    free(buf[s][i]);
                }
        } else {
            unsigned char *b[K];
            CMMD_mcb a[K];

            for (int i = 0; i < K; i++) {
                b[i] = t_malloc((size_t)len[i] + 1);
                t_fill(b[i], (size_t)len[i], SEED(r, t_self, i));
            }
            CMMD_sync_with_nodes();
            for (int i = 0; i < K; i++) {
                if ((i + t_self) % 4 == 0)
                    t_sleep(0.0001);
                if (how == 0)
                    CMMD_send_block(0, tag, b[i], len[i]);
                else if (how == 1)
                    CMMD_send_noblock(0, tag, b[i], len[i]);
                else
                    a[i] = CMMD_send_async(0, tag, b[i], len[i], NULL, NULL);
            }
            CMMD_all_msgs_wait();
            for (int i = 0; i < K; i++) {
                if (how == 2)
                    CMMD_free_mcb(a[i]);
                free(b[i]);
            }
        }
        /* (node 0 drew for its late posts: keep the draws in step) */
        if (t_self != 0)
            for (int i = early; i < K; i++)
                draw(2);
        CMMD_sync_with_nodes();
    }
}

/* Node 0 posts receive a (from node_a, tag_a), then b (node_b, tag_b),
 * each of RBUF bytes (offered when the node is given: longer than
 * CM5_EAGER_MAX); node 1, once the offers have come, sends len bytes
 * with tag1, then with tag2.  want_a / want_b: which of the two messages
 * (1 or 2) each receive must hold. */
#define RBUF 8192
static void two_receives(const char *what, int node_a, int tag_a, int node_b,
                         int tag_b, int tag1, int tag2, int len, int want_a,
                         int want_b)
{
    static unsigned char rb[2][RBUF], sb[RBUF];
    int want[2] = {want_a, want_b}, tags[2] = {tag1, tag2};

    if (t_nodes < 2)
        return;
    if (t_self == 0) {
        CMMD_mcb h[2];

        h[0] = CMMD_receive_async(node_a, tag_a, rb[0], RBUF, NULL, NULL);
        h[1] = CMMD_receive_async(node_b, tag_b, rb[1], RBUF, NULL, NULL);
        CMMD_sync_with_nodes();
        for (int k = 0; k < 2; k++) {
            CMMD_msg_wait(h[k]);
            T_EQ(CMMD_mcb_bytes(h[k]), len, "length of a message");
            T_EQ(CMMD_mcb_tag(h[k]), tags[want[k] - 1], "tag of a message");
            T_PATTERN(rb[k], (size_t)len, SEED(99, 1, want[k]),
                      "%s (%d bytes): receive %d should hold message %d", what,
                      len, k + 1, want[k]);
            CMMD_free_mcb(h[k]);
        }
    } else {
        CMMD_sync_with_nodes();
        if (t_self == 1) {
            t_sleep(0.01); /* (node 0's offers have come) */
            for (int k = 0; k < 2; k++) {
                t_fill(sb, (size_t)len, SEED(99, 1, k + 1));
                CMMD_send_block(0, tags[k], sb, len);
            }
        }
    }
    CMMD_sync_with_nodes();
}

/* any: a receive for any node before one for node 1 with the same tag
 * (nothing is offered then): node 1's first message goes to the first.
 * tags: one for tag 9, then one for any tag, both offered: tag 3 lands in
 * the second, tag 9 in the first.  Messages of 5000 bytes (written into
 * the offers) and of 16 (sent into them in one packet). */
static void test_two(void)
{
    static const int lens[] = {5000, 16};

    for (int i = 0; i < 2; i++) {
        two_receives("any", CMMD_ANY_NODE, 77, 1, 77, 77, 77, lens[i], 1, 2);
        two_receives("tags", 1, 9, 1, CMMD_ANY_TAG, 3, 9, lens[i], 2, 1);
    }
}

int main(int argc, char **argv)
{
    cm5_stats_t st;

    t_init("prog_offer");
    T_CHECK(t_nodes <= 65, "at most 65 nodes");
    test_order();
    test_two();
    cm5_stats(&st);
    if (argc > 1 && strcmp(argv[1], "rings") == 0 && t_nodes > 1) {
        if (t_self == 0)
            T_CHECK(st.offers_made > 0, "node 0 offered no receive");
        if (t_self == 1)
            T_CHECK(st.puts_sent > 0,
                    "node 1 wrote into no offered receive (offers_made "
                    "elsewhere, puts_sent %llu)",
                    (unsigned long long)st.puts_sent);
    }
    if (t_self <= 1)
        printf("prog_offer: node %d: offers %llu, puts %llu\n", t_self,
               (unsigned long long)st.offers_made,
               (unsigned long long)st.puts_sent);
    t_done();
    return 0;
}
