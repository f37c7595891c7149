/*
 * prog_scale: a little of everything on a large partition (more nodes
 * than libfabric's shm provider has room for with two endpoints each),
 * between nodes far apart.
 *
 *   all rings|fabric
 *       a barrier; reductions and a scan; ROUNDS active-message requests
 *       (each answered by a reply) to the nodes 1, P/2 and P-1 places
 *       ahead; CMMD messages of SIZES bytes to the nodes P/2 and 1 place
 *       ahead, every byte checked; then, from cm5_stats(): with "rings"
 *       every packet took the same-host rings (libfabric's counters are
 *       exactly 0: libfabric carries bulk data only), with "fabric" every
 *       packet took libfabric.  Under CM5_CMA=off no message moved by
 *       single copy (their data took libfabric's tagged path).
 *   all refused
 *       as rings, but node 1 makes itself undumpable first, so that in a
 *       job where the kernel allows a read only between dumpable
 *       processes (no CAP_SYS_PTRACE) single copies from and into node 1
 *       are refused: their data takes libfabric's tagged path, to a
 *       peer the address vector did not hold (past 256 nodes ring peers
 *       get their address only then).  At least one copy must be
 *       refused; every byte is still checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <cm5/cm5.h>

#include "t_util.h"

#define ROUNDS 20
#define NSHIFT 3

static const int sizes[] = {16, 1000, 100000};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static volatile int requests, replies, bad_args;

static void reply_handler(int from, int round)
{
    (void)from, (void)round;
    replies++;
}

static void request_handler(int from, int round, int check)
{
    if ((uint32_t)check != t_hash((uint32_t)from, (uint32_t)round) ||
        from < 0 || from >= t_nodes)
        bad_args++;
    requests++;
    CMAML_reply(from, (CMAML_handler_t)reply_handler, t_self, round);
}

/* The nodes 1, P/2 and P-1 places ahead (some the same on few nodes). */
static int shift(int i)
{
    const int d[NSHIFT] = {1, t_nodes / 2 > 0 ? t_nodes / 2 : 1, t_nodes - 1};

    return d[i];
}

static void collectives(void)
{
    int n = t_nodes;

    CMMD_sync_with_nodes();
    T_EQ(CMMD_reduce_int(t_self + 1, CMMD_combiner_add), n * (n + 1) / 2,
         "sum of node+1");
    T_EQ(CMMD_reduce_int(t_self, CMMD_combiner_max), n - 1, "max of node");
    T_EQ(CMMD_reduce_int(t_self + 5, CMMD_combiner_min), 5, "min of node+5");
    T_EQ(CMMD_scan_int(1, CMMD_combiner_add, CMMD_upward, CMMD_none, 0,
                       CMMD_inclusive),
         t_self + 1, "inclusive scan of 1");
}

static void active_messages(void)
{
    int want = ROUNDS * NSHIFT;

    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < NSHIFT; i++)
            CMAML_request((t_self + shift(i)) % t_nodes,
                          (CMAML_handler_t)request_handler, t_self, r,
                          (int)t_hash((uint32_t)t_self, (uint32_t)r));
    T_POLL_UNTIL(replies >= want && requests >= want, 60,
                 "%d of %d replies, %d of %d requests after 60 s", replies,
                 want, requests, want);
    T_EQ(replies, want, "replies received");
    T_EQ(requests, want, "requests handled");
    T_EQ(bad_args, 0, "requests with wrong arguments");
    CMMD_sync_with_nodes();
}

static void messages(void)
{
    int ds[2] = {t_nodes / 2 > 0 ? t_nodes / 2 : 1, 1};
    size_t max = (size_t)sizes[NSIZES - 1];
    unsigned char *out = t_malloc(max), *in = t_malloc(max);

    for (int j = 0; j < 2; j++) {
        int d = ds[j], to = (t_self + d) % t_nodes,
            from = (t_self - d + t_nodes) % t_nodes;

        for (int s = 0; s < NSIZES; s++) {
            size_t len = (size_t)sizes[s];
            uint32_t tag = (uint32_t)(d * 8 + s);

            t_fill(out, len, t_hash((uint32_t)t_self, tag));
            memset(in, 0xee, len);
            CMMD_send_and_receive(from, (int)tag, in, (int)len, to, (int)tag,
                                  out, (int)len);
            T_EQ(CMMD_bytes_received(), (long long)len, "bytes received");
            T_PATTERN(in, len, t_hash((uint32_t)from, tag),
                      "%zu bytes from node %d", len, from);
        }
    }
    free(out);
    free(in);
    CMMD_sync_with_nodes();
}

static void check_paths(int rings)
{
    const char *cma = getenv("CM5_CMA");
    cm5_stats_t st;

    cm5_stats(&st);
    if (rings) {
        T_EQ(st.fabric_sent, 0, "packets sent through libfabric");
        T_EQ(st.fabric_received, 0, "packets received through libfabric");
        T_CHECK(st.shm_sent >= 2 * ROUNDS * NSHIFT,
                "%llu packets through the rings",
                (unsigned long long)st.shm_sent);
    } else {
        T_EQ(st.shm_sent, 0, "packets sent through the rings");
        T_EQ(st.shm_received, 0, "packets received through the rings");
    }
    if (cma && strcmp(cma, "off") == 0)
        T_EQ(st.cma_messages, 0, "messages moved by single copy");
}

/* The copies the kernel refused, summed over the job (collective). */
static unsigned long long refused(void)
{
    cm5_stats_t st;
    uint64_t n[1];

    cm5_stats(&st);
    n[0] = st.cma_fallbacks;
    CMMD_reduce_v(n, n, CMMD_combiner_uadd, sizeof(uint64_t), 1);
    return (unsigned long long)n[0];
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[2] : "";

    t_init("prog_scale");
    T_CHECK(argc > 2 && strcmp(argv[1], "all") == 0 &&
                (strcmp(mode, "rings") == 0 || strcmp(mode, "fabric") == 0 ||
                 strcmp(mode, "refused") == 0),
            "usage: prog_scale all rings|fabric|refused");
    if (strcmp(mode, "refused") == 0 && t_self == 1)
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    collectives();
    active_messages();
    messages();
    check_paths(strcmp(mode, "fabric") != 0);
    if (strcmp(mode, "refused") == 0) {
        unsigned long long n = refused();

        T_CHECK(n >= 1, "%llu single copies refused (node 1 is not dumpable)",
                n);
        if (t_self == 0)
            printf("prog_scale: %llu single copies refused\n", n);
    }
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
