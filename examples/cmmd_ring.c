/*
 * cmmd_ring: CMMD block messages around a ring and a reduction, checked.
 * Each node passes a buffer of SIZE bytes to its right neighbour ROUNDS
 * times (even nodes send first, odd nodes receive first, since
 * CMMD_send_block waits for the receiver), then the nodes agree on a
 * checksum with CMMD_reduce_int.
 *
 *   cm5run -n 8 examples/cmmd_ring [-s SIZE] [-r ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cm/cmmd.h>

static int check(const unsigned char *b, int size, int origin)
{
    for (int i = 0; i < size; i++)
        if (b[i] != (unsigned char)(i * 31 + origin))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int size = 65536, rounds = 20, opt;
    int self = CMMD_self_address(), n = CMMD_partition_size();
    int right = (self + 1) % n, left = (self + n - 1) % n, origin = self;
    unsigned char *a, *b, *t;
    int ok, all;

    while ((opt = getopt(argc, argv, "s:r:")) != -1) {
        if (opt == 's' && atoi(optarg) > 0)
            size = atoi(optarg);
        else if (opt == 'r' && atoi(optarg) > 0)
            rounds = atoi(optarg);
        else
            CMMD_error("usage: %s [-s SIZE] [-r ROUNDS]", argv[0]);
    }
    a = malloc((size_t)size);
    b = malloc((size_t)size);
    if (!a || !b)
        CMMD_error("cmmd_ring: out of memory");
    for (int i = 0; i < size; i++)
        a[i] = (unsigned char)(i * 31 + self);
    for (int r = 0; r < rounds && n > 1; r++) {
        if (self % 2 == 0) {
            CMMD_send_block(right, r, a, size);
            CMMD_receive_block(left, r, b, size);
        } else {
            CMMD_receive_block(left, r, b, size);
            CMMD_send_block(right, r, a, size);
        }
        if (CMMD_bytes_received() != size || CMMD_msg_sender() != left)
            CMMD_error("cmmd_ring: node %d got %d bytes from node %d", self,
                       CMMD_bytes_received(), CMMD_msg_sender());
        origin = (origin + n - 1) % n;
        t = a, a = b, b = t;
    }
    ok = check(a, size, origin);
    all = CMMD_reduce_int(ok, CMMD_combiner_add);
    if (self == 0)
        printf("cmmd_ring: %d nodes, %d rounds of %d bytes: %d of %d nodes "
               "hold the right data\n",
               n, rounds, size, all, n);
    free(a);
    free(b);
    return all == n ? 0 : 1;
}
