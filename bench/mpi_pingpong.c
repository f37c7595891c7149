/*
 * mpi_pingpong: the MPI peer of examples/am_pingpong for
 * bench/am_vs_peers.sh, built there with mpicc of Open MPI and of MPICH.
 *
 *   mpirun -np 2 mpi_pingpong [-i ITERS] [-m MSGS] [-w WINDOW] [-s BYTES]
 *
 * 1. Round trip 0 <-> 1 of an s-byte message (16, as an active message's
 *    payload): MPI_Send then MPI_Recv on rank 0, the mirror on rank 1;
 *    ITERS/10 warm-up iterations, then every iteration timed alone, as
 *    am_pingpong does: "rtt_us" is the median, "rtt_mean_us" the mean.
 * 2. One-way rate 1 -> 0: MSGS messages of s bytes in windows of WINDOW
 *    MPI_Isend / MPI_Irecv + MPI_Waitall; rank 0 acknowledges the last
 *    window with one message, so the time covers delivery (as am_pingpong's
 *    flood, timed on rank 0 from a barrier).  "oneway_msgs_per_s".
 * Exit status 0, 2 on a usage error.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_PING = 1, TAG_FLOOD = 2, TAG_ACK = 3, MAX_BYTES = 1 << 20 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Rank 0's median and mean round trip in us (0 on rank 1). */
static void pingpong(int self, int iters, char *buf, int bytes, double *med,
                     double *mean)
{
    double *rtt = malloc(sizeof(double) * (size_t)iters), sum = 0;

    if (!rtt)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = -iters / 10; i < iters; i++) { /* negative: warm-up */
        double t0 = MPI_Wtime();

        if (self == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD);
        }
        if (i >= 0)
            rtt[i] = (MPI_Wtime() - t0) * 1e6;
    }
    for (int i = 0; i < iters; i++)
        sum += rtt[i];
    qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
    *med = rtt[iters / 2];
    *mean = sum / iters;
    free(rtt);
}

/* Messages/s of the windowed flood 1 -> 0, on rank 0. */
static double flood(int self, int msgs, int window, char *buf, int bytes)
{
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)window);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)window);
    double t0, t;
    int sent = 0;

    if (!req || !st)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    while (sent < msgs) {
        int n = msgs - sent < window ? msgs - sent : window;

        for (int k = 0; k < n; k++) {
            /* one buffer per slot: receives may not share one */
            char *b = buf + (size_t)k * (size_t)bytes;

            if (self == 1)
                MPI_Isend(b, bytes, MPI_BYTE, 0, TAG_FLOOD, MPI_COMM_WORLD,
                          &req[k]);
            else
                MPI_Irecv(b, bytes, MPI_BYTE, 1, TAG_FLOOD, MPI_COMM_WORLD,
                          &req[k]);
        }
        MPI_Waitall(n, req, st);
        sent += n;
    }
    if (self == 0)
        MPI_Send(buf, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t0;
    free(req);
    free(st);
    return msgs / t;
}

int main(int argc, char **argv)
{
    int iters = 20000, msgs = 200000, window = 64, bytes = 16, opt;
    int self, nodes, bad = 0;
    double med = 0, mean = 0, rate;
    char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &nodes);
    while ((opt = getopt(argc, argv, "i:m:w:s:h")) != -1) {
        if (opt == 'i')
            iters = atoi(optarg);
        else if (opt == 'm')
            msgs = atoi(optarg);
        else if (opt == 'w')
            window = atoi(optarg);
        else if (opt == 's')
            bytes = atoi(optarg);
        else
            bad = 1;
    }
    if (bad || nodes != 2 || iters < 1 || msgs < 1 || window < 1 || bytes < 1 ||
        bytes > MAX_BYTES / window) {
        if (self == 0)
            fprintf(stderr,
                    "usage: mpirun -np 2 %s [-i ITERS] [-m MSGS] "
                    "[-w WINDOW] [-s BYTES]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    buf = calloc((size_t)window, (size_t)bytes);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    pingpong(self, iters, buf, bytes, &med, &mean);
    rate = flood(self, msgs, window, buf, bytes);
    if (self == 0) {
        printf("mpi_pingpong: %d bytes, %d iterations, %d messages in "
               "windows of %d\n",
               bytes, iters, msgs, window);
        printf("oneway_msgs_per_s %.0f\n", rate);
        printf("rtt_mean_us %.3f\n", mean);
        printf("rtt_us %.3f\n", med);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
