/*
 * prog_rport: CMAML rports and scopy, written as legacy code would
 * against <cm/cmmd.h>.  Prints "prog_rport: node I of N ok" at the end.
 *
 *   local      CMAML_number_of_rports() == 128, allocate / allocate_this /
 *              free and CMAML_number_of_free_rports(), every setter read
 *              back by its getter, all 128 allocatable and then
 *              CMAML_allocate_rport() == -1
 *   gather     1 MiB scopied into node 0's rport in chunks of odd sizes,
 *              each sender sending its chunks in a shuffled order: every
 *              byte checked, the rport handler runs exactly once, with
 *              (rport, arg2), when the byte counter reaches 0; each
 *              sender's sent handler runs once per chunk with its argument
 *   alltoall   every node scopies a block into every node's rport
 *   rearm      the handler re-arms the byte counter for a second round;
 *              total_nbytes counts what landed
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

static void dummy_handler(int rport, void *arg2)
{
    (void)rport;
    (void)arg2;
}

static void test_local(void)
{
    int r, r2, want2, all[128], seen[128];
    static int x;

    T_EQ(CMAML_number_of_rports(), 128, "CMAML_number_of_rports()");
    T_EQ(CMAML_NUMBER_OF_RPORTS, 128, "CMAML_NUMBER_OF_RPORTS");
    T_EQ(CMAML_number_of_free_rports(), 128, "free rports at start");
    r = CMAML_allocate_rport();
    T_CHECK(r >= 0 && r < 128, "CMAML_allocate_rport() returned %d", r);
    T_EQ(CMAML_number_of_free_rports(), 127,
         "free rports after one "
         "allocation");
    want2 = r == 77 ? 78 : 77;
    r2 = CMAML_allocate_this_rport(want2);
    T_EQ(r2, want2, "CMAML_allocate_this_rport of a free rport");
    T_EQ(CMAML_allocate_this_rport(want2), -1,
         "CMAML_allocate_this_rport "
         "of a taken rport");
    T_EQ(CMAML_allocate_this_rport(r), -1,
         "CMAML_allocate_this_rport of "
         "the rport allocate_rport gave");
    T_EQ(CMAML_number_of_free_rports(), 126, "free rports after two");

    CMAML_set_rport_addr(r, &x);
    CMAML_set_rport_byte_counter(r, 123456);
    CMAML_set_rport_total_nbytes(r, 789);
    CMAML_set_rport_handler(r, dummy_handler);
    CMAML_set_rport_handler_arg2(r, (void *)&all[3]);
    T_CHECK(CMAML_get_rport_addr(r) == &x, "CMAML_get_rport_addr");
    T_EQ(CMAML_get_rport_byte_counter(r), 123456,
         "CMAML_get_rport_byte_counter");
    T_EQ(CMAML_get_rport_total_nbytes(r), 789, "CMAML_get_rport_total_nbytes");
    T_CHECK(CMAML_get_rport_handler(r) == (CMAML_handler_t)dummy_handler,
            "CMAML_get_rport_handler");
    T_CHECK(CMAML_get_rport_handler_arg2(r) == (void *)&all[3],
            "CMAML_get_rport_handler_arg2");
    /* The other rport is untouched. */
    T_EQ(CMAML_get_rport_byte_counter(r2), 0,
         "byte counter of a fresh "
         "rport");
    CMAML_set_rport_byte_counter(r, 0);
    T_EQ(CMAML_get_rport_byte_counter(r), 0, "byte counter set to 0");
    CMAML_free_rport(r);
    CMAML_free_rport(r2);
    T_EQ(CMAML_number_of_free_rports(), 128, "free rports after freeing");

    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < 128; i++) {
        all[i] = CMAML_allocate_rport();
        T_CHECK(all[i] >= 0 && all[i] < 128 && !seen[all[i]],
                "allocation %d of 128 returned %d", i, all[i]);
        seen[all[i]] = 1;
        T_EQ(CMAML_number_of_free_rports(), 127 - i, "free rports");
    }
    T_EQ(CMAML_allocate_rport(), -1,
         "CMAML_allocate_rport() with none "
         "free");
    T_EQ(CMAML_allocate_this_rport(5), -1,
         "CMAML_allocate_this_rport(5) "
         "with none free");
    T_EQ(CMAML_number_of_free_rports(), 0, "free rports when all are taken");
    CMAML_free_rport(all[64]);
    T_EQ(CMAML_allocate_rport(), all[64], "the only free rport");
    for (int i = 0; i < 128; i++)
        CMAML_free_rport(all[i]);
    T_EQ(CMAML_number_of_free_rports(), 128, "free rports at the end");
}

/* ---- 1 MiB gathered into node 0 ---- */

