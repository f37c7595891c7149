/*
 * scopy_bw: bandwidth of CMAML_scopy between nodes 1 and 0.  Node 0 sets
 * up an rport; node 1 copies SIZE bytes into it ITERS times (each time
 * waiting for node 0's acknowledgement, like a ping-pong), so the time
 * covers the data landing and the rport handler running.  The last line
 * is "scopy_MBps <megabytes per second>".
 *
 *   cm5run -n 2 examples/scopy_bw [-s SIZE] [-i ITERS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

static volatile int landed, acked;
static int rport;

static void ack_handler(int a)
{
    (void)a;
    acked++;
}

/* Runs on node 0 when the byte counter reaches 0: re-arm, acknowledge. */
static void rport_handler(int rp, void *size)
{
    CMAML_set_rport_byte_counter(rp, (int)(long)size);
    landed++;
}

int main(int argc, char **argv)
{
    int size = 1 << 20, iters = 200, opt;
    int self = CMMD_self_address();
    char *buf;
    double t0, t;

    while ((opt = getopt(argc, argv, "s:i:h")) != -1) {
        if (opt == 's' && atoi(optarg) > 0)
            size = atoi(optarg);
        else if (opt == 'i' && atoi(optarg) > 0)
            iters = atoi(optarg);
        else
            CMMD_error("usage: %s [-s SIZE] [-i ITERS]", argv[0]);
    }
    if (CMMD_partition_size() < 2)
        CMMD_error("scopy_bw needs 2 nodes");
    buf = malloc((size_t)size);
    if (!buf)
        CMMD_error("scopy_bw: out of memory");
    memset(buf, self, (size_t)size);
    if (self == 0) {
        rport = CMAML_allocate_rport();
        CMAML_set_rport_addr(rport, buf);
        CMAML_set_rport_byte_counter(rport, size);
        CMAML_set_rport_handler(rport, (CMAML_handler_t)rport_handler);
        CMAML_set_rport_handler_arg2(rport, (void *)(long)size);
    }
    if (self == 0)
        CMMD_bc_to_nodes(&rport, sizeof(rport));
    else
        CMMD_receive_bc_from_node(&rport, sizeof(rport));
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    for (int i = -iters / 10; i < iters; i++) { /* negative: warm-up */
        if (i == 0)
            t0 = cm5_wtime();
        if (self == 1) {
            int want = acked + 1;

            CMAML_scopy(0, rport, 0, 0, buf, size, NULL, NULL);
            CMAML_poll_while_lt(&acked, want);
        } else if (self == 0) {
            CMAML_poll_while_lt(&landed, landed + 1);
            CMAML_request(1, (CMAML_handler_t)ack_handler, 0);
        }
    }
    t = cm5_wtime() - t0;
    if (self == 0 && buf[size - 1] != 1)
        CMMD_error("scopy_bw: data did not land");
    if (self == 0) {
        printf("scopy_bw: %d x %d bytes, node 1 -> 0, provider %s: %.3f s\n",
               iters, size, cm5_provider(), t);
        printf("scopy_MBps %.1f\n", (double)size * iters / t / 1e6);
    }
    CMMD_sync_with_nodes();
    free(buf);
    return 0;
}
