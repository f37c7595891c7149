/*
 * Lesson 7, solution: the shift order.  In step k node i sends to
 * (i + k) % size and receives from (i - k + size) % size: every node
 * still receives exactly one message per step, on any number of nodes.
 *
 *   cm5run -n 6 examples/tutorial/solutions/l7_contention
 *
 * The lesson:
 *
 * A node's network interface takes one incoming message at a time.  When
 * several nodes send to the same node at once, all but one wait: node
 * contention, the effect the scheduling papers (wang1993 and its
 * companions) exist for.  Here every node sends BLOCK bytes to every
 * other node (a complete exchange), in two orders:
 *   naive   every node sends to node 0, then node 1, ... (skipping
 *           itself): in step k all the others send to node k at once;
 *   lp      the linear permutation of the papers (LP): in step k node i
 *           exchanges with node i XOR k, so every node receives exactly
 *           one message per step.
 * The program prints, for each order, the most messages that head for
 * one node in one step (computed from the order, so always the same),
 * then the time of each exchange.
 *
 * The times are real-clock times by default: on a laptop running 8 nodes
 * on 2 cores they move from run to run and may even reverse.  Run in the
 * CM-5's virtual time instead (doc/model.md), they are the modelled
 * CM-5's, the same on every run (with computation free: scale 0):
 *
 *   cm5run -n 8 examples/tutorial/l7_contention
 *   CM5_MODEL_CPU_SCALE=0 cm5run -n 8 --model cm5 \
 *       examples/tutorial/l7_contention
 *
 * Exercise: XOR needs a power of two.  Write the shift order instead:
 * in step k (1 .. size-1) node i sends to (i + k) % size and receives
 * from (i - k + size) % size; run it on 6 nodes.  How many messages head
 * for one node per step now?
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#define BLOCK (64 * 1024)

static int self, nodes;
static char *sbuf, *rbuf; /* nodes blocks each */

static void fill(void)
{
    for (int j = 0; j < nodes; j++)
        memset(sbuf + (size_t)j * BLOCK, 'a' + (self + j) % 26, BLOCK);
    memset(rbuf, 0, (size_t)nodes * BLOCK);
}

/* 1 if block j came from node j intact. */
static int check(void)
{
    for (int j = 0; j < nodes; j++)
        if (j != self &&
            rbuf[(size_t)j * BLOCK + BLOCK - 1] != 'a' + (j + self) % 26)
            return 0;
    return 1;
}

static void naive(void)
{
    for (int j = 0; j < nodes; j++)
        if (j != self)
            CMMD_receive_async(j, 0, rbuf + (size_t)j * BLOCK, BLOCK, NULL,
                               NULL);
    for (int j = 0; j < nodes; j++)
        if (j != self)
            CMMD_send_async(j, 0, sbuf + (size_t)j * BLOCK, BLOCK, NULL, NULL);
    CMMD_all_msgs_wait();
}

/* Where node i sends in step k (1 .. nodes-1). */
static int partner(int i, int k) { return (i + k) % nodes; }

static void scheduled(void)
{
    for (int k = 1; k < nodes; k++) {
        int to = partner(self, k), from = (self - k + nodes) % nodes;

        CMMD_send_and_receive(from, 0, rbuf + (size_t)from * BLOCK, BLOCK, to,
                              0, sbuf + (size_t)to * BLOCK, BLOCK);
    }
}

/* The most messages heading for one node in one step of an order. */
static int most_into_one(int lp)
{
    int most = 0;

    for (int k = 1; k < nodes; k++)
        for (int dst = 0; dst < nodes; dst++) {
            int n = 0;

            for (int i = 0; i < nodes; i++) {
                /* naive: step k is everyone's k-th destination */
                int to = lp ? partner(i, k) : (k - 1 < i ? k - 1 : k);

                n += to == dst && i != dst;
            }
            if (n > most)
                most = n;
        }
    return most;
}

/* Real or virtual time: cm5_model() names the model, or is NULL. */
static double run(const char *name, void (*order)(void), int lp)
{
    const char *model = cm5_model();
    double t0, t;
    int ok;

    fill();
    CMMD_sync_with_nodes();
    t0 = cm5_wtime();
    order();
    t = cm5_wtime() - t0;
    t = CMMD_reduce_double(t, CMMD_combiner_dmax);
    ok = CMMD_reduce_int(check(), CMMD_combiner_min);
    if (self == 0) {
        printf("%-6s %d steps, most messages into one node in a step: "
               "%d, data %s\n",
               name, nodes - 1, most_into_one(lp), ok ? "correct" : "WRONG");
        if (model)
            printf("time %-6s %.3f ms (virtual time, model %s)\n", name,
                   t * 1e3, model);
        else
            printf("time %-6s %.3f ms (real clock)\n", name, t * 1e3);
    }
    return t;
}

int main(void)
{
    double naive_t, lp_t;

    self = CMMD_self_address();
    nodes = CMMD_partition_size();
    if (nodes < 2) {
        if (self == 0)
            fprintf(stderr, "l7_contention: run it on 2 nodes or more\n");
        return 2;
    }
    sbuf = malloc((size_t)nodes * BLOCK);
    rbuf = malloc((size_t)nodes * BLOCK);
    if (!sbuf || !rbuf)
        CMMD_error("l7_contention: out of memory");
    CMMD_fset_io_mode(stdout, CMMD_independent);
    if (self == 0)
        printf("complete exchange of %d KiB blocks on %d nodes\n", BLOCK / 1024,
               nodes);
    naive_t = run("naive", naive, 0);
    lp_t = run("shift", scheduled, 1);
    if (self == 0 && cm5_model())
        printf("naive takes %.2f times as long as shift\n", naive_t / lp_t);
    free(sbuf);
    free(rbuf);
    return 0;
}
