/*
 * Lesson 2, solution: ask every other node.  Each node sends size - 1
 * requests and serves size - 1 (one from every other node), so it polls
 * until it has size - 1 answers and has served size - 1 requests.  The
 * requests leave one after the other without waiting for the answers:
 * that overlap is what active messages are for.
 *
 *   cm5run -n 4 examples/tutorial/solutions/l2_request
 */
#include <stdio.h>

#include <cm/cmmd.h>

static volatile int answers, served, value;

static void answer(int v, int b, int c, int d)
{
    (void)b, (void)c, (void)d;
    value += v;
    answers++;
}

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

    CMMD_fset_io_mode(stdout, CMMD_sync_seq);
    for (int j = 0; j < nodes; j++)
        if (j != self)
            CMAML_request(j, (CMAML_handler_t)ask, self, 0, 0, 0);
    CMAML_poll_while_lt(&answers, nodes - 1);
    CMAML_poll_while_lt(&served, nodes - 1);
    printf("node %d: the others answered %d\n", self, value);
    return 0;
}
