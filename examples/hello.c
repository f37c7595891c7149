/*
 * hello: every node says hello; node 0 also names the libfabric provider.
 *
 *   cm5run -n 4 examples/hello
 */
#include <stdio.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

int main(void)
{
    int self = CMMD_self_address();
    int nodes = CMMD_partition_size();

    CMMD_fset_io_mode(stdout, CMMD_independent);
    printf("hello from node %d of %d\n", self, nodes);
    if (self == 0)
        printf("provider: %s (bootstrap: %s)\n", cm5_provider(),
               cm5_bootstrap());
    return 0;
}
