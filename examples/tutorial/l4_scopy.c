/*
 * Lesson 4: bulk data with rports and CMAML_scopy.
 *
 * Active messages carry 16 bytes.  For a block of data the CM-5 had
 * scopy: the receiver prepares an rport (a receive port: a base address,
 * a byte counter and a handler), tells the senders its number, and the
 * senders copy blocks into it at offsets of their choice.  The counter
 * goes down as data lands; at 0 the rport's handler runs.  No receive
 * call matches a send: the receiver said once where data goes, and the
 * data needs no further handshake, which is why scopy was the fast way
 * to move data on the CM-5.
 *
 * Here every node copies a block of BLOCK ints into node 0's rport; node
 * 0 polls until its handler says everything landed, then prints a sum
 * per block.  CMMD_bc_to_nodes hands the rport number to the others.
 *
 *   cm5run -n 4 examples/tutorial/l4_scopy
 *
 * Exercise: CMAML_scopy returns before the data has left; the block may
 * be changed again only when the sent handler (its 7th argument) has run.
 * Give it one that sets a flag, poll for the flag, and print
 * "node 2: block sent" on every node.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cm/cmmd.h>

#define BLOCK 256

static volatile int all_in;

static void collected(int rport, void *arg2)
{
    (void)rport, (void)arg2;
    all_in = 1;
}

int main(void)
{
    int self = CMMD_self_address(), nodes = CMMD_partition_size();
    static int mine[BLOCK];
    int *all = NULL, r;

    CMMD_fset_io_mode(stdout, CMMD_sync_seq);
    for (int k = 0; k < BLOCK; k++)
        mine[k] = self * 1000 + k;
    if (self == 0) {
        all = calloc((size_t)nodes * BLOCK, sizeof(int));
        if (!all)
            CMMD_error("l4_scopy: out of memory");
        r = CMAML_allocate_rport();
        CMAML_set_rport_addr(r, all);
        CMAML_set_rport_byte_counter(r, (int)sizeof(mine) * nodes);
        CMAML_set_rport_handler(r, (CMAML_handler_t)collected);
        CMMD_bc_to_nodes(&r, sizeof(r)); /* the rport is ready */
    } else {
        CMMD_receive_bc_from_node(&r, sizeof(r));
    }
    /* EXERCISE: a sent handler instead of NULL, NULL. */
    CMAML_scopy(0, r, 0, (int)sizeof(mine) * self, mine, sizeof(mine), NULL,
                NULL);
    if (self == 0) {
        CMAML_poll_while_lt(&all_in, 1);
        for (int i = 0; i < nodes; i++) {
            long sum = 0;

            for (int k = 0; k < BLOCK; k++)
                sum += all[i * BLOCK + k];
            printf("block of node %d: %d .. %d, sum %ld\n", i, all[i * BLOCK],
                   all[i * BLOCK + BLOCK - 1], sum);
        }
        CMAML_free_rport(r);
        free(all);
    }
    /* Node 0 reads the blocks before anyone leaves (and reuses mine). */
    CMMD_sync_with_nodes();
    return 0;
}
