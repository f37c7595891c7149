/*
 * cmmd_pingpong: round trip of CMMD block messages between nodes 0 and 1
 * (CMMD_send_block, then CMMD_receive_block of the answer), for each
 * size given; one line per size:
 *   "pingpong <bytes> rtt_us <median round trip in microseconds>"
 * (bench/eager_vs_rendezvous.sh runs it with and without eager messages).
 * -p PEER: node 0's partner (default 1).  -t US: each side sleeps US
 * microseconds outside the runtime before it answers, so that the other
 * falls asleep in its receive (bench/wake.sh: how fast a sleeping node
 * wakes); the line then gives the round trip less the two sleeps as
 * "wake_rtt_us".
 *
 *   cm5run -n 2 bench/cmmd_pingpong [-i ITERS] [-p PEER] [-t US] SIZE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void think(int us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

    if (us > 0)
        nanosleep(&ts, NULL);
}

/* Node 0's median round trip of len-byte messages with peer (the peer
 * returns 0), each side sleeping think_us before it sends. */
static double pingpong(char *buf, int len, int iters, int peer, int think_us,
                       double *rtt)
{
    int self = CMMD_self_address();

    for (int i = -iters / 10; i < iters; i++) { /* negative: warm-up */
        double t0 = cm5_wtime();

        if (self == 0) {
            think(think_us);
            CMMD_send_block(peer, 1, buf, len);
            CMMD_receive_block(peer, 2, buf, len);
        } else {
            CMMD_receive_block(0, 1, buf, len);
            think(think_us);
            CMMD_send_block(0, 2, buf, len);
        }
        if (i >= 0)
            rtt[i] = (cm5_wtime() - t0) * 1e6 - 2.0 * think_us;
    }
    qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
    return rtt[iters / 2];
}

int main(int argc, char **argv)
{
    int iters = 2000, opt, max = 0, peer = 1, think_us = 0;
    char *buf;
    double *rtt;

    while ((opt = getopt(argc, argv, "i:p:t:")) != -1) {
        if ((opt == 'i' && (iters = atoi(optarg)) < 1) ||
            (opt == 'p' && (peer = atoi(optarg)) < 1) ||
            (opt == 't' && (think_us = atoi(optarg)) < 0) ||
            (opt != 'i' && opt != 'p' && opt != 't'))
            CMMD_error("usage: cmmd_pingpong [-i ITERS] [-p PEER] [-t US] "
                       "SIZE...\n");
    }
    for (int k = optind; k < argc; k++)
        if (atoi(argv[k]) > max)
            max = atoi(argv[k]);
    buf = calloc(1, (size_t)max + 1);
    rtt = malloc(sizeof(double) * (size_t)iters);
    if (!buf || !rtt)
        CMMD_error("cmmd_pingpong: out of memory\n");
    if (CMMD_partition_size() <= peer)
        CMMD_error("cmmd_pingpong: needs %d nodes\n", peer + 1);
    for (int k = optind; k < argc; k++) {
        int len = atoi(argv[k]);
        double med;

        CMMD_sync_with_nodes();
        if (CMMD_self_address() != 0 && CMMD_self_address() != peer)
            continue;
        med = pingpong(buf, len, iters, peer, think_us, rtt);
        if (CMMD_self_address() == 0 && think_us)
            printf("pingpong %d wake_rtt_us %.2f\n", len, med);
        else if (CMMD_self_address() == 0)
            printf("pingpong %d rtt_us %.2f\n", len, med);
    }
    CMMD_sync_with_nodes();
    free(buf);
    free(rtt);
    return 0;
}
