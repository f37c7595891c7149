/*
 * prog_cma: single-copy bulk data between nodes of one host (CM5_CMA):
 * CMMD messages longer than CM5_EAGER_MAX and CMAML_scopy data are read
 * by the receiver from the sender's memory (process_vm_readv); every
 * byte must arrive wherever the data goes.  Node 1 sends to node 0:
 *
 *   msgs    messages of sizes around page boundaries (4095 .. 4097,
 *           8191 .. 8193, 65535 .. 65537) and 1 MiB + 3, from and into
 *           buffers misaligned by 0..7 bytes, through CMMD_send_block,
 *           _noblock and _async, and CMMD_send_v/receive_v of 4-byte
 *           elements 12 bytes apart: lengths and bytes right, the bytes
 *           around every receive buffer untouched
 *   scopy   CMAML_scopy of the same sizes into an rport at misaligned
 *           offsets, and into an rport of 4-byte elements 12 bytes apart
 *           (scattered): bytes right, gaps untouched
 *   counts  both nodes' cm5_stats, summed (node 0 reads what node 1
 *           announced; node 1 writes into the receives node 0 offered
 *           it): with "cma" every message above the eager bound and
 *           every scopy (of any length) was a single copy (cma_messages,
 *           cma_bytes exact, no fallback); with "nocma" none was
 *           (CM5_CMA=off, or libfabric alone); with "refused" (neither
 *           node dumpable, the job without CAP_SYS_PTRACE: the kernel
 *           refuses node 0's reads and node 1's writes) one or two
 *           copies failed, one per direction at most, and everything
 *           went by rendezvous.
 *
 *   cm5run -n 2 prog_cma cma|nocma|refused
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <cm/cmaml.h>
#include <cm/cmmd.h>
#include <cm5/cm5.h>

#include "t_util.h"

#define SEED(k) (7000u + (uint32_t)(k))
#define GUARD 0xa5
#define NSIZES 10
#define BIG ((1 << 20) + 3)
#define RPORT 11
#define VRPORT 12

static const int sizes[NSIZES] = {4095, 4096,  4097,  8191,  8192,
                                  8193, 65535, 65536, 65537, BIG};
static long eager_max;
static int expect_cma, transfers;
static long expect_bytes;

/* A transfer of len bytes above the eager bound: a single copy. */
static void counted(long len)
{
    if (len > eager_max) {
        transfers++;
        expect_bytes += len;
    }
}

/* An scopy: a single copy whatever its length. */
static void counted_scopy(long len)
{
    transfers++;
    expect_bytes += len;
}

static void check_guards(const unsigned char *b, size_t at, size_t len,
                         const char *what, int k)
{
    for (size_t i = 0; i < 8; i++) {
        T_CHECK(b[at - 1 - i] == GUARD,
                "%s %d: byte %zu before the buffer "
                "written",
                what, k, i + 1);
        T_CHECK(b[at + len + i] == GUARD,
                "%s %d: byte %zu after the buffer "
                "written",
                what, k, i + 1);
    }
}

