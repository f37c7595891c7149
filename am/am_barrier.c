/*
 * Barrier: dissemination algorithm, ceil(log2 P) rounds.  In round r node
 * i signals node (i + 2^r) mod P and waits for the signal of node
 * (i - 2^r) mod P.  Each node gets exactly one signal per round and
 * barrier, so counting arrivals per round is enough even when a fast node
 * already signals the next barrier.  Barrier packets are uncounted by flow
 * control (the receiver keeps room for them), so the barrier at exit needs
 * no credits.  The split-phase form advances the rounds whenever it is
 * tested.
 *
 * A job whose nodes all share one host's memory, on its same-host rings,
 * and sleep on its doorbell synchronises there instead (CM5_BARRIER=auto;
 * real time only: virtual time's clocks travel in the signals): a
 * central counter with a generation; the last node to arrive resets the
 * count, moves the generation and wakes the nodes asleep.  Every node is
 * released at once, as by the CM-5's control network, where the
 * signals' log2 N rounds each wait for a node to be scheduled (a barrier
 * took 7.1 us against 11.9 at 8 nodes on 2 CPUs, 50 against 132 at 32;
 * doc/bench.md).
 */
#include "am_barrier.h"

#include <string.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t barrier_count; /* this module's statistics (cm5_stats) */

#define BARRIER_ROUNDS 32

/* Split-phase: bar.round rounds of bar.epoch are done. */
static struct {
    uint32_t epoch;
    int round, active;
    uint32_t arrived[BARRIER_ROUNDS];
    cm5_doorbell_job_t *shm; /* the host's counter, or NULL: signals */
    uint32_t shm_gen;        /* its generation when this node arrived */
} bar;

/* A barrier packet: a signal of round arg[0]; uncounted. */
static int barrier_packet(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch;
    if (pkt->arg[0] < BARRIER_ROUNDS)
        bar.arrived[pkt->arg[0]]++;
    barrier_count.internal_handled++;
    return 0;
}

/* The host's counter, if the whole partition may use it (after the
 * model's and the waits' set-up). */
static cm5_doorbell_job_t *barrier_shm_pick(void)
{
    const char *v = cm5i_config_str(CM5_ENV_BARRIER);

    if (strcmp(v, "auto") != 0 && strcmp(v, "packets") != 0)
        cm5i_config_error(CM5_ENV_BARRIER "=%s: expected auto or packets", v);
    if (strcmp(v, "auto") != 0 || !cm5i_ctx.boot.local || cm5i_clock)
        return NULL;
    /* Only where the same-host rings carry every packet: libfabric's
     * providers (shm, udp's rxd) make a peer's connection with its first
     * packets, which the peer must progress to take, and the signals of
     * a job's first barrier made them; without them a node's first
     * sends to a peer that computes would wait for it. */
    for (int k = 0; k < cm5i_ctx.size; k++)
        if (k != cm5i_ctx.rank && !cm5i_fab_via_ring(cm5i_ctx.fab, k))
            return NULL;
    return cm5i_wait_job();
}

cm5_status_t cm5i_barrier_setup(void)
{
    cm5i_stats_part(&barrier_count);
    memset(&bar, 0, sizeof(bar));
    cm5i_pkt_register(CM5I_PKT_BARRIER, barrier_packet);
    bar.shm = barrier_shm_pick();
    cm5i_log(CM5I_LOG_DEBUG, "barrier", "barriers %s",
             bar.shm ? "through the host's shared memory"
                     : "by signals (dissemination)");
    return CM5_OK;
}

/* The barrier ended: every node had arrived, and each had put in this
 * node's queues every packet it sent before (the rings are shared
 * memory: a packet is there once sent; the generation moved after).
 * Take them now, so that what every node sent before the barrier has
 * been handled here when it returns, as the signals' barrier made
 * likely and this one makes sure (a bad call's error, a handler's
 * count).  Not inside a handler (a split-phase test there), which runs
 * no request handler. */
static void barrier_shm_drain(void)
{
    if (cm5i_depth.in_handler)
        return;
    for (int pass = 0; pass < 64 && cm5i_progress(CM5I_CH_ALL) > 0; pass++)
        ;
}

/* Arrive at the host's counter; the last node ends the barrier. */
static void barrier_shm_arrive(void)
{
    cm5_doorbell_job_t *j = bar.shm;
    int size = cm5i_ctx.size;

    bar.shm_gen = atomic_load(&j->bar_gen);
    /* (Before the arrival: the last node may end it at once.) */
    cm5i_wait_watch(&j->bar_gen, bar.shm_gen);
    if (atomic_fetch_add(&j->bar_count, 1) + 1 < (uint32_t)size)
        return;
    /* The count first: nobody arrives at the next one before the
     * generation moves.  Then wake whoever sleeps (after the store: a
     * node arming its doorbell after the load below sees the word). */
    atomic_store(&j->bar_count, 0);
    atomic_store(&j->bar_gen, bar.shm_gen + 1);
    for (int k = 0; k < size; k++)
        if (k != cm5i_ctx.rank)
            cm5i_doorbell_wake(k);
}

