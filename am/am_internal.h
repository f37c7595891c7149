/*
 * Internals of the active-message core shared by the am/ sources.
 */
#ifndef CM5_AM_INTERNAL_H
#define CM5_AM_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "am_guard.h"
#include "am_event.h"
#include "am_handler.h"
#include "am_sweep.h"
#include "am_util.h"
#include "am_model.h"
#include "boot/boot.h"
#include "boot/boot_proto.h"
#include "cm5/cm5.h"
#include "fabric/fab.h"

#define CM5I_ADDR_REC                                                         \
    (CM5I_NCH * (2 + CM5I_FAB_NAME_MAX) + 2 + CM5I_FAB_RING_REC + 8)
#define CM5I_UNCOUNTED_SLACK 8 /* credit and barrier packets per peer */

/* Runtime-internal handlers (collectives and the like), by index. */
typedef void (*cm5i_internal_func_t)(int src, const uint32_t *arg);
enum {
    CM5I_INT_MSG_RTS = 1, /* a message is ready to send */
    CM5I_INT_MSG_CTS = 2, /* the receiver is ready for it */
    CM5I_INT_MSG_FIN = 3, /* the receiver has it */
    CM5I_INT_COLL = 4,    /* a collective's step: 64-bit value */
    CM5I_INT_GOR = 5,     /* a node's global-OR bit */
    CM5I_INT_SCOPY = 6,   /* an scopy is ready to send */
    CM5I_INT_MSG_ACK = 7, /* a receive matched the eager message */
    CM5I_INTERNAL_MAX = 32
};

/* The packet types: each module's setup registers the types it handles.
 * A type's function returns 1 when the packet's credit is owed now (a
 * counted packet consumed), 0 otherwise (uncounted, or owed later). */
typedef int (*cm5i_pkt_func_t)(int ch, const cm5i_pkt_t *pkt);
void cm5i_pkt_register(int type, cm5i_pkt_func_t fn);
/* The same for a type whose packets carry a body after the 48 bytes, of
 * arg[1] bytes (at most CM5I_PKT_BODY_MAX); the type's function reads it
 * with cm5i_pkt_body, valid during the call only. */
#define CM5I_PKT_BODY_MAX 8192
void cm5i_pkt_register_body(int type, cm5i_pkt_func_t fn);
const void *cm5i_pkt_body(size_t *len);
/* The decoder: drops foreign packets, dispatches by type (am_packet.c);
 * its setup registers it with the progress engine. */
void cm5i_pkt_rx(void *arg, int ch, const void *buf, size_t len);
void cm5i_progress_decoder(cm5i_fab_rx_func_t fn);
cm5_status_t cm5i_pkt_setup(void);
void cm5i_pkt_teardown(void);

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
void cm5i_progress_teardown(void);
/* A send waits (+1) or stops waiting (-1): meanwhile progress polls the
 * channels (handlers run, credits return, RPCs run unless one is
 * running) but runs no deferred work and sends no queued RTS. */
void cm5i_progress_poll_only(int delta);

/* Flow control (am_flow.c): the only owner of the credits. */
void cm5i_flow_config(void);      /* read CM5_AM_CREDITS */
uint16_t cm5i_flow_window(void);  /* counted packets per peer and channel */
cm5_status_t cm5i_flow_setup(void); /* fit the window, size the arrays */
void cm5i_flow_teardown(void);
int cm5i_flow_has(int ch, int node);  /* a credit to send to node on ch */
void cm5i_flow_take(int ch, int node); /* spend it */
void cm5i_flow_returned(int src, const cm5i_pkt_t *pkt);
void cm5i_flow_owe(int ch, int src);
void cm5i_flow_piggyback(int ch, int node, cm5i_pkt_t *pkt);
void cm5i_flow_unpiggyback(int node, const cm5i_pkt_t *pkt);
/* Send the credit packets owed, without blocking (a progress hook). */
int cm5i_flow_flush(int chmask);
/* A credit packet arrived (the packet layer dispatches them here). */
int cm5i_flow_credit_packet(int ch, const cm5i_pkt_t *pkt);