#define GATHER_SEED 4242u

typedef struct {
    int calls;
    int rport;
    void *arg2;
    double when;
} rctx_t;

static volatile int sent_calls;
static int *sent_count; /* per chunk */
static rctx_t gather_ctx;
static int gather_marker;

static void gather_handler(int rport, void *arg2)
{
    gather_ctx.calls++;
    gather_ctx.rport = rport;
    gather_ctx.arg2 = arg2;
}

static void sent_handler(void *arg)
{
    sent_count[(int *)arg - sent_count]++;
    sent_calls++;
}

/* Chunk c of the 1 MiB: odd sizes between 1 and ~16 KiB. */
static int chunks(int *off, int *len)
{
    int n = 0, o = 0;

    while (o < T_MIB) {
        int l = 1 + (int)(t_hash((uint32_t)n, 17) % 16384);

        if (o + l > T_MIB)
            l = T_MIB - o;
        if (off) {
            off[n] = o;
            len[n] = l;
        }
        o += l;
        n++;
    }
    return n;
}

static void test_gather(void)
{
    int nch = chunks(NULL, NULL), *off = t_malloc(sizeof(int) * (size_t)nch);
    int *len = t_malloc(sizeof(int) * (size_t)nch), rport = -1, mine = 0;
    int *order = t_malloc(sizeof(int) * (size_t)nch);
    int senders = t_nodes > 1 ? t_nodes - 1 : 1;
    int me = t_nodes > 1 ? t_self - 1 : 0; /* sender index */
    unsigned char *src = t_malloc(T_MIB), *dst = NULL;

    chunks(off, len);
    sent_count = calloc((size_t)nch, sizeof(int));
    T_CHECK(sent_count, "out of memory");
    t_fill(src, T_MIB, GATHER_SEED);
    if (t_self == 0) {
        dst = t_malloc(T_MIB);
        memset(dst, 0xEE, T_MIB);
        rport = CMAML_allocate_rport();
        T_CHECK(rport >= 0, "CMAML_allocate_rport() returned %d", rport);
        CMAML_set_rport_addr(rport, dst);
        CMAML_set_rport_byte_counter(rport, T_MIB);
        CMAML_set_rport_total_nbytes(rport, 0);
        CMAML_set_rport_handler(rport, gather_handler);
        CMAML_set_rport_handler_arg2(rport, &gather_marker);
        CMMD_bc_to_nodes(&rport, (int)sizeof(rport));
    } else {
        CMMD_receive_bc_from_node(&rport, (int)sizeof(rport));
    }
    CMMD_sync_with_nodes(); /* the rport is ready */

    if (me >= 0) {
        uint32_t s = (uint32_t)t_self * 7919u + 1;

        for (int c = me; c < nch; c += senders)
            order[mine++] = c;
        for (int i = mine - 1; i > 0; i--) { /* shuffle */
            int j, t;

            s = s * 1103515245u + 12345u;
            j = (int)((s >> 8) % (uint32_t)(i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < mine; i++) {
            int c = order[i];

            CMAML_scopy(0, rport, 0, off[c], src + off[c], len[c],
                        (CMAML_handler_t)sent_handler, &sent_count[c]);
        }
        T_POLL_UNTIL(sent_calls == mine, 30,
                     "%d of %d sent handlers ran "
                     "in 30 s",
                     sent_calls, mine);
        for (int i = 0; i < mine; i++)
            T_EQ(sent_count[order[i]], 1, "sent handler calls of a chunk");
    }
    if (t_self == 0) {
        T_POLL_UNTIL(gather_ctx.calls > 0, 30,
                     "the rport handler did not "
                     "run within 30 s (byte counter %d)",
                     CMAML_get_rport_byte_counter(rport));
        T_EQ(gather_ctx.rport, rport, "rport argument of the rport handler");
        T_CHECK(gather_ctx.arg2 == &gather_marker, "arg2 of the rport "
                                                   "handler");
        T_EQ(CMAML_get_rport_byte_counter(rport), 0,
             "byte counter when "
             "the handler ran");
        T_EQ(CMAML_get_rport_total_nbytes(rport), T_MIB,
             "CMAML_get_rport_total_nbytes after 1 MiB");
        T_PATTERN(dst, T_MIB, GATHER_SEED,
                  "1 MiB scopied in %d chunks by "
                  "%d nodes",
                  nch, senders);
    }
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        double t0 = t_now();

        while (t_now() - t0 < 0.05)
            CMMD_poll();
        T_EQ(gather_ctx.calls, 1, "calls of the rport handler");
        CMAML_free_rport(rport);
        free(dst);
    }
    free(off);
    free(len);
    free(order);
    free(src);
    free(sent_count);
}

/* ---- all to all ---- */

#define BLOCK 4096
static volatile int a2a_calls;

static void a2a_handler(int rport, void *arg2)
{
    (void)rport;
    (void)arg2;
    a2a_calls++;
}

static void test_alltoall(void)
{
    int *rports = t_malloc(sizeof(int) * (size_t)t_nodes), mine;
    unsigned char *dst = t_malloc((size_t)BLOCK * (size_t)t_nodes);
    unsigned char *src = t_malloc((size_t)BLOCK * (size_t)t_nodes);

    /* Allocate a varying number first so rport numbers differ. */
    for (int i = 0; i < t_self % 4; i++)
        CMAML_allocate_this_rport(100 + i);
    mine = CMAML_allocate_rport();
    T_CHECK(mine >= 0, "CMAML_allocate_rport() returned %d", mine);
    memset(dst, 0, (size_t)BLOCK * (size_t)t_nodes);
    CMAML_set_rport_addr(mine, dst);
    CMAML_set_rport_byte_counter(mine, BLOCK * t_nodes);
    CMAML_set_rport_handler(mine, a2a_handler);
    CMMD_concat_with_nodes(&mine, rports, (int)sizeof(int));
    CMMD_sync_with_nodes();
    for (int k = 1; k <= t_nodes; k++) {
        int d = (t_self + k) % t_nodes;

        t_fill(src + (size_t)d * BLOCK, BLOCK,
               7000 + (uint32_t)(t_self * 64 + d));
        CMAML_scopy(d, rports[d], 0, t_self * BLOCK, src + (size_t)d * BLOCK,
                    BLOCK, NULL, NULL);
    }
    T_POLL_UNTIL(a2a_calls == 1, 30,
                 "the rport handler did not run within "
                 "30 s (byte counter %d)",
                 CMAML_get_rport_byte_counter(mine));
    for (int s = 0; s < t_nodes; s++)
        T_PATTERN(dst + (size_t)s * BLOCK, BLOCK,
                  7000 + (uint32_t)(s * 64 + t_self),
                  "block scopied by node %d", s);
    CMMD_sync_with_nodes(); /* every scopy has landed everywhere */
    T_EQ(a2a_calls, 1, "calls of the all-to-all rport handler");
    CMAML_free_rport(mine);
    for (int i = 0; i < t_self % 4; i++)
        CMAML_free_rport(100 + i);
    T_EQ(CMAML_number_of_free_rports(), 128, "free rports afterwards");
    free(rports);
    free(dst);
    free(src);
}

/* ---- a handler that re-arms its rport ---- */

static volatile int rearm_calls;

static void rearm_handler(int rport, void *arg2)
{
    rearm_calls++;
    if (rearm_calls == 1)
        CMAML_set_rport_byte_counter(rport, (int)(long)arg2);
}

static void test_rearm(void)
{
    static char dst[200], src[200];
    int rport = 9, sender = t_nodes - 1;

    if (t_self == 0) {
        T_EQ(CMAML_allocate_this_rport(rport), rport,
             "CMAML_allocate_this_rport(9)");
        CMAML_set_rport_addr(rport, dst);
        CMAML_set_rport_byte_counter(rport, 100);
        CMAML_set_rport_total_nbytes(rport, 0);
        CMAML_set_rport_handler(rport, rearm_handler);
        CMAML_set_rport_handler_arg2(rport, (void *)100L);
    }
    t_fill(src, sizeof(src), 8000);
    for (int round = 0; round < 2; round++) {
        CMMD_sync_with_nodes(); /* the counter is (re-)armed */
        if (t_self == sender)   /* 50 bytes each, 2 per round */
            for (int i = 2 * round; i < 2 * round + 2; i++)
                CMAML_scopy(0, rport, 4, 50 * i, src + 50 * i, 50, NULL, NULL);
        if (t_self == 0)
            T_POLL_UNTIL(rearm_calls == round + 1, 30,
                         "the re-armed rport "
                         "handler ran %d times in 30 s, expected %d",
                         rearm_calls, round + 1);
    }
    if (t_self == 0) {
        T_EQ(CMAML_get_rport_total_nbytes(rport), 200,
             "CMAML_get_rport_total_nbytes after two rounds");
        T_PATTERN(dst, sizeof(dst), 8000, "two rounds of scopy");
    }
    CMMD_sync_with_nodes();
    if (t_self == 0) {
        T_EQ(rearm_calls, 2, "calls of the re-armed rport handler");
        CMAML_free_rport(rport);
    }
}

int main(void)
{
    t_init("prog_rport");
    test_local();
    CMMD_sync_with_nodes();
    test_gather();
    CMMD_sync_with_nodes();
    test_alltoall();
    CMMD_sync_with_nodes();
    test_rearm();
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
