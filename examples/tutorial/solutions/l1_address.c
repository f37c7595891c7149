/*
 * Lesson 1, solution: the ring neighbours of every node.  Node i's left
 * neighbour is (i - 1 + size) % size (adding size keeps it >= 0), its
 * right one (i + 1) % size.
 *
 *   cm5run -n 4 examples/tutorial/solutions/l1_address
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
    printf("node %d of %d: left %d, right %d\n", self, nodes,
           (self - 1 + nodes) % nodes, (self + 1) % nodes);
    return 0;
}
