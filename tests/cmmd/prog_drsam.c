/*
 * prog_drsam: DRS_N as its authors wrote it on CMAML (wang1993, ranka1995;
 * issue 24): Generate_Recv by active messages, a test-and-set inquiry per
 * destination, CMAML_scopy into an rport the receiver allocated in its
 * request handler, a release request, then
 * "while (arrived < expected) CMAML_poll();" and a final barrier.
 *
 *   prog_drsam D MINLEN MAXLEN ROUNDS SEED [after]
 *
 * Each round every node sends one message to each of D destinations
 * drawn from SEED and the round (lengths MINLEN..MAXLEN bytes, drawn too);
 * every byte is checked.  The receiver frees the rport in its handler
 * when the data is in; the sender releases the receiver (its
 * test-and-set flag) from the scopy's completion handler, or with
 * "after" right after CMAML_scopy returns.  An inquiry the receiver
 * denies (it is busy with another sender) is retried after the others.
 * Rounds alternate a barrier with a reduction of the bytes received
 * (which every node checks against the bytes sent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

#define MAXN 256

static int D, minlen, maxlen, rounds, release_after;
static uint32_t seed;

/* Receiver side. */
static volatile int expected, arrived, busy, bad;
static volatile long bytes_in;
static unsigned char *rbuf[MAXN];   /* per sender, this round */
static volatile int rlen[MAXN];     /* announced by Generate_Recv */
static volatile int rport_of[MAXN]; /* per sender, while it sends */

/* Sender side. */
static volatile int answer, granted_rport;
static volatile int released_pending;

static uint32_t msg_seed(int src, int dst, int round)
{
    return t_hash(seed ^ (uint32_t)round * 0x9e37u,
                  (uint32_t)(src * MAXN + dst));
}

static int msg_len(int src, int dst, int round)
{
    uint32_t h = t_hash(msg_seed(src, dst, round), 7);

    return minlen + (int)(h % (uint32_t)(maxlen - minlen + 1));
}

/* The D destinations of src in round: distinct, not src. */
static void dests(int src, int round, int *out)
{
    int n = 0;

    for (uint32_t i = 0; n < D; i++) {
        int d =
            (int)(t_hash(seed + (uint32_t)round, (uint32_t)(src * 7919) + i) %
                  (uint32_t)t_nodes);
        int dup = d == src;

        for (int k = 0; k < n; k++)
            dup |= out[k] == d;
        if (!dup)
            out[n++] = d;
    }
}

/* ---- Generate_Recv ---- */

static void gen_recv_handler(int src, int len)
{
    rlen[src] = len;
    expected++;
}

/* ---- the transfer ---- */

/* The data is in: the rport goes back (CM-5 code freed it here). */
static void arrival_handler(int rport, void *arg2)
{
    CMAML_free_rport(rport);
    arrived++;
    bytes_in += rlen[(int)(long)arg2];
}

static void answer_handler(int ok, int rport)
{
    granted_rport = rport;
    answer = ok ? 1 : -1;
}

/* The test-and-set: grant (allocating an rport for src's bytes) or deny. */
static void inquiry_handler(int src)
{
    int rp;

    if (busy) {
        CMAML_reply(src, (CMAML_handler_t)answer_handler, 0, -1);
        return;
    }
    rp = CMAML_allocate_rport();
    if (rp < 0) {
        CMAML_reply(src, (CMAML_handler_t)answer_handler, 0, -1);
        return;
    }
    busy = 1;
    rbuf[src] = malloc((size_t)rlen[src] + 1);
    if (!rbuf[src])
        bad++;
    rport_of[src] = rp;
    CMAML_set_rport_addr(rp, rbuf[src]);
    CMAML_set_rport_byte_counter(rp, rlen[src]);
    CMAML_set_rport_handler(rp, (CMAML_handler_t)arrival_handler);
    CMAML_set_rport_handler_arg2(rp, (void *)(long)src);
    CMAML_reply(src, (CMAML_handler_t)answer_handler, 1, rp);
}

/* The sender is done with this receiver: the next may have it. */
static void release_handler(int src)
{
    (void)src;
    if (!busy)
        bad++;
    busy = 0;
}

static void scopy_done(void *arg)
{
    int dst = (int)(long)arg;

    CMAML_request(dst, (CMAML_handler_t)release_handler, t_self);
    released_pending--;
}

