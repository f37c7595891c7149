/*
 * The progress engine: polls the channels, hands each packet to the
 * decoder the packet layer registered (am_packet.c), runs the hooks the
 * modules registered and the deferred work they queued; counts the
 * control-network epochs that hold user work.  It names no module: each
 * module's setup registers its packet types (cm5i_pkt_register) and its
 * hooks (cm5i_progress_hook), the packet layer its decoder
 * (cm5i_progress_decoder).
 */
#include "am_progress.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_util.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t progress_count; /* this module's statistics (cm5_stats) */

#define PROGRESS_HOOKS_MAX 8

uint32_t cm5i_cn_ops;
uint32_t cm5i_host_ops;
int cm5i_cn_host;
int cm5i_host_moving;
uint32_t cm5i_rx_stamp;

static struct {
    cm5i_hook_func_t hooks[CM5I_HOOK_NPHASES][PROGRESS_HOOKS_MAX];
    int nhooks[CM5I_HOOK_NPHASES];
    cm5i_deferred_t *defer_head, *defer_tail;
    /* User work (completion callbacks) deferred while a control-network
     * call waits (see CM5I_CN_HOLD). */
    cm5i_deferred_t *held_head, *held_tail;
    int depth, defer_depth; /* nesting of progress, of deferred work */
    int poll_only;          /* a send waits: poll, run no deferred work */
    unsigned queued;        /* work deferred so far */
    cm5i_fab_rx_func_t decoder;
} prog;

void cm5i_progress_decoder(cm5i_fab_rx_func_t fn) { prog.decoder = fn; }

void cm5i_progress_hook(int phase, cm5i_hook_func_t fn)
{
    for (int i = 0; i < prog.nhooks[phase]; i++)
        if (prog.hooks[phase][i] == fn)
            return; /* (a start that failed registered it already) */
    if (prog.nhooks[phase] == PROGRESS_HOOKS_MAX)
        cm5_fatal("cm5fab", "too many progress hooks");
    prog.hooks[phase][prog.nhooks[phase]++] = fn;
}

static int progress_run_hooks(int phase, int arg)
{
    int n = 0;

    for (int i = 0; i < prog.nhooks[phase]; i++)
        n += prog.hooks[phase][i](arg);
    return n;
}

void cm5i_defer(cm5i_deferred_t *work)
{
    prog.queued++;
    CM5I_QUEUE_APPEND(prog.defer_head, prog.defer_tail, work);
}

void cm5i_defer_user(cm5i_deferred_t *work)
{
    if (!cm5i_cn_holds(work->stamp) && !prog.held_head) {
        cm5i_defer(work);
        return;
    }
    CM5I_QUEUE_APPEND(prog.held_head, prog.held_tail, work);
}

int cm5i_defer_held(void) { return prog.held_head != NULL; }

int cm5i_defer_pending(void) { return prog.held_head || prog.defer_head; }

/* Put the held user work that may run now back in the deferred queue,
 * ahead of newer work, in order; the rest stays held, in order. */
static void progress_release_held(void)
{
    cm5i_deferred_t *go_head = NULL, *go_tail = NULL;
    cm5i_deferred_t *w = prog.held_head, *next;

    prog.held_head = prog.held_tail = NULL;
    for (; w; w = next) {
        next = w->next;
        if (cm5i_cn_holds(w->stamp))
            CM5I_QUEUE_APPEND(prog.held_head, prog.held_tail, w);
        else
            CM5I_QUEUE_APPEND(go_head, go_tail, w);
    }
    if (!go_head)
        return;
    go_tail->next = prog.defer_head; /* (a splice: ahead of newer work) */
    if (!prog.defer_head)
        prog.defer_tail = go_tail;
    prog.defer_head = go_head;
}

/* Run one step of deferred work, measuring its nesting and duration. */
static void progress_run_one(cm5i_deferred_t *w)
{
    cm5_stats_t *st = &progress_count;
    double t0 = cm5_rtime(), us;

    if ((uint64_t)++prog.defer_depth > st->deferred_depth_max)
        st->deferred_depth_max = (uint64_t)prog.defer_depth;
    w->run(w); /* may send, wait, and so defer more */
    prog.defer_depth--;
    us = (cm5_rtime() - t0) * 1e6;
    if (us > (double)st->deferred_max_us)
        st->deferred_max_us = (uint64_t)us;
}

/* Run the deferred work queued so far (what it queues runs next time:
 * a step that must wait re-queues itself instead).  Returns the steps
 * run less those queued meanwhile: a wait whose only work is a step
 * retrying still backs off. */
static int progress_drain(void)
{
    cm5i_deferred_t *w = prog.defer_head, *next;
    unsigned queued = prog.queued;
    int n = 0;

    prog.defer_head = prog.defer_tail = NULL;
    for (; w; w = next, n++) {
        next = w->next;
        if (CM5I_UNLIKELY(cm5i_irq_in_signal))
            progress_count.signal_steps++;
        progress_run_one(w);
    }
    n -= (int)(prog.queued - queued);
    return n > 0 ? n : 0;
}

/* Run the user work held so far (what an interrupt runs, outside
 * handlers and control-network calls); the runtime's own steps wait for
 * the next progress, outside the signal handler. */
int cm5i_defer_run_held(void)
{
    cm5i_deferred_t *w = prog.held_head, *next;
    int n = 0;

    prog.held_head = prog.held_tail = NULL;
    for (; w; w = next, n++) {
        next = w->next;
        progress_run_one(w);
    }
    return n;
}

