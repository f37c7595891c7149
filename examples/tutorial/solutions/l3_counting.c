/*
 * Lesson 3, solution: the largest receive count, with one more reduction
 * (every node gets the result; node 0 prints it).
 *
 *   cm5run -n 5 examples/tutorial/solutions/l3_counting
 *
 * The lesson:
 *
 * In an irregular exchange each node knows what it sends (its row sendl
 * of the communication matrix) but not what it will receive.  Generate_Recv
 * learns it with one reduction and a few active messages:
 *   1. mask[j] = 1 if this node sends to node j;
 *   2. recv_cnt = the sum of every node's mask (CMMD_reduce_v, a
 *      control-network operation): recv_cnt[me] messages will come to me;
 *   3. send each destination j one request carrying (me, size);
 *   4. the handler stores recvl[from] = size and counts; poll until the
 *      count reaches recv_cnt[me].
 * Without step 2 a node could never know when to stop polling.  The
 * handler runs to completion and sends nothing: cheap, and safe.
 *
 *   cm5run -n 5 examples/tutorial/l3_counting
 *
 * Exercise: print on node 0 the largest number of messages any node
 * receives (the papers' L_max, a lower bound on the phases of any
 * schedule): "largest receive count: 3".  Use CMMD_reduce_int with
 * CMMD_combiner_max.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cm/cmmd.h>

static int *recvl;
static volatile int arrived;

static void gr_handler(int from, int size, int c, int d)
{
    (void)c, (void)d;
    recvl[from] = size;
    arrived++;
}

/* The example's matrix: node i sends (i + 1) * 100 + j bytes to node j
 * when (i + 2 * j) % 3 != 0, i != j. */
static int sendl(int i, int j)
{
    return i != j && (i + 2 * j) % 3 != 0 ? (i + 1) * 100 + j : 0;
}

int main(void)
{
    int self = CMMD_self_address(), nodes = CMMD_partition_size();
    int *mask = calloc((size_t)nodes, sizeof(int));
    int *cnt = calloc((size_t)nodes, sizeof(int));

    recvl = calloc((size_t)nodes, sizeof(int));
    if (!mask || !cnt || !recvl)
        CMMD_error("l3_counting: out of memory");
    CMMD_fset_io_mode(stdout, CMMD_sync_seq);
    for (int j = 0; j < nodes; j++)
        mask[j] = sendl(self, j) > 0;
    CMMD_reduce_v(cnt, mask, CMMD_combiner_add, sizeof(int), nodes);
    for (int j = 0; j < nodes; j++)
        if (mask[j])
            CMAML_request(j, (CMAML_handler_t)gr_handler, self, sendl(self, j),
                          0, 0);
    CMAML_poll_while_lt(&arrived, cnt[self]);
    printf("node %d receives %d:", self, cnt[self]);
    for (int j = 0; j < nodes; j++)
        if (recvl[j])
            printf(" %d bytes from node %d", recvl[j], j);
    printf("\n");
    int most = CMMD_reduce_int(cnt[self], CMMD_combiner_max);

    if (self == 0)
        printf("largest receive count: %d\n", most);
    free(mask);
    free(cnt);
    free(recvl);
    return 0;
}
