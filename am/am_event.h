/*
 * The events of the active-message core and the observers that subscribe
 * to them (am_event.c): the trace (am_trace.c) and virtual time
 * (am_model.c) watch the core through this interface alone, and the core
 * names neither.  With no observer, an event site costs one test of a
 * flag.
 *
 * Observers (several) are told of events:
 *   call_enter/leave   the program's outermost runtime call begins, ends
 *                      (the computation in between is the program's)
 *   send               a packet is about to leave (any type); it may set
 *                      the packet's clock word (pkt->vt)
 *   am_send/am_sent    a user active message (request, reply, RPC) is
 *                      about to leave (it may be numbered: pkt->tseq) /
 *                      has left
 *   arrive             a packet arrived, before it is dispatched
 *   deliver/delivered  a user handler (or RPC) begins / returns
 *   probe              the program probes the network in a loop
 *                      (CMAML_poll, CMMD_msg_pending): an observer that
 *                      answers 1 wants the loop to spin, not sleep
 *   cn_enter/cn_end    a control-network operation begins (the outermost)
 *                      / a blocking one ends
 *   barrier_start/barrier_round/barrier_done   the barrier's own steps
 *   bulk_start/bulk_end   a CMMD message or scopy is posted / completes
 *   wait_begin/wait_end   a blocking wait of the runtime (a barrier, a
 *                      collective, a message's completion, a sender's
 *                      credits, ...) takes its first step / is over; they
 *                      nest (a handler run inside a wait may wait), and
 *                      say what waits (CM5I_WAIT_*, am_wait.h)
 *
 * One observer may also keep the node's clock (virtual time): the core
 * asks it for the words its packets and messages carry (cm5i_clock; NULL
 * in real time).  Every packet carries one such word (cm5i_pkt_t.vt),
 * CM5I_VT_NONE when it carries none.
 */
#ifndef CM5_AM_EVENT_H
#define CM5_AM_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "am_model_calc.h" /* cm5i_cn_kind_t */
#include "am_util.h"
#include "am_wire.h"

/* A bulk transfer as observers see it: tag >= 0 a CMMD message, -1 an
 * scopy, below -1 the runtime's own; slot and gen name it. */
typedef struct {
    int is_send, node, tag;
    size_t bytes;
    uint32_t slot, gen;
} cm5i_ev_bulk_t;

typedef struct cm5i_observer {
    void (*call_enter)(void);
    void (*call_leave)(void);
    void (*send)(int ch, int node, cm5i_pkt_t *pkt);
    void (*am_send)(int ch, int node, cm5i_pkt_t *pkt);
    void (*am_sent)(int ch, int node, const cm5i_pkt_t *pkt);
    void (*arrive)(int ch, const cm5i_pkt_t *pkt);
    void (*deliver)(int ch, const cm5i_pkt_t *pkt);
    void (*delivered)(int ch);
    int (*probe)(void);
    void (*cn_enter)(void);
    void (*cn_end)(cm5i_cn_kind_t kind, size_t n);
    void (*barrier_start)(void);
    void (*barrier_round)(uint32_t epoch, int round);
    void (*barrier_done)(void);
    void (*bulk_start)(const cm5i_ev_bulk_t *b);
    void (*bulk_end)(const cm5i_ev_bulk_t *b);
    void (*wait_begin)(int what);
    void (*wait_end)(int what);
} cm5i_observer_t;

