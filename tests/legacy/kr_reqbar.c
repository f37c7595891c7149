/*
 * kr_reqbar: a 1993-style program (K&R, legacy mode) of issue 24's first
 * row: each node sends 16 requests to its right neighbour, polls with
 * CMAML_poll_while_lt for the 16 replies, then CMMD_sync_with_nodes;
 * 50 rounds.  A neighbour may already wait in the barrier: it answers
 * (the epoch rule).  And "#define N" before the calls, as old code had.
 */
#include <stdio.h>
#include <cm/cmmd.h>

#define N (1 << 16)
int acks;

void reply_handler(a)
int a;
{
    acks++;
}

void request_handler(from, k)
int from, k;
{
    CMAML_reply(from, reply_handler, k);
}

main(argc, argv)
int argc;
char **argv;
{
    int me = CMMD_self_address(), n = CMMD_partition_size(), k, round;
    static int big[N];

    for (round = 0; round < 50; round++) {
        acks = 0;
        for (k = 0; k < 16; k++)
            CMAML_request((me + 1) % n, request_handler, me, k);
        CMAML_poll_while_lt(&acks, 16);
        CMMD_sync_with_nodes();
    }
    big[N - 1] = me;
    if (me == 0)
        printf("kr: %d nodes, 50 rounds ok\n", n);
    return 0;
}