/* Append item to the queue (head, tail) linked by item->next. */
#define CM5I_QUEUE_APPEND(head, tail, item)                                   \
    do {                                                                      \
        (item)->next = NULL;                                                  \
        if (tail)                                                             \
            (tail)->next = (item);                                            \
        else                                                                  \
            (head) = (item);                                                  \
        (tail) = (item);                                                      \
    } while (0)

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

/* Doorbell slot of one node in the job's shared memory: its layout is
 * cm5run's too (boot/boot_proto.h). */
typedef cm5_doorbell_slot_t cm5i_doorbell_t;

typedef struct {
    int ready;
    int failed;
    int finalized; /* shut down at exit: no restart */
    int rank;
    int size; /* the partition: nodes 0..size-1 */
    int nep;  /* endpoints: the nodes, then the host program if any */
    int host; /* the host program's endpoint (cm5run --host), or -1 */
    uint64_t key;
    cm5i_boot_t boot;
    cm5i_fab_t *fab;
    char provider[64];

    int exit_hooked; /* the exit-status handler is registered */
    int in_ctor;     /* starting from the library's constructor */

    int in_handler;     /* depth: >0 while a handler runs */
    int cn_hold;        /* depth: >0 while a control-network call waits */
    int user_hold;      /* >0: hold all user work (the interrupt thread) */
    int finalizing;     /* in the exit barrier: handlers are served */
    int in_req_handler; /* a request handler is running */

    cm5_stats_t stats;
} cm5i_ctx_t;

extern cm5i_ctx_t cm5i_ctx;

/* May this process send to node: a node of the partition, or the host. */
static inline int cm5i_node_ok(int node)
{
    return (node >= 0 && node < cm5i_ctx.size) ||
           (node >= 0 && node == cm5i_ctx.host);
}

/* Register the handler that learns the exit status (am_ctx.c), and read
 * it (0 until the program exits). */
void cm5i_exit_hook(void);
int cm5i_ctx_exit_status(void);
/* Legacy (32-bit) build: say when the nodes' addresses differ. */
void cm5i_legacy_check(void);

/* Initialize on first use when the launcher did not: run the starter
 * the top of the layers registered (am_init.c); a node that cannot start
 * dies. */
void cm5i_lazy_init(void);
void cm5i_ctx_starter(cm5_status_t (*fn)(void));
static inline void cm5i_ensure_init(void)
{
    if (CM5I_UNLIKELY(!cm5i_ctx.ready))
        cm5i_lazy_init();
}

/* Send a packet on a channel, waiting for credits and provider room. */
cm5_status_t cm5i_am_send(int ch, int node, cm5i_pkt_t *pkt);
/* The same with a body of len bytes (a type registered with one; never
 * in signal context, whose send queue holds bare packets). */
cm5_status_t cm5i_am_send_body(int ch, int node, cm5i_pkt_t *pkt,
                               const void *body, size_t len);
/* Send an internal (runtime) message to node on channel ch. */
cm5_status_t cm5i_am_internal(int ch, int node, int index,
                              const uint32_t arg[4]);
void cm5i_am_register_internal(int index, cm5i_internal_func_t fn);
/* Poll the channels in chmask (bit per channel); returns messages run. */
int cm5i_progress(int chmask);
/* Run a user packet that arrived on ch and owe its credit. */
void cm5i_am_deliver(int ch, const cm5i_pkt_t *pkt);

/* Polling one channel (am_poll.c): while cm5_poll_requests serves the
 * network, user packets arriving on the reply channel outside handlers
 * are parked (and the other way round), to run in order when their
 * channel is next served.  Credits bound the parked packets. */
extern int cm5i_park_mask;     /* channels whose user packets wait */
extern uint32_t cm5i_parked[]; /* packets parked, per channel */
/* Where the packet layer parks them: am_poll.c's setup registers it. */
void cm5i_pkt_parker(void (*park)(int ch, const cm5i_pkt_t *pkt));
/* Run the packets parked on ch; returns how many. */
int cm5i_park_drain(int ch);