static void test_msgs(void)
{
    unsigned char *b = t_malloc(BIG + 64);

    for (int k = 0; k < NSIZES; k++) {
        int len = sizes[k];

        for (int how = 0; how < 4; how++) {
            size_t at = 8 + (size_t)((k + how) % 8); /* misaligned */
            int tag = 20 + how;

            if (t_self == 1) {
                t_fill(b + at, (size_t)len, SEED(k * 4 + how));
                if (how == 0) {
                    CMMD_send_block(0, tag, b + at, len);
                } else if (how == 1) {
                    CMMD_send_noblock(0, tag, b + at, len);
                } else if (how == 2) {
                    CMMD_mcb h =
                        CMMD_send_async(0, tag, b + at, len, NULL, NULL);

                    CMMD_msg_wait(h);
                    CMMD_free_mcb(h);
                } else {
                    /* 4-byte elements 12 bytes apart: packed (and read by
                     * node 0) as len / 12 * 4 bytes. */
                    CMMD_send_v(0, tag, b + at, 4, len / 12, 12);
                }
            } else if (t_self == 0) {
                memset(b, GUARD, (size_t)BIG + 64);
                if (how < 3) {
                    CMMD_receive_block(1, tag, b + at, len);
                    T_EQ(CMMD_bytes_received(), len, "message length");
                    T_PATTERN(b + at, (size_t)len, SEED(k * 4 + how),
                              "message %d (%d bytes, how %d)", k, len, how);
                    check_guards(b, at, (size_t)len, "message", k);
                    counted(len);
                } else {
                    unsigned char *want = t_malloc((size_t)len);

                    CMMD_receive_v(1, tag, b + at, 4, len / 12, 12);
                    t_fill(want, (size_t)len, SEED(k * 4 + how));
                    for (int e = 0; e < len / 12; e++) {
                        T_CHECK(memcmp(b + at + 12 * e, want + 12 * e, 4) == 0,
                                "_v message %d: element %d wrong", k, e);
                        T_CHECK(b[at + 12 * e + 4] == GUARD,
                                "_v message %d: gap after element %d "
                                "written",
                                k, e);
                    }
                    counted(len / 12 * 4);
                    free(want);
                }
            }
        }
    }
    free(b);
    CMMD_sync_with_nodes();
}

static volatile int rport_done, scopy_sent;

static void sent_handler(void *arg)
{
    (void)arg;
    scopy_sent++;
}

/* An scopy from src; returns once src may be reused. */
static void scopy_wait(int rport, int off, void *src, int len)
{
    int want = scopy_sent + 1;

    CMAML_scopy(0, rport, 0, off, src, len, (CMAML_handler_t)sent_handler,
                NULL);
    CMAML_poll_while_lt(&scopy_sent, want);
}

static void rport_handler(int rport, void *arg2)
{
    (void)rport, (void)arg2;
    rport_done++;
}