void cm5i_progress_poll_only(int delta) { prog.poll_only += delta; }

int cm5i_progress_may_send(void)
{
    return !cm5i_depth.in_handler && !prog.poll_only && !cm5i_irq_in_signal;
}

/* Forget the queued work (finalize: the modules free their own). */
cm5_status_t cm5i_progress_setup(void)
{
    cm5i_stats_part(&progress_count);
    return CM5_OK;
}

void cm5i_progress_teardown(void)
{
    prog.defer_head = prog.defer_tail = NULL;
    prog.held_head = prog.held_tail = NULL;
    prog.depth = prog.defer_depth = prog.poll_only = 0;
}

/* A peer is unreachable.  When a node dies, the launcher (cm5run,
 * mpirun) stops the job and names it: wait a little for that, so that the
 * user reads one line and not one per surviving node; if nobody stops us
 * (a cut link), report it ourselves, naming the node if we know it.  The
 * provider does not always say which peer failed (tcp;ofi_rxm reports a
 * connection that broke mid-message with no operation's context): where
 * the heartbeat watches, wait for it too -- the dead node's successor
 * names it within the timeout -- rather than stop the job with a line
 * that names no node (srun, for one, names none before its own node
 * timeout). */
static CM5_NORETURN void progress_network_failure(int c, int status)
{
    int lost = cm5i_fab_lost_node(cm5i_ctx.fab);
    double hb = lost < 0 ? cm5i_ctx.watch_s : 0;
    double until = cm5_rtime() + 3.0 + hb;
    struct timespec ts = {0, 20 * 1000 * 1000};

    if (strcmp(cm5_bootstrap(), "single") != 0)
        while (cm5_rtime() < until)
            nanosleep(&ts, NULL);
    if (lost >= 0)
        cm5_fatal("cm5fab",
                  "lost node %d: a message to it on the %s channel failed "
                  "(%s); the node died or its network link is down",
                  lost, c == CM5I_CH_REQ ? "request" : "reply",
                  cm5_status_string(status));
    cm5_fatal("cm5fab",
              "network failure on the %s channel: %s (a node died or its "
              "network link is down)",
              c == CM5I_CH_REQ ? "request" : "reply",
              cm5_status_string(status));
}

static int progress_pass(int chmask);

/* Take what the channels hold, return credits, send the queued
 * announcements; run nothing else (no handler, no deferred work). */
int cm5i_progress_pull(void)
{
    int n = 0;

    progress_run_hooks(CM5I_HOOK_FIRST, CM5I_CH_ALL);
    for (int c = CM5I_NCH - 1; c >= 0; c--) {
        int r = cm5i_fab_poll(cm5i_ctx.fab, c, prog.decoder, NULL);

        if (CM5I_UNLIKELY(r < 0))
            progress_network_failure(c, r);
        n += r;
    }
    if (!cm5i_depth.in_handler && !prog.poll_only)
        n += progress_run_hooks(CM5I_HOOK_OUTSIDE_LAST, CM5I_CH_ALL);
    progress_run_hooks(CM5I_HOOK_ALWAYS, CM5I_CH_ALL);
    return n;
}

int cm5i_progress_run_deferred(void)
{
    if (cm5i_depth.in_handler || prog.poll_only || !prog.defer_head)
        return 0;
    return progress_drain();
}

int cm5i_progress_pull_step(unsigned *spins)
{
    int n = cm5i_progress_pull();

    if (n > 0)
        *spins = 0;
    else if (++*spins > 16)
        sched_yield(); /* what it waits for runs on another node's CPU */
    return n;
}

int cm5i_progress(int chmask)
{
    int n;

    if ((uint64_t)++prog.depth > progress_count.progress_depth_max)
        progress_count.progress_depth_max = (uint64_t)prog.depth;
    n = progress_pass(chmask);
    prog.depth--;
    return n;
}

/* Deferred work runs at the top of a progress that is neither in a
 * handler nor inside a send's wait (which polls only what frees its
 * resource), and again after polling; never from a nested send. */
static int progress_pass(int chmask)
{
    int full = !cm5i_depth.in_handler && !prog.poll_only;
    int n = 0;

    if (full && prog.held_head)
        progress_release_held();
    if (full && prog.defer_head)
        n += progress_drain();
    progress_run_hooks(CM5I_HOOK_FIRST, chmask);
    /* Replies first: they complete work and return credits. */
    for (int c = CM5I_NCH - 1; c >= 0; c--) {
        int r;

        if (!(chmask & CM5I_CH_BIT(c)))
            continue;
        /* What waits on c runs before anything newer: parked, then held. */
        n += progress_run_hooks(CM5I_HOOK_CHANNEL, c);
        r = cm5i_fab_poll(cm5i_ctx.fab, c, prog.decoder, NULL);
        if (CM5I_UNLIKELY(r < 0))
            progress_network_failure(c, r);
        n += r;
    }
    /* Virtual time runs the packets it kept, in their turn. */
    if (full && CM5I_UNLIKELY(cm5i_clock != NULL) && cm5i_clock->dispatch)
        n += cm5i_clock->dispatch();
    if (!cm5i_depth.in_handler) {
        n += progress_run_hooks(CM5I_HOOK_OUTSIDE, chmask);
        if (full && prog.defer_head)
            n += progress_drain();
        if (full)
            n += progress_run_hooks(CM5I_HOOK_OUTSIDE_LAST, chmask);
    }
    progress_run_hooks(CM5I_HOOK_ALWAYS, chmask);
    return n;
}