/* One step of a wait: progress, then spin, yield or sleep. */
typedef struct {
    double t0;
    int empty;
    int yields;
    int sleep_us;
    int crowded; /* another node of the job runs on this CPU: no spinning */
} cm5i_waiter_t;
void cm5i_waiter_init(cm5i_waiter_t *w);
void cm5i_wait_step(cm5i_waiter_t *w, int chmask);
/* One progress pass of a probe a program may call in a loop (backs off). */
void cm5i_probe_progress(void);
/* The same for a probe of one object (what) among several a program
 * tests in turn: backs off once per round, not once per object. */
void cm5i_probe_progress_of(const void *what);
void cm5i_doorbell_ring(int node);
void cm5i_wait_config(void); /* read CM5_SPIN_US, _YIELDS, _SLEEP_MS */
void cm5i_irq_config(void);  /* read CM5_INTERRUPT_SIGNAL, _TICK_US */
cm5_status_t cm5i_wait_setup(void);
/* This node's doorbell slot (NULL: none); the provider's wait objects. */
cm5i_doorbell_t *cm5i_wait_doorbell(void);
int cm5i_wait_fds(int *fds);
/* Unmap the doorbell (finalize, or a start that failed). */
void cm5i_wait_teardown(void);

cm5_status_t cm5i_barrier_setup(void);
void cm5i_barrier_teardown(void);
int cm5i_barrier_open(void); /* a split-phase barrier is under way */

/* One-channel polls (am_poll.c): set up before cm5i_pkt_setup. */
cm5_status_t cm5i_poll_setup(void);
void cm5i_poll_teardown(void);

/* Liveness check (am_alive.c, CM5_PEER_TIMEOUT): a heartbeat ring on a
 * second fabric instance, driven by a thread of its own. */
/* Read CM5_PEER_TIMEOUT (after the bootstrap: the same on every node). */
cm5_status_t cm5i_alive_config(void);
int cm5i_alive_enabled(void);
/* Open the heartbeat's endpoints (after the main ones: same provider). */
cm5_status_t cm5i_alive_open(void);
/* Their address record, and every node's (stride bytes apart). */
size_t cm5i_alive_address(void *buf, size_t size);
cm5_status_t cm5i_alive_set_peers(const void *addrs, size_t stride);
/* Start pinging and watching (init is complete). */
cm5_status_t cm5i_alive_start(void);
/* The partition shrank to size nodes: the ring follows. */
void cm5i_alive_resize(int size);
/* Watch no more (past the exit barrier, or this node is failing).  If a
 * report is under way, never returns: the process is ending. */
void cm5i_alive_quiet(void);
/* This node is dying: watch no more, remove the shm files. */
void cm5i_alive_abandon(void);
/* Stop the thread (saying goodbye to the successor if bye) and close. */
void cm5i_alive_stop(int bye);

/* Interrupts (am_irq.c): take the runtime for the main thread (the
 * interrupt thread may have it); leave the outermost runtime call
 * (serve a held interrupt, give the runtime back to the thread).  The
 * guard (am_guard.h) calls them once interrupts are enabled. */
void cm5i_irq_acquire(void);
void cm5i_irq_leave(void);
/* Serve an interrupt held by a runtime call, as that call returns. */
void cm5i_irq_deliver(void);
/* Interrupts are disabled: wait until the interrupt thread touches
 * nothing of the runtime any more (before finalize tears it down). */
void cm5i_irq_quiesce(void);

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
 * the call that begins an operation) after CM5I_GUARD(). */
extern uint32_t cm5i_cn_ops;   /* control-network operations begun */
extern uint32_t cm5i_rx_stamp; /* epoch of the packet being handled, or 0 */
int cm5i_cn_enter(int begins);
void cm5i_cn_leave(int *held_here);
#define CM5I_CN_HOLD()                                                        \
    int cm5i_cn_ __attribute__((cleanup(cm5i_cn_leave), unused)) =            \
        cm5i_cn_enter(0)
#define CM5I_CN_HOLD_OP()                                                     \
    int cm5i_cn_ __attribute__((cleanup(cm5i_cn_leave), unused)) =            \
        cm5i_cn_enter(1)