/* The clock an observer keeps: the words of packets and messages. */
typedef struct cm5i_clock {
    uint64_t (*now)(void);     /* the node's clock */
    uint64_t (*rx_word)(void); /* the packet being dispatched's */
    void (*reach)(uint64_t w); /* the clock reaches w */
    uint64_t (*cn_price)(cm5i_cn_kind_t kind, size_t n);
    /* A bulk transfer of len bytes (cmmd: a CMMD message, else an scopy)
     * is sent: the sender pays; returns the word of its announcement.
     * Its data landed at the receiver, announced with d0, the receive
     * posted at post: returns the word of its FIN, *end when the node has
     * it; join: the node's clock meets it now.  The program sees it
     * complete (none: no receive is left posted); a send's FIN came;
     * none of its receives (sends) is left. */
    uint64_t (*bulk_send)(size_t len, int cmmd);
    uint64_t (*bulk_landed)(int src, uint64_t d0, uint64_t post, size_t len,
                            int cmmd, int join, uint64_t *end);
    void (*bulk_seen)(int src, uint64_t d0, uint64_t end, int none);
    void (*bulk_fin)(uint64_t w);
    void (*bulk_all_seen)(int sends);
    /* Synchronised (cm5i_clock_orders), held senders: a node's processor
     * pushes one message's data at a time (am_msg.c's lane).  push(len,
     * 0) as a push begins: returns the word of the data's notice, a
     * promise its packet keeps (cm5i_word_t, kept); push(len, 1) once
     * that packet is sent: the node pays len's packets.  bulk_take: the
     * receiver takes the data in the notice's turn (start: the notice's
     * word; cmmd as above; others: a data notice, whose receipt is taken
     * with the others that came while the node was busy; ref: the
     * message): returns the word of the acknowledgement it sends (a
     * promise it keeps), *end: the node has the data (its clock); or,
     * receipt beside the clock (cm5:bc=1), CM5I_VT_NONE: the receipt
     * joins the one under way (or begins one, run after this packet's
     * turn), and its words come when its last packet is taken
     * (cm5i_msg_took).  The words of packets travel with them
     * (cm5i_word_t, am_packet.h), never in a slot a packet sent meanwhile could
     * take. */
    uint64_t (*push)(size_t len, int phase);
    uint64_t (*bulk_take)(int src, uint64_t start, size_t len, int cmmd,
                          int others, void *ref, uint64_t *end);
    /* A packet arrived (valid, its credits counted): 1 when the clock
     * keeps it to run in its turn (cm5i_pkt_dispatch); run what is due
     * (a full progress pass, outside handlers): returns packets run.
     * NULL: every packet runs as it lands. */
    int (*take)(int ch, const cm5i_pkt_t *pkt, const void *body, size_t len);
    int (*dispatch)(void);
    /* A split-phase barrier's test at the clock (done: it ended in real
     * time): 1 done, 0 not yet, -1 not known yet (take packets and ask
     * again); done 2: cm5_barrier_finish, the clock reaches its end. */
    int (*split_turn)(int done);
    /* A split-phase reduction's test at the clock: known, its end: 1
     * done (the end is at or before the clock), 0 not yet; not known: 0
     * when it cannot end by the clock, -1 not known yet (take packets
     * and ask again). */
    int (*cn_turn)(int known, uint64_t end);
    /* Synchronised, interrupts (am_irq.c; doc/model.md, "Interrupts"):
     * irq_idle, from the interrupt thread owning the runtime while the
     * program is outside it: 1 when the program now waits for its
     * interrupt by rule (its packets are then taken as in a blocking
     * wait); irq_watch_ms: how long that thread may sleep before it asks
     * again; irq_mark: the program runs on from here (it left the
     * runtime, or an interrupt was delivered to it).  NULL: no rule. */
    int (*irq_idle)(void);
    int (*irq_watch_ms)(void);
    void (*irq_mark)(void);
    /* A host collective (am_host.c): host_entry, the operation under
     * way is of kind over n (its price is known from now on): returns
     * this endpoint's clock as it began; node 0:
     * host_seed(w), the host's entry, which the nodes' closing barrier
     * (cn_end) takes in; cn_last, the end of the last closing barrier;
     * host_close(end), the operation is over (the host: its clock
     * reaches end; past the exit's, the node sends nothing more). */
    uint64_t (*host_entry)(cm5i_cn_kind_t kind, size_t n);
    void (*host_seed)(uint64_t w);
    uint64_t (*cn_last)(void);
    void (*host_close)(uint64_t end);
} cm5i_clock_t;