uint64_t cm5i_barrier_digest(uint64_t h)
{
    return cm5i_digest(h, bar.arrived, sizeof(bar.arrived));
}

void cm5i_barrier_teardown(void) { memset(&bar, 0, sizeof(bar)); }

/* A split-phase barrier was left open. */
int cm5i_barrier_open(void) { return bar.active; }

static cm5_status_t barrier_signal(int r)
{
    cm5i_pkt_t pkt = {.type = CM5I_PKT_BARRIER, .seq = bar.epoch};

    pkt.arg[0] = (uint32_t)r; /* (virtual time: the entry clocks seen so
                                 far travel in its clock word) */
    return cm5i_am_send(CM5I_CH_REQ, (cm5i_ctx.rank + (1 << r)) % cm5i_ctx.size,
                        &pkt);
}

cm5_status_t cm5_barrier_start(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    cm5i_ensure_init();
    if (cm5i_depth.in_handler || bar.active ||
        cm5i_ctx.rank >= cm5i_ctx.size) /* left the partition */
        return CM5_ERR_STATE;
    bar.epoch++;
    bar.round = 0;
    bar.active = 1;
    CM5I_EV(barrier_start);
    if (bar.shm && cm5i_ctx.size > 1) {
        /* (A barrier that never waits is still the program's call: a
         * node's exit status is watched from its first one, as from a
         * wait's first step; am_init.c, ctx_atexit.) */
        if (CM5I_UNLIKELY(!cm5i_ctx.exit_hooked))
            cm5i_exit_hook();
        barrier_shm_arrive();
        return CM5_OK;
    }
    return cm5i_ctx.size > 1 ? barrier_signal(0) : CM5_OK;
}

/* Advance through every round whose signal has come. */
static int barrier_advance(void)
{
    if (bar.shm && cm5i_ctx.size > 1) {
        if (bar.active &&
            atomic_load_explicit(&bar.shm->bar_gen, memory_order_acquire) !=
                bar.shm_gen) {
            bar.active = 0;
            cm5i_wait_unwatch();
            barrier_shm_drain();
            CM5I_EV(barrier_done);
        }
        return !bar.active;
    }
    while ((1 << bar.round) < cm5i_ctx.size &&
           bar.arrived[bar.round] >= bar.epoch) {
        CM5I_EV(barrier_round, bar.epoch, bar.round);
        bar.round++;
        if ((1 << bar.round) < cm5i_ctx.size &&
            barrier_signal(bar.round) != CM5_OK)
            cm5_fatal("cm5_barrier", "cannot signal the next node");
    }
    if ((1 << bar.round) >= cm5i_ctx.size && bar.active) {
        bar.active = 0;
        CM5I_EV(barrier_done);
    }
    return !bar.active;
}

int cm5i_barrier_waits;

/* Synchronised virtual time: a test at clock c says done once the
 * barrier's end is at or before c; while its end is unknown it takes
 * packets until the end is known or cannot be before c. */
static int barrier_test_turn(int done)
{
    for (unsigned spins = 0;;) {
        int r = cm5i_clock->split_turn(done);

        if (r >= 0)
            return r;
        cm5i_progress_pull_step(&spins);
        done = barrier_advance();
    }
}

int cm5_barrier_test(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    int done;

    if (!bar.active && !cm5i_clock_orders)
        return 1;
    if (!cm5i_depth.in_handler) /* (synchronised: every test is a poll) */
        cm5i_probe_progress_cn();
    done = !bar.active || barrier_advance();
    if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->split_turn)
        done = barrier_test_turn(done);
    return done;
}

cm5_status_t cm5_barrier_finish(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    cm5i_waiter_t w;

    if (cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    cm5i_barrier_waits = 1;
    cm5i_waiter_start(&w, CM5I_WAIT_BARRIER);
    while (bar.active && !barrier_advance())
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    cm5i_barrier_waits = 0;
    /* (a test saw it end, before its end in virtual time: reach it) */
    if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->split_turn)
        cm5i_clock->split_turn(2);
    return CM5_OK;
}

cm5_status_t cm5_barrier(void)
{
    CM5I_GUARD();
    cm5_status_t st = cm5_barrier_start();

    return st == CM5_OK ? cm5_barrier_finish() : st;
}
