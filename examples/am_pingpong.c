/*
 * am_pingpong: round-trip latency and one-way rate of 16-byte active
 * messages between nodes 0 and 1; with more nodes, also a many-to-one flood
 * of every other node into node 0.  The last line is
 * "rtt_us <median round trip in microseconds>".
 *
 *   cm5run -n 2 examples/am_pingpong [-i ITERS] [-m FLOOD_MSGS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

static volatile int pongs, arrived, done;

static void pong_handler(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    pongs++;
}

static void ping_handler(int from, int b, int c, int d)
{
    CMAML_reply(from, (CMAML_handler_t)pong_handler, b, c, d, 0);
}

static void done_handler(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    done = 1;
}

static void count_handler(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    arrived++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double pingpong(int iters)
{
    double *rtt = malloc(sizeof(double) * (size_t)iters), med;

    if (!rtt)
        CMMD_error("am_pingpong: out of memory");
    for (int i = -iters / 10; i < iters; i++) { /* negative: warm-up */
        double t0 = cm5_wtime();
        int want = pongs + 1;

        CMAML_request(1, (CMAML_handler_t)ping_handler, 0, i, 0, 0);
        CMAML_poll_while_lt(&pongs, want);
        if (i >= 0)
            rtt[i] = (cm5_wtime() - t0) * 1e6;
    }
    qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
    med = rtt[iters / 2];
    free(rtt);
    return med;
}

/* Senders flood node 0 with msgs requests each; node 0 acknowledges the
 * total with one reply to each sender, so the time covers delivery. */
static void flood(int self, int nodes, int senders, int msgs)
{
    double t0, t;

    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    if (self >= 1 && self <= senders) {
        int want = pongs + 1;

        for (int i = 0; i < msgs; i++)
            CMAML_request(0, (CMAML_handler_t)count_handler, self, i, 0, 0);
        CMAML_poll_while_lt(&pongs, want);
    } else if (self == 0) {
        CMAML_poll_while_lt(&arrived, senders * msgs);
        arrived = 0;
        for (int s = 1; s <= senders; s++)
            CMAML_reply(s, (CMAML_handler_t)pong_handler, 0, 0, 0, 0);
    }
    t = cm5_wtime() - t0;
    if (self == 0)
        printf("%-10s %d -> 0: %d messages of 16 bytes in %.3f s: "
               "%.0f messages/s (%.2f MB/s of payload)\n",
               senders == 1 ? "one-way" : "many-to-1", senders, senders * msgs,
               t, senders * msgs / t, senders * msgs * 16.0 / t / 1e6);
    (void)nodes;
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    int iters = 20000, msgs = 200000, opt;
    int self = CMMD_self_address(), nodes = CMMD_partition_size();
    double med = 0;

    while ((opt = getopt(argc, argv, "i:m:h")) != -1) {
        if (opt == 'i')
            iters = atoi(optarg);
        else if (opt == 'm')
            msgs = atoi(optarg);
        else {
            if (self == 0)
                fprintf(stderr,
                        "usage: cm5run -n N %s [-i ITERS] "
                        "[-m FLOOD_MSGS]\n",
                        argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    if (nodes < 2 || iters < 1 || msgs < 1) {
        if (self == 0)
            fprintf(stderr, "am_pingpong: needs at least 2 nodes, "
                            "ITERS >= 1 and FLOOD_MSGS >= 1\n");
        return 2;
    }
    CMMD_fset_io_mode(stdout, CMMD_independent);
    if (self == 0)
        printf("am_pingpong: %d nodes, provider %s\n", nodes, cm5_provider());
    CMMD_sync_with_nodes();
    /* Node 1 answers the pings until node 0 says it is done: a barrier
     * runs no handlers (the control network was a network of its own),
     * so node 1 must poll, not wait in the next barrier. */
    if (self == 0) {
        med = pingpong(iters);
        CMAML_request(1, (CMAML_handler_t)done_handler, 0, 0, 0, 0);
    } else if (self == 1) {
        CMAML_poll_while_lt(&done, 1);
    }
    flood(self, nodes, 1, msgs);
    if (nodes > 2)
        flood(self, nodes, nodes - 1, msgs / (nodes - 1) + 1);
    if (self == 0) {
        printf("round trip 0 <-> 1: median %.2f us over %d iterations\n", med,
               iters);
        printf("rtt_us %.2f\n", med);
    }
    return 0;
}