/* Subscribe (clock: NULL, or the clock it keeps; at most one) and
 * unsubscribe; from start-up and shut-down, or the program's own thread
 * between calls (cm5_trace_start). */
void cm5i_observe(const cm5i_observer_t *obs, const cm5i_clock_t *clock);
void cm5i_unobserve(const cm5i_observer_t *obs);

extern unsigned cm5i_ev_mask; /* events someone watches */
/* The clock runs the packets it times in their turn (virtual time's
 * synchronisation): a message's data must then travel in a packet or by
 * single copy, whose arrival it orders, not as a tagged transfer. */
extern int cm5i_clock_orders;
extern const cm5i_clock_t *cm5i_clock; /* NULL: real time */

/* The events with a bit in cm5i_ev_mask (call_enter/leave go through
 * the guard instead), one list: the bits, their names at the sites
 * (CM5I_EV_BIT_<event>), and the mask an observer's functions make. */
/* clang-format off */
#define CM5I_EVENTS(X)                                                         \
    X(send) X(am_send) X(am_sent) X(arrive) X(deliver) X(delivered)            \
    X(probe) X(cn_enter) X(cn_end) X(barrier_start) X(barrier_round)           \
    X(barrier_done) X(bulk_start) X(bulk_end) X(wait_begin) X(wait_end)
/* clang-format on */
enum {
#define CM5I_EV_INDEX(ev) CM5I_EV_INDEX_##ev,
    CM5I_EVENTS(CM5I_EV_INDEX)
#undef CM5I_EV_INDEX
        CM5I_EV_COUNT
};
enum {
#define CM5I_EV_BIT(ev) CM5I_EV_BIT_##ev = 1u << CM5I_EV_INDEX_##ev,
    CM5I_EVENTS(CM5I_EV_BIT)
#undef CM5I_EV_BIT
};
_Static_assert(CM5I_EV_COUNT <= 32, "the event bits fit cm5i_ev_mask");

void cm5i_ev_send_(int ch, int node, cm5i_pkt_t *pkt);
void cm5i_ev_am_send_(int ch, int node, cm5i_pkt_t *pkt);
void cm5i_ev_am_sent_(int ch, int node, const cm5i_pkt_t *pkt);
void cm5i_ev_arrive_(int ch, const cm5i_pkt_t *pkt);
void cm5i_ev_deliver_(int ch, const cm5i_pkt_t *pkt);
void cm5i_ev_delivered_(int ch);
int cm5i_ev_probe_(void);
void cm5i_ev_cn_enter_(void);
void cm5i_ev_cn_end_(cm5i_cn_kind_t kind, size_t n);
void cm5i_ev_barrier_start_(void);
void cm5i_ev_barrier_round_(uint32_t epoch, int round);
void cm5i_ev_barrier_done_(void);
void cm5i_ev_bulk_start_(const cm5i_ev_bulk_t *b);
void cm5i_ev_bulk_end_(const cm5i_ev_bulk_t *b);
void cm5i_ev_wait_begin_(int what);
void cm5i_ev_wait_end_(int what);

/* The event sites: CM5I_EV(send, ch, node, pkt) and so on. */
#define CM5I_EV(ev, ...)                                                       \
    do {                                                                       \
        if (CM5I_UNLIKELY(cm5i_ev_mask & CM5I_EV_BIT_##ev))                    \
            cm5i_ev_##ev##_(__VA_ARGS__);                                      \
    } while (0)
/* A probe: 1 when an observer wants the loop to spin. */
static inline int cm5i_ev_probe(void)
{
    return CM5I_UNLIKELY(cm5i_ev_mask & CM5I_EV_BIT_probe) && cm5i_ev_probe_();
}

#endif
