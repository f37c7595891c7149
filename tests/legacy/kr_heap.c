/*
 * kr_heap: heap identity after communication (cm5cc --legacy).  Every
 * node first moves data (blocking and asynchronous sends around a ring,
 * a reduction, a broadcast, active messages), then mallocs NBLK blocks
 * of assorted sizes and ships each block's address to the next node in
 * an active-message word; the receiver writes through it at once, as
 * CM-5 code did, and checks that the address equals its own block's.
 * Each node prints "node N: heap ok" or where the addresses differ;
 * node 0 also prints "heap first 0x...".  argv[1]: rounds of traffic.
 */
#include <stdio.h>
#include <cm/cmmd.h>

#define NBLK 8

char *blk[NBLK];
int same, differ, got;

void addr_handler(k, addr, from)    /* a pointer in an int word */
int k, addr, from;
{
    if ((char *)addr == blk[k]) {
        *(int *)addr = from;        /* a remote write, as on the CM-5 */
        same++;
    } else
        differ++;
    got++;
}

void nop_handler()
{
}

main(argc, argv)
int argc;
char **argv;
{
    static int sizes[NBLK] = {16, 24, 100, 1000, 4096, 33, 200000, 64};
    int self, n, to, from, rounds, r, k, buf[256], in[256], x;

    self = CMMD_self_address();
    n = CMMD_partition_size();
    rounds = argc > 1 ? atoi(argv[1]) : 3;
    to = (self + 1) % n;
    from = (self + n - 1) % n;
    for (r = 0; r < rounds; r++) {
        for (k = 0; k < 256; k++)
            buf[k] = self + r + k;
        CMMD_send_and_receive(from, 5, in, sizeof(in), to, 5, buf,
                              sizeof(buf));
        x = CMMD_reduce_int(self + r, CMMD_combiner_add);
        if (self == 0)
            CMMD_bc_to_nodes(&x, sizeof(x));
        else
            CMMD_receive_bc_from_node(&x, sizeof(x));
        CMAML_request(to, nop_handler);
        CMMD_sync_with_nodes();
    }
    for (k = 0; k < NBLK; k++)      /* implicitly declared malloc */
        blk[k] = (char *)malloc(sizes[k]);
    CMMD_sync_with_nodes();
    for (k = 0; k < NBLK; k++)
        CMAML_request(to, addr_handler, k, (int)blk[k], self);
    CMAML_poll_while_lt(&got, NBLK);
    CMMD_sync_with_nodes();
    if (self == 0)
        printf("heap first %p last %p\n", (void *)blk[0],
               (void *)blk[NBLK - 1]);
    if (differ == 0)
        printf("node %d: heap ok\n", self);
    else
        printf("node %d: %d of %d addresses differ (first %p)\n", self,
               differ, NBLK, (void *)blk[0]);
    return differ != 0;
}
