/*
 * Lesson 6, solution: the token ring.  The handler only counts the
 * token's arrival; the main loop polls for it and sends it on, outside
 * any handler, where a request is legal.  (CMAML_rpc packages the same
 * idea: its function runs outside the handlers.)
 *
 *   cm5run -n 4 examples/tutorial/solutions/l6_deadlock
 *
 * The lesson:
 *
 * Every node sends ROUNDS requests to every other node at once, without
 * polling in between; each request handler replies.  Think of one
 * network: node A is stuck sending a request to B because B's input is
 * full, and B is stuck the same way sending to A.  Neither drains its
 * input, so neither gets unstuck.  Worse, a handler that had to answer
 * could not: its reply would queue behind the very requests that block.
 *
 * The CM-5 (and cm5fab) avoid this with two rules:
 *   - requests and replies travel on two separate data networks, and a
 *     node blocked sending keeps receiving from both;
 *   - a request handler may only reply (to its sender); a reply handler
 *     may send nothing.
 * A reply is therefore always accepted and its handler always finishes,
 * so the reply network always drains, and with it the request network.
 * This program cannot deadlock, however many requests are in flight.
 *
 *   cm5run -n 4 examples/tutorial/l6_deadlock
 *
 * Exercise: pass a token around the ring TRIPS times: node 0 starts it,
 * each node hands it on to its right neighbour.  Try it from the
 * handler first (CMAML_request inside a request handler): cm5fab stops
 * the job and says why.  Then do it the legal way: the handler only
 * notes the token; the main loop, which polls, sends it on.  Node 0
 * prints "the token came back after 12 hops" (on 4 nodes, TRIPS 3).
 */
#include <stdio.h>

#include <cm/cmmd.h>

#define ROUNDS 200
#define TRIPS 3

static volatile int answers, served, tokens, hops;

static void token(int h, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    hops = h;
    tokens++;
}

static void ring(int self, int nodes)
{
    int right = (self + 1) % nodes;

    if (self == 0)
        CMAML_request(right, (CMAML_handler_t)token, 1, 0, 0, 0);
    for (int t = 1; t <= TRIPS; t++) {
        CMAML_poll_while_lt(&tokens, t);
        if (self != 0 || t < TRIPS)
            CMAML_request(right, (CMAML_handler_t)token, hops + 1, 0, 0, 0);
    }
    if (self == 0)
        printf("the token came back after %d hops\n", hops);
}

static void answer(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    answers++;
}

static void ask(int from, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    served++;
    CMAML_reply(from, (CMAML_handler_t)answer, 0, 0, 0, 0);
}

int main(void)
{
    int self = CMMD_self_address(), nodes = CMMD_partition_size();
    int want = ROUNDS * (nodes - 1), all;

    CMMD_fset_io_mode(stdout, CMMD_independent);
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < nodes; j++)
            if (j != self)
                CMAML_request(j, (CMAML_handler_t)ask, self, 0, 0, 0);
    CMAML_poll_while_lt(&answers, want);
    CMAML_poll_while_lt(&served, want);
    all = CMMD_reduce_int(answers, CMMD_combiner_add);
    if (self == 0)
        printf("%d nodes sent %d requests each and all %d were answered\n",
               nodes, want, all);
    ring(self, nodes);
    return 0;
}
