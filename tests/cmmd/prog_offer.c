/*
 * prog_offer: offered receives (am/am_msg.c): a receive posted for one
 * node is offered to it, and a send that finds the offer writes its data
 * straight into the receive.  Matching must stay as CMMD's: receives in
 * the order they were posted, each sender's messages with one tag in the
 * order they were sent, whichever way each message went.  Node 0
 * receives; every other node sends.  All nodes draw the same decisions
 * from one seed.
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
 *   tags    a receive for tag 9, then one for any tag: node 1 sends tag 3
 *           then tag 9; tag 3 lands in the second receive, tag 9 in the
 *           first
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

static void test_any(void)
{
    int v[2] = {-1, -1}, out;
    CMMD_mcb h0, h1;

    if (t_nodes < 2)
        return;
    if (t_self == 0) {
        h0 = CMMD_receive_async(CMMD_ANY_NODE, 77, &v[0], sizeof(int), NULL,
                                NULL);
        h1 = CMMD_receive_async(1, 77, &v[1], sizeof(int), NULL, NULL);
        CMMD_sync_with_nodes();
        CMMD_msg_wait(h0);
        CMMD_msg_wait(h1);
        T_EQ(v[0], 1001, "the receive for any node got node 1's first");
        T_EQ(v[1], 1002, "the receive for node 1 got its second");
        CMMD_free_mcb(h0);
        CMMD_free_mcb(h1);
    } else {
        CMMD_sync_with_nodes();
        if (t_self == 1) {
            t_sleep(0.01); /* (node 0's offers have come) */
            out = 1001;
            CMMD_send_block(0, 77, &out, sizeof(int));
            out = 1002;
            CMMD_send_block(0, 77, &out, sizeof(int));
        }
    }
    CMMD_sync_with_nodes();
}

static void test_tags(void)
{
    int v[2] = {-1, -1}, out;
    CMMD_mcb h9, hany;

    if (t_nodes < 2)
        return;
    if (t_self == 0) {
        h9 = CMMD_receive_async(1, 9, &v[0], sizeof(int), NULL, NULL);
        hany =
            CMMD_receive_async(1, CMMD_ANY_TAG, &v[1], sizeof(int), NULL, NULL);
        CMMD_sync_with_nodes();
        CMMD_msg_wait(h9);
        CMMD_msg_wait(hany);
        T_EQ(v[0], 9, "the receive for tag 9 got the tag-9 message");
        T_EQ(v[1], 3, "the receive for any tag got the tag-3 message");
        T_EQ(CMMD_mcb_tag(hany), 3, "tag of the message for any tag");
        CMMD_free_mcb(h9);
        CMMD_free_mcb(hany);
    } else {
        CMMD_sync_with_nodes();
        if (t_self == 1) {
            t_sleep(0.01);
            out = 3;
            CMMD_send_block(0, 3, &out, sizeof(int));
            out = 9;
            CMMD_send_block(0, 9, &out, sizeof(int));
        }
    }
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    cm5_stats_t st;

    t_init("prog_offer");
    T_CHECK(t_nodes <= 65, "at most 65 nodes");
    test_order();
    test_any();
    test_tags();
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