/* The epoch this node's packets carry now. */
static inline uint32_t cm5i_cn_stamp(void)
{
    if (cm5i_ctx.host >= 0 && cm5i_ctx.rank == cm5i_ctx.host)
        return 0;
    return cm5i_cn_ops + (cm5i_ctx.cn_hold ? 0u : 1u);
}
/* Is user work of epoch stamp held here now? */
static inline int cm5i_cn_holds(uint32_t stamp)
{
    if (cm5i_ctx.user_hold)
        return 1;
    if (!cm5i_ctx.cn_hold)
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
/* Run the user work the interrupt thread held (handlers of arrived
 * packets, RPCs, completion callbacks): what an interrupt runs.  Returns
 * how many ran. */
int cm5i_am_run_user(void);
/* Is there user work for an interrupt to run? */
int cm5i_am_user_pending(void);
/* Send the packets queued by handlers that ran in the signal handler
 * (which never calls the provider itself); returns 0 when none is left. */
int cm5i_am_flush_sendq(void);
cm5_status_t cm5i_am_sendq_setup(void);
cm5_status_t cm5i_msg_setup(void);
void cm5i_msg_teardown(void);
/* Read CM5_EAGER_MAX (before the endpoints open: it sizes them). */
void cm5i_msg_config(void);
/* The largest packet eager messages need, and the receive buffer space
 * their bodies may take at once (every peer's bound together). */
size_t cm5i_msg_packet_max(void);
size_t cm5i_msg_rx_bytes(void);
/* The same for one peer's same-host ring (its request channel). */
size_t cm5i_msg_ring_bytes(void);
/* Messages with the runtime's own (negative) tags, which user receives,
 * wildcards included, never match. */
cm5_status_t cm5i_msg_send(int node, int tag, const void *buf, size_t len,
                           unsigned flags, cm5_msg_done_func_t done,
                           void *arg, cm5_msg_h *out);
cm5_status_t cm5i_msg_recv(int node, int tag, void *buf, size_t len,
                           cm5_msg_done_func_t done, void *arg,
                           cm5_msg_h *out);
cm5_status_t cm5i_coll_setup(void);
void cm5i_coll_teardown(void);
/* Is op valid on type t?  a = a op b for one element (am_coll.c). */
int cm5i_coll_valid(cm5_type_t t, cm5_op_t op);
void cm5i_coll_combine(void *a, const void *b, cm5_type_t t, cm5_op_t op);

/* rports: the receiving side of scopy. */
typedef struct {
    int allocated;
    cm5_rport_attr_t a;
    long pending; /* bytes of scopies accepted, not yet landed */
} cm5i_rport_t;
extern cm5i_rport_t cm5i_rports[CM5_RPORTS];
/* An scopy of len bytes landed in rport: count it, maybe run the handler
 * (outside handlers). */
void cm5i_rport_landed(int rport, size_t len);
/* Placement of an scopy into an element-wise rport, fixed on arrival. */
typedef struct {
    char *base;
    size_t off; /* in packed bytes */
    long esize, estride;
} cm5i_rport_place_t;
/* Check an scopy from src of len bytes at packed offset off against the
 * element layout of rport (a fault stops the job); returns 1 and fills
 * *pl if the bytes must be scattered, 0 if they land contiguously. */
int cm5i_rport_place(int rport, int src, size_t off, size_t len,
                     cm5i_rport_place_t *pl);
/* Copy len packed bytes to their elements. */
void cm5i_rport_scatter(const cm5i_rport_place_t *pl, const void *data,
                        size_t len);

/* Virtual time (am_model.c, CM5_MODEL): an observer of the core
 * (am_event.h) that keeps the node's clock.  Read CM5_MODEL (a bad value
 * fails the start). */
cm5_status_t cm5i_model_setup(void);
void cm5i_model_teardown(void);

#define CM5I_CH_ALL ((1 << CM5I_NCH) - 1)
#define CM5I_CH_BIT(c) (1 << (c))

#endif