static void round_run(int round)
{
    int d[MAXN], left[MAXN], nleft = D, sent_bytes = 0;
    unsigned char *sbuf[MAXN];
    long in_total;

    dests(t_self, round, d);
    /* (The counters were reset before the last barrier: a faster node's
     * Generate_Recv may already have run, by interrupt.) */
    /* Generate_Recv: tell each destination what is coming. */
    for (int k = 0; k < D; k++) {
        int len = msg_len(t_self, d[k], round);

        sbuf[k] = malloc((size_t)len);
        T_CHECK(sbuf[k] != NULL, "malloc");
        t_fill(sbuf[k], (size_t)len, msg_seed(t_self, d[k], round));
        CMAML_request(d[k], (CMAML_handler_t)gen_recv_handler, t_self, len);
        left[k] = k;
        sent_bytes += len;
    }
    CMMD_sync_with_nodes();
    /* A barrier does not deliver what was sent before it (the CM-5's did
     * not either): wait for every Generate_Recv; who sends here is known
     * (dests). */
    {
        int want = 0, dd[MAXN];

        for (int s = 0; s < t_nodes; s++) {
            dests(s, round, dd);
            for (int k = 0; k < D; k++)
                want += dd[k] == t_self;
        }
        T_POLL_UNTIL(expected >= want, 60, "round %d: %d of %d announced",
                     round, expected, want);
        T_EQ(expected, want, "Generate_Recv announcements");
    }
    released_pending = 0;
    while (nleft > 0) {
        int progress = 0;

        for (int i = 0; i < nleft; i++) {
            int k = left[i], len = msg_len(t_self, d[k], round);

            answer = 0;
            CMAML_request(d[k], (CMAML_handler_t)inquiry_handler, t_self);
            T_POLL_UNTIL(answer != 0, 60, "round %d: no answer from node %d",
                         round, d[k]);
            if (answer < 0)
                continue;
            if (release_after) {
                CMAML_scopy(d[k], granted_rport, 0, 0, sbuf[k], len, NULL,
                            NULL);
                CMAML_request(d[k], (CMAML_handler_t)release_handler, t_self);
            } else {
                released_pending++;
                CMAML_scopy(d[k], granted_rport, 0, 0, sbuf[k], len,
                            (CMAML_handler_t)scopy_done, (void *)(long)d[k]);
            }
            left[i] = left[--nleft];
            i--;
            progress = 1;
        }
        if (!progress)
            CMAML_poll();
    }
    while (arrived < expected)
        CMAML_poll();
    /* Check every byte of what arrived. */
    for (int s = 0; s < t_nodes; s++)
        if (rbuf[s]) {
            long at =
                t_diff(rbuf[s], (size_t)rlen[s], msg_seed(s, t_self, round));

            T_CHECK(at < 0,
                    "round %d: byte %ld of the %d bytes from node %d "
                    "is wrong",
                    round, at, rlen[s], s);
            free(rbuf[s]);
            rbuf[s] = NULL;
        }
    if (round % 2) {
        CMMD_sync_with_nodes();
    } else {
        in_total = CMMD_reduce_int((int)bytes_in, CMMD_combiner_add);
        T_EQ(in_total, CMMD_reduce_int(sent_bytes, CMMD_combiner_add),
             "bytes received against bytes sent");
    }
    /* The scopy handlers sent their releases (buffers then freed). */
    T_POLL_UNTIL(released_pending == 0 && !busy, 60,
                 "round %d: releases outstanding", round);
    expected = arrived = 0;
    bytes_in = 0;
    CMMD_sync_with_nodes();
    for (int k = 0; k < D; k++)
        free(sbuf[k]);
}

int main(int argc, char **argv)
{
    t_init("prog_drsam");
    if (argc < 6) {
        fprintf(stderr, "usage: prog_drsam D MINLEN MAXLEN ROUNDS SEED "
                        "[after]\n");
        return 2;
    }
    D = atoi(argv[1]);
    minlen = atoi(argv[2]);
    maxlen = atoi(argv[3]);
    rounds = atoi(argv[4]);
    seed = (uint32_t)strtoul(argv[5], NULL, 0);
    release_after = argc > 6 && strcmp(argv[6], "after") == 0;
    if (D >= t_nodes)
        D = t_nodes - 1;
    T_CHECK(t_nodes <= MAXN && minlen >= 1 && maxlen >= minlen,
            "bad arguments");
    CMMD_sync_with_nodes(); /* (with interrupts: every node is set up) */
    for (int r = 0; r < rounds; r++)
        round_run(r);
    T_EQ(bad, 0, "protocol errors (release without grant, no memory)");
    t_done();
    return 0;
}