/* Contiguous: each size at offset sum of the earlier ones + k % 8. */
static void test_scopy(void)
{
    size_t total = 0, off[NSIZES];
    unsigned char *land, *src;
    const int ne = 40000; /* elements of the strided rport */

    for (int k = 0; k < NSIZES; k++) {
        off[k] = total + (size_t)(k % 8) + 8;
        total = off[k] + (size_t)sizes[k];
    }
    land = t_malloc(total + 16);
    src = t_malloc((size_t)BIG + 16);
    if (t_self == 0) {
        memset(land, GUARD, total + 16);
        T_EQ(CMAML_allocate_this_rport(RPORT), RPORT, "allocate rport");
        CMAML_set_rport_addr(RPORT, land);
        CMAML_set_rport_byte_counter(RPORT, (int)(total - off[0] + 8));
        CMAML_set_rport_handler(RPORT, (CMAML_handler_t)rport_handler);
    }
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        for (int k = 0; k < NSIZES; k++) {
            size_t a = (size_t)(k * 3) % 8;

            t_fill(src + a, (size_t)sizes[k], SEED(100 + k));
            scopy_wait(RPORT, (int)off[k], src + a, sizes[k]);
        }
        /* The byte counter counts the gaps too: fill it. */
        memset(src, 0, 64);
        for (int k = 0; k < NSIZES; k++) {
            size_t gap = k ? off[k] - off[k - 1] - (size_t)sizes[k - 1] : 8;

            scopy_wait(RPORT, (int)(off[k] - gap), src, (int)gap);
        }
    } else if (t_self == 0) {
        T_POLL_UNTIL(rport_done == 1, 60, "the rport handler never ran");
        for (int k = 0; k < NSIZES; k++) {
            T_PATTERN(land + off[k], (size_t)sizes[k], SEED(100 + k),
                      "scopy %d (%d bytes)", k, sizes[k]);
            counted_scopy(sizes[k]);
            counted_scopy(k ? (long)(off[k] - off[k - 1]) - sizes[k - 1] : 8);
        }
        T_CHECK(land[total] == GUARD, "scopy: written past the end");
    }
    CMMD_sync_with_nodes();

    /* Strided: 4-byte elements 12 bytes apart, in 3 scopies. */
    rport_done = 0;
    free(land);
    land = t_malloc((size_t)ne * 12 + 16);
    if (t_self == 0) {
        memset(land, GUARD, (size_t)ne * 12 + 16);
        CMAML_free_rport(RPORT);
        T_EQ(CMAML_allocate_this_rport(VRPORT), VRPORT, "allocate rport");
        CMAML_set_rport_addr(VRPORT, land);
        CMAML_set_rport_byte_counter(VRPORT, ne * 4);
        CMAML_set_rport_esize(VRPORT, 4);
        CMAML_set_rport_estride(VRPORT, 12);
        CMAML_set_rport_handler(VRPORT, (CMAML_handler_t)rport_handler);
    }
    CMMD_sync_with_nodes();
    if (t_self == 1) {
        int cut[4] = {0, 4097, 4 * 20001 + 1, ne * 4};

        t_fill(src + 1, (size_t)ne * 4, SEED(200));
        for (int p = 0; p < 3; p++)
            scopy_wait(VRPORT, cut[p], src + 1 + cut[p], cut[p + 1] - cut[p]);
    } else if (t_self == 0) {
        unsigned char *want = t_malloc((size_t)ne * 4);
        int bad = 0, gaps = 0;

        T_POLL_UNTIL(rport_done == 1, 60, "the strided rport never filled");
        t_fill(want, (size_t)ne * 4, SEED(200));
        for (int e = 0; e < ne; e++) {
            bad += memcmp(land + 12 * e, want + 4 * e, 4) != 0;
            for (int g = 4; g < 12; g++)
                gaps += land[12 * e + g] != GUARD;
        }
        T_EQ(bad, 0, "strided scopy: elements wrong");
        T_EQ(gaps, 0, "strided scopy: gap bytes written");
        counted_scopy(4097);
        counted_scopy(4 * 20001 + 1 - 4097);
        counted_scopy(ne * 4 - (4 * 20001 + 1));
        CMAML_free_rport(VRPORT);
        free(want);
    }
    free(land);
    free(src);
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "cma";
    cm5_stats_t st;

    t_init("prog_cma");
    eager_max = getenv("CM5_EAGER_MAX") ? atol(getenv("CM5_EAGER_MAX")) : 4096;
    expect_cma = strcmp(mode, "cma") == 0;
    if (strcmp(mode, "refused") == 0)
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    CMMD_sync_with_nodes();
    test_msgs();
    test_scopy();
    cm5_stats(&st);
    uint64_t sum[3] = {st.cma_messages, st.cma_bytes, st.cma_fallbacks};
    uint64_t mine = st.cma_fallbacks;

    CMMD_reduce_v(sum, sum, CMMD_combiner_uadd, sizeof(uint64_t), 3);
    T_CHECK(mine <= 1, "node %d: %llu single copies refused, not one at most",
            t_self, (unsigned long long)mine);
    if (t_self == 0) {
        printf("prog_cma: node 0: %llu single copies of %llu bytes, %llu "
               "fell back (both nodes)\n",
               (unsigned long long)sum[0], (unsigned long long)sum[1],
               (unsigned long long)sum[2]);
        T_EQ(sum[0], expect_cma ? transfers : 0, "transfers by single copy");
        T_EQ(sum[1], expect_cma ? expect_bytes : 0, "bytes by single copy");
        if (strcmp(mode, "refused") == 0)
            T_CHECK(sum[2] >= 1 && sum[2] <= 2,
                    "%llu single copies refused, not 1 or 2",
                    (unsigned long long)sum[2]);
        else
            T_EQ(sum[2], 0, "single copies refused");
    }
    t_done();
    return 0;
}
