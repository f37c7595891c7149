/*
 * Lesson 2: a first request and reply, with polling.
 *
 * An active message names a handler (a function of the receiving
 * program) and carries up to four int arguments: 16 bytes, one packet of
 * the CM-5's data network.  Each node asks its right neighbour for a
 * number: CMAML_request runs ask() there; ask() answers with CMAML_reply,
 * which runs answer() back here.
 *
 * Handlers run only when the node polls: CMAML_poll(), or a call that
 * waits, such as CMAML_poll_while_lt(&flag, value), which polls until
 * flag >= value.  Each node waits for two things: its own answer, and
 * the request of its left neighbour (if it stopped polling before that
 * request came, the neighbour would wait in vain: a barrier runs no
 * handlers, the CM-5's control network was a network of its own).
 *
 *   cm5run -n 4 examples/tutorial/l2_request
 *
 * Exercise: ask every other node instead of the right neighbour only
 * (size - 1 requests), add up the answers and print
 * "node 0: the others answered 60".  How many requests must each node
 * now serve before it may stop polling?
 */
#include <stdio.h>

#include <cm/cmmd.h>

static volatile int answers, served, value;

/* Runs back on the asking node (a reply handler: it sends nothing). */
static void answer(int v, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    value += v;
    answers++;
}

/* Runs on the node asked (a request handler: it may only reply). */
static void ask(int from, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    served++;
    CMAML_reply(from, (CMAML_handler_t)answer, 10 * CMMD_self_address(), 0, 0,
                0);
}

int main(void)
{
    int self = CMMD_self_address(), nodes = CMMD_partition_size();
    int right = (self + 1) % nodes;

    CMMD_fset_io_mode(stdout, CMMD_sync_seq);
    /* EXERCISE: ask every other node, not only the right one. */
    CMAML_request(right, (CMAML_handler_t)ask, self, 0, 0, 0);
    CMAML_poll_while_lt(&answers, 1); /* my answer */
    CMAML_poll_while_lt(&served, 1);  /* my left neighbour's request */
    printf("node %d: node %d answered %d\n", self, right, value);
    return 0;
}
