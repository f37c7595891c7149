/*
 * Lesson 1: the partition and the node address.
 *
 * Every node runs this same program.  CMMD_self_address() tells a node
 * which one it is (0 .. size-1) and CMMD_partition_size() how many nodes
 * the partition has.  CMMD_sync_seq makes the nodes' output appear in
 * node order (node 0's lines, then node 1's, ...), so it is the same on
 * every run: the CM-5 offered this mode for exactly that reason.
 *
 *   cm5run -n 4 examples/tutorial/l1_address
 *
 * Exercise: after its line, let every node print its neighbours in a
 * ring, "node 1 of 4: left 0, right 2" (node 0's left is node 3).
 */
#include <stdio.h>

#include <cm/cmmd.h>

int main(void)
{
    int self = CMMD_self_address();
    int nodes = CMMD_partition_size();

    CMMD_fset_io_mode(stdout, CMMD_sync_seq);
    if (self == 0)
        printf("a partition of %d nodes\n", nodes);
    printf("node %d of %d\n", self, nodes);
    /* EXERCISE: print this node's left and right neighbours. */
    return 0;
}
