/*
 * prog_spin: legacy wait loops that only probe.  CM-5 programs of the
 * time wait for a message, a send or a barrier by calling a probe in a
 * loop with nothing else in it:
 *
 *     while (!CMMD_msg_pending(from, tag)) ;
 *     while (!CMMD_msg_done(mcb)) ;
 *     CMMD_sync_with_nodes_start(); while (!CMMD_sync_done()) ;
 *
 * On the CM-5 every node had its own processor; here 32 nodes may share
 * one CPU, and a probe that never gives the CPU away makes every spinning
 * node burn its whole time slice before the node it waits for may run.
 * The probes back off like CMAML_poll: after many empty calls in quick
 * succession they yield, then sleep until something arrives.
 *
 * ROUNDS rounds of a ring exchange (each node sends LEN bytes to the next
 * and receives from the previous), every wait a bare probe loop, then a
 * split-phase barrier waited on the same way.  Node 0 prints the time the
 * rounds took: "prog_spin: node 0 rounds N ms M".
 *
 *   cm5run -n N prog_spin [ROUNDS]
 */
#include "t_util.h"

#define LEN 256
#define TAG 7

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    unsigned char out[LEN], in[LEN];
    double t0;

    t_init("prog_spin");
    T_CHECK(rounds > 0 && rounds < 100000, "bad ROUNDS '%s'", argv[1]);
    int to = (t_self + 1) % t_nodes;
    int from = (t_self + t_nodes - 1) % t_nodes;

    CMMD_sync_with_nodes();
    t0 = t_now();
    for (int r = 0; r < rounds; r++) {
        CMMD_mcb mcb;

        t_fill(out, LEN, (uint32_t)(r * 1000 + t_self));
        mcb = CMMD_send_async(to, TAG, out, LEN, NULL, NULL);
        T_CHECK(mcb > 0, "CMMD_send_async gave %d", mcb);
        while (!CMMD_msg_pending(from, TAG))
            ;
        T_EQ(CMMD_bytes_received(), LEN, "bytes pending");
        CMMD_receive_block(from, TAG, in, LEN);
        T_PATTERN(in, LEN, (uint32_t)(r * 1000 + from), "round %d", r);
        while (!CMMD_msg_done(mcb))
            ;
        CMMD_free_mcb(mcb);
        CMMD_sync_with_nodes_start();
        while (!CMMD_sync_done())
            ;
        CMMD_sync_with_nodes_finish();
    }
    if (t_self == 0)
        printf("prog_spin: node 0 rounds %d ms %.0f\n", rounds,
               (t_now() - t0) * 1e3);
    t_done();
    return 0;
}
