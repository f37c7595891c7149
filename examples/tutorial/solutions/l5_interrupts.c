/*
 * Lesson 5, solution: polling inside the computation serves every
 * request too, at the price of a poll every 1000 iterations whether or
 * not something came (and the program has to be written for it).
 *
 *   cm5run -n 2 examples/tutorial/solutions/l5_interrupts
 *
 * The lesson:
 *
 * With polling, handlers run only when the node polls.  A node that
 * computes for a second without polling leaves every request to it
 * waiting for that second.  The CM-5 could also interrupt the node when
 * a message arrived (CMAML_enable_interrupts): the handler then runs in
 * the middle of the computation.  The interrupt cost far more than a poll
 * (tens of microseconds on the CM-5's SPARC, against a few for a poll),
 * which is why polling was the default and the scheduling papers poll.
 *
 * Node 0 asks node 1 ASKS times, one request after the other, while node
 * 1 computes for COMPUTE seconds.  The program counts how many of the
 * requests node 1 served during its computation: with polling none, with
 * interrupts all of them.
 *
 *   cm5run -n 2 examples/tutorial/l5_interrupts
 *
 * Exercise: keep interrupts off, but let the computation call
 * CMAML_poll() every 1000 iterations of its loop, in a third round
 * "polling in the loop".  How many requests are served during the
 * computation now, and what does each poll cost when nothing came?
 */
#include <stdio.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#define ASKS 3
#define COMPUTE 1.0 /* seconds */

static volatile int served, served_busy, answers, busy;

static void answer(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    answers++;
}

static void ask(int from, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    served++;
    served_busy += busy;
    CMAML_reply(from, (CMAML_handler_t)answer, 0, 0, 0, 0);
}

/* COMPUTE seconds of arithmetic; poll_every > 0: CMAML_poll() that often. */
static double compute(int poll_every)
{
    double t0 = cm5_wtime(), x = 0;

    for (long i = 1; cm5_wtime() - t0 < COMPUTE; i++) {
        x += 1.0 / (double)i;
        if (poll_every && i % poll_every == 0)
            CMAML_poll();
    }
    return x;
}

static void round_of(const char *how, int interrupts, int poll_every)
{
    int self = CMMD_self_address();

    served = served_busy = answers = 0;
    if (self == 1) {
        busy = 1; /* before the barrier: no request can come earlier */
        if (interrupts)
            CMAML_enable_interrupts();
    }
    CMMD_sync_with_nodes();
    if (self == 0) {
        for (int k = 0; k < ASKS; k++) {
            CMAML_request(1, (CMAML_handler_t)ask, 0, 0, 0, 0);
            CMAML_poll_while_lt(&answers, k + 1);
        }
    } else if (self == 1) {
        compute(poll_every);
        busy = 0;
        if (interrupts)
            CMAML_disable_interrupts();
        CMAML_poll_while_lt(&served, ASKS);
    }
    /* Node 1 says how many; everybody learns it, node 0 prints. */
    served_busy =
        CMMD_reduce_int(self == 1 ? served_busy : 0, CMMD_combiner_add);
    if (self == 0)
        printf("%s: node 1 served %d of %d requests while it computed\n", how,
               served_busy, ASKS);
}

int main(void)
{
    if (CMMD_partition_size() != 2) {
        if (CMMD_self_address() == 0)
            fprintf(stderr, "l5_interrupts: run it on 2 nodes\n");
        return 2;
    }
    CMMD_fset_io_mode(stdout, CMMD_independent);
    round_of("polling", 0, 0);
    round_of("interrupts", 1, 0);
    round_of("polling in the loop", 0, 1000);
    return 0;
}
