/*
 * cmmd_pingpong: round trip of CMMD block messages between nodes 0 and 1
 * (CMMD_send_block, then CMMD_receive_block of the answer), for each
 * size given; one line per size:
 *   "pingpong <bytes> rtt_us <median round trip in microseconds>"
 * (bench/eager_vs_rendezvous.sh runs it with and without eager messages).
 *
 *   cm5run -n 2 bench/cmmd_pingpong [-i ITERS] SIZE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Node 0's median round trip of len-byte messages (node 1 returns 0). */
static double pingpong(char *buf, int len, int iters, double *rtt)
{
    int self = CMMD_self_address();

    for (int i = -iters / 10; i < iters; i++) { /* negative: warm-up */
        double t0 = cm5_wtime();

        if (self == 0) {
            CMMD_send_block(1, 1, buf, len);
            CMMD_receive_block(1, 2, buf, len);
        } else {
            CMMD_receive_block(0, 1, buf, len);
            CMMD_send_block(0, 2, buf, len);
        }
        if (i >= 0)
            rtt[i] = (cm5_wtime() - t0) * 1e6;
    }
    qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
    return rtt[iters / 2];
}

int main(int argc, char **argv)
{
    int iters = 2000, opt, max = 0;
    char *buf;
    double *rtt;

    while ((opt = getopt(argc, argv, "i:")) != -1) {
        if (opt != 'i' || (iters = atoi(optarg)) < 1)
            CMMD_error("usage: cmmd_pingpong [-i ITERS] SIZE...\n");
    }
    for (int k = optind; k < argc; k++)
        if (atoi(argv[k]) > max)
            max = atoi(argv[k]);
    buf = calloc(1, (size_t)max + 1);
    rtt = malloc(sizeof(double) * (size_t)iters);
    if (!buf || !rtt)
        CMMD_error("cmmd_pingpong: out of memory\n");
    if (CMMD_partition_size() < 2)
        CMMD_error("cmmd_pingpong: needs 2 nodes\n");
    for (int k = optind; k < argc; k++) {
        int len = atoi(argv[k]);
        double med;

        CMMD_sync_with_nodes();
        if (CMMD_self_address() > 1)
            continue;
        med = pingpong(buf, len, iters, rtt);
        if (CMMD_self_address() == 0)
            printf("pingpong %d rtt_us %.2f\n", len, med);
    }
    CMMD_sync_with_nodes();
    free(buf);
    free(rtt);
    return 0;
}
