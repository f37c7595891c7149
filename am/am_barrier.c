/*
 * Barrier: dissemination algorithm, ceil(log2 P) rounds.  In round r node
 * i signals node (i + 2^r) mod P and waits for the signal of node
 * (i - 2^r) mod P.  Each node gets exactly one signal per round and
 * barrier, so counting arrivals per round is enough even when a fast node
 * already signals the next barrier.  Barrier packets are uncounted by flow
 * control (the receiver keeps room for them), so the barrier at exit needs
 * no credits.
 */
#include "am_internal.h"

cm5_status_t cm5i_barrier_setup(void)
{
    cm5i_ctx.bar_epoch = 0;
    for (int r = 0; r < CM5I_BARRIER_ROUNDS; r++)
        cm5i_ctx.bar_arrived[r] = 0;
    return CM5_OK;
}

cm5_status_t cm5_barrier(void)
{
    uint32_t epoch;
    cm5_status_t st;
    int r = 0;

    cm5i_ensure_init();
    if (cm5i_ctx.in_handler)
        return CM5_ERR_STATE;
    epoch = ++cm5i_ctx.bar_epoch;
    for (int d = 1; d < cm5i_ctx.size; d <<= 1, r++) {
        cm5i_pkt_t pkt = {.type = CM5I_PKT_BARRIER, .seq = epoch};
        cm5i_waiter_t w;

        pkt.arg[0] = (uint32_t)r;
        st = cm5i_am_send(CM5I_CH_REQ, (cm5i_ctx.rank + d) % cm5i_ctx.size,
                          &pkt);
        if (st != CM5_OK)
            return st;
        cm5i_waiter_init(&w);
        while (cm5i_ctx.bar_arrived[r] < epoch)
            cm5i_wait_step(&w, CM5I_CH_ALL);
    }
    return CM5_OK;
}
