/*
 * scopy_vs_memcpy: CMAML_scopy bandwidth from node 1 into an rport of
 * node 0 against memcpy between two buffers of the same size in node 0,
 * for each size given.  Node 1 copies SIZE bytes ITERS times, each time
 * waiting until its buffer may be reused (the scopy's sent handler: with
 * CM5_CMA the receiver has read it), so the time covers announcing,
 * copying and acknowledging; memcpy copies SIZE bytes ITERS times.  One
 * line per size (bench/scopy_vs_memcpy.sh):
 *   "size <bytes> memcpy_MBps <x> scopy_MBps <y> ratio <y / x>"
 *
 *   cm5run -n 2 bench/scopy_vs_memcpy [-i ITERS] SIZE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

static volatile int landed, sent;

static void rport_handler(int rp, void *size)
{
    CMAML_set_rport_byte_counter(rp, (int)(long)size);
    landed++;
}

static void sent_handler(void *arg)
{
    (void)arg;
    sent++;
}

/* MB/s of memcpy of size bytes, iters times (node 0). */
static double memcpy_MBps(char *dst, const char *src, int size, int iters)
{
    double t0 = cm5_wtime();

    for (int i = 0; i < iters; i++) {
        memcpy(dst, src, (size_t)size);
        __asm__ volatile("" : : "r"(dst) : "memory");
    }
    return (double)size * iters / (cm5_wtime() - t0) / 1e6;
}

/* MB/s of scopy from node 1 into node 0's rport (node 0's view). */
static double scopy_MBps(int rport, char *buf, int size, int iters)
{
    int self = CMMD_self_address();
    double t0;

    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (self == 1) {
        for (int i = 0; i < iters; i++) {
            CMAML_scopy(0, rport, 0, 0, buf, size,
                        (CMAML_handler_t)sent_handler, NULL);
            CMAML_poll_while_lt(&sent, i + 1);
        }
        sent = 0;
    } else if (self == 0) {
        CMAML_poll_while_lt(&landed, iters);
        landed = 0;
    }
    t0 = cm5_wtime() - t0;
    CMMD_sync_with_nodes();
    return (double)size * iters / t0 / 1e6;
}

int main(int argc, char **argv)
{
    int iters = 100, opt, max = 0, rport = -1;
    int self = CMMD_self_address();
    char *a, *b;

    while ((opt = getopt(argc, argv, "i:")) != -1)
        if (opt != 'i' || (iters = atoi(optarg)) < 1)
            CMMD_error("usage: scopy_vs_memcpy [-i ITERS] SIZE...\n");
    for (int k = optind; k < argc; k++)
        if (atoi(argv[k]) > max)
            max = atoi(argv[k]);
    if (CMMD_partition_size() < 2 || max < 1)
        CMMD_error("scopy_vs_memcpy: 2 nodes and a size\n");
    a = malloc((size_t)max);
    b = malloc((size_t)max);
    if (!a || !b)
        CMMD_error("scopy_vs_memcpy: out of memory\n");
    memset(a, 1, (size_t)max); /* touched: no page faults in the loops */
    memset(b, 2, (size_t)max);
    if (self == 0) {
        rport = CMAML_allocate_rport();
        CMAML_set_rport_addr(rport, b);
    }
    CMMD_sync_with_nodes();
    for (int k = optind; k < argc; k++) {
        int size = atoi(argv[k]);
        double mc = 0, sc;

        if (self == 0) {
            CMAML_set_rport_byte_counter(rport, size);
            CMAML_set_rport_handler(rport, (CMAML_handler_t)rport_handler);
            CMAML_set_rport_handler_arg2(rport, (void *)(long)size);
            mc = memcpy_MBps(b, a, size, iters);
        }
        /* (every node learns node 0's rport) */
        sc = scopy_MBps(
            CMMD_reduce_int(self == 0 ? rport : 0, CMMD_combiner_add), a, size,
            iters);
        if (self == 0)
            printf("size %d memcpy_MBps %.0f scopy_MBps %.0f ratio %.2f\n",
                   size, mc, sc, sc / mc);
    }
    CMMD_sync_with_nodes();
    free(a);
    free(b);
    return 0;
}
