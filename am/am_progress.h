/*
 * The progress engine (am_progress.c): polls the channels through the
 * decoder the packet layer registers, runs the hooks the modules register
 * and the work they defer; counts the control-network epochs that hold
 * user work (DESIGN.md decision 9; am_packet.h has the calls that begin
 * and end them).
 */
#ifndef CM5_AM_PROGRESS_H
#define CM5_AM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "am_ctx.h"
#include "am_guard.h"
#include "am_util.h"
#include "fabric/fab.h"

/* Progress hooks, registered by each module's setup, run in order of
 * registration within a phase: FIRST before the channels are polled
 * (arg: the channel mask), CHANNEL before each channel's poll (arg: the
 * channel; returns work done), OUTSIDE after polling and outside
 * handlers, then the deferred work, then OUTSIDE_LAST; ALWAYS at the
 * end, in handlers too.  They return how much work they did. */
enum {
    CM5I_HOOK_FIRST,
    CM5I_HOOK_CHANNEL,
    CM5I_HOOK_OUTSIDE,      /* also while a send waits */
    CM5I_HOOK_OUTSIDE_LAST, /* not while a send waits */
    CM5I_HOOK_ALWAYS,
    CM5I_HOOK_NPHASES
};
typedef int (*cm5i_hook_func_t)(int arg);
void cm5i_progress_hook(int phase, cm5i_hook_func_t fn);
cm5_status_t cm5i_progress_setup(void);
void cm5i_progress_teardown(void);
/* A send waits (+1) or stops waiting (-1): meanwhile progress polls the
 * channels (handlers run, credits return, RPCs run unless one is
 * running) but runs no deferred work and sends no queued RTS. */
void cm5i_progress_poll_only(int delta);
/* May the runtime send (and wait for credits) here: not in a handler,
 * nor inside a send's wait, nor in the signal handler? */
int cm5i_progress_may_send(void);

/* The decoder of every packet the channels deliver (the packet layer's,
 * registered by its setup). */
void cm5i_progress_decoder(cm5i_fab_rx_func_t fn);

/* Poll the channels in chmask (bit per channel); returns messages run. */
int cm5i_progress(int chmask);
/* Only take what the channels hold (packets a clock keeps wait; the
 * others run as they land), return credits and send queued
 * announcements: no user work, no deferred work.  Virtual time's waits
 * for the other nodes' clocks (am_model_sync.c). */
int cm5i_progress_pull(void);
/* One step of a loop that waits on cm5i_progress_pull: it yields the CPU
 * once the pulls keep finding nothing (spins: the loop's count, 0 at
 * first). */
int cm5i_progress_pull_step(unsigned *spins);
/* Run the deferred work now, where a full progress would (not in a
 * handler, nor inside a send's wait): virtual time's synchronisation,
 * whose waits must not hold back what a packet it ran has to send. */
int cm5i_progress_run_deferred(void);

/* Work that may send or block, queued by handlers and completion
 * callbacks (which may not) and run outside every handler. */
typedef struct cm5i_deferred {
    struct cm5i_deferred *next;
    void (*run)(struct cm5i_deferred *self);
    uint32_t stamp; /* user work: its packets' control-network epoch */
} cm5i_deferred_t;
void cm5i_defer(cm5i_deferred_t *work);
/* The same for work that runs user code (completion callbacks): it waits
 * while a control-network call of an earlier epoch than work->stamp
 * waits (see CM5I_CN_HOLD). */
void cm5i_defer_user(cm5i_deferred_t *work);
/* Is user work held by a control-network call?  Any work queued? */
int cm5i_defer_held(void);
int cm5i_defer_pending(void);
/* Run the held user work only; returns how many ran. */
int cm5i_defer_run_held(void);

/* Control-network calls (barrier, reductions, scans, broadcast, concat,
 * their split-phase parts) keep the CM-5's timing (DESIGN.md, decision
 * 9): its control network ended a call at nearly the same instant on
 * every node.  Each node counts the control-network operations it has
 * begun (cm5i_cn_ops); every packet carries its sender's epoch: the
 * operations it had begun, plus one when it was not inside one (a
 * handler that runs inside operation k sends in epoch k).  A node inside
 * its k-th operation runs the user work of packets of epochs up to k
 * (requests, replies, RPCs, completion callbacks, rport handlers: what
 * was sent before the sender's k-th operation, or from inside it) and
 * holds later ones, each sender's in order, until it leaves (with
 * interrupts enabled: they run as the call returns).  The runtime's own
 * traffic keeps moving.  The host program of a host/node job counts no
 * epoch (its packets carry 0, never held) and holds all user work in its
 * own control-network calls.  Put CM5I_CN_HOLD() (CM5I_CN_HOLD_OP() in
 * the call that begins an operation, CM5I_CN_HOLD_HOST_OP() in a host
 * collective, am_host.c) after CM5I_GUARD().  A host collective counts
 * on the nodes as one operation (the nodes' calls inside it count none);
 * the host collectives are counted apart too (cm5i_host_ops), on the
 * host and the nodes alike. */
extern uint32_t cm5i_cn_ops;   /* control-network operations begun */
extern uint32_t cm5i_host_ops; /* host collectives begun */
extern int cm5i_cn_host;       /* the operation under way (or the last) is
                                  a host collective */
extern int cm5i_host_moving;   /* the nodes' collective under way moves a
                                  host collective's data (am_host.c) */
extern uint32_t cm5i_rx_stamp; /* epoch of the packet being handled, or 0 */
/* The epoch this node's packets carry now. */
static inline uint32_t cm5i_cn_stamp(void)
{
    if (cm5i_ctx.host >= 0 && cm5i_ctx.rank == cm5i_ctx.host)
        return 0;
    return cm5i_cn_ops + (cm5i_depth.cn_hold ? 0u : 1u);
}
/* Is user work of epoch stamp held here now? */
static inline int cm5i_cn_holds(uint32_t stamp)
{
    if (cm5i_depth.user_hold)
        return 1;
    if (!cm5i_depth.cn_hold)
        return 0;
    if (cm5i_ctx.host >= 0 && cm5i_ctx.rank == cm5i_ctx.host)
        return 1;
    return stamp != 0 && (int32_t)(stamp - cm5i_cn_ops) > 0;
}
/* The later of two epochs (0: none). */
static inline uint32_t cm5i_stamp_max(uint32_t a, uint32_t b)
{
    if (!a || (b && (int32_t)(b - a) > 0))
        return b;
    return a;
}

#endif
