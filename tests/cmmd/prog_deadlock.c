/*
 * Deadlocks and their counter-patterns, for cm5run's deadlock check
 * (tests/cmmd/deadlock.sh).  Modes:
 *   recv    node 0 waits for a message node 1 never sends, the others in
 *           the barrier after it: a deadlock (the check stops the job)
 *   flag    every node waits in CMAML_poll_while_lt for replies to
 *           requests nobody sent: a deadlock
 *   slow    node 1 computes for 5 s before it sends node 0's message:
 *           node 0 and the others wait longer than the check's 3 s, but
 *           node 1 runs, so it is no deadlock
 *   big [MIB]  node 0 sends node 1 MIB MiB (64; every byte checked), the
 *           others wait in the barrier: the data is in flight, no deadlock
 *   late    every node waits in CMAML_poll_while_lt; node 0 sleeps 5 s
 *           first, then sends each node the request whose handler ends
 *           its wait
 */
#include "t_util.h"

static volatile int replies;

static void poke(int one) { replies += one; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "recv";
    static char buf[64];

    t_init("prog_deadlock");
    if (strcmp(mode, "recv") == 0) {
        if (t_self == 0)
            CMMD_receive_block(1, 7, buf, sizeof(buf));
    } else if (strcmp(mode, "flag") == 0) {
        CMAML_poll_while_lt(&replies, 1);
    } else if (strcmp(mode, "slow") == 0) {
        if (t_self == 1) {
            t_compute(5.0);
            t_fill(buf, sizeof(buf), 1);
            CMMD_send_block(0, 7, buf, sizeof(buf));
        } else if (t_self == 0) {
            CMMD_receive_block(1, 7, buf, sizeof(buf));
            T_EQ(t_diff(buf, sizeof(buf), 1), -1L, "the late message");
        }
    } else if (strcmp(mode, "big") == 0) {
        size_t n = (size_t)(argc > 3 ? atoi(argv[2]) : 64) * T_MIB;
        char *big = t_malloc(n);

        if (t_self == 0) {
            t_fill(big, n, 2);
            CMMD_send_block(1, 8, big, (int)n);
        } else if (t_self == 1) {
            CMMD_receive_block(0, 8, big, (int)n);
            T_EQ(t_diff(big, n, 2), -1L, "the big message");
        }
        free(big);
    } else if (strcmp(mode, "late") == 0) {
        if (t_self == 0) {
            t_sleep(5.0);
            for (int k = 0; k < t_nodes; k++)
                CMAML_request(k, poke, 1, 0, 0, 0);
        }
        CMAML_poll_while_lt(&replies, 1);
    } else {
        T_CHECK(0, "unknown mode %s", mode);
    }
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
