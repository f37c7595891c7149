/*
 * Point-to-point messages: a rendezvous on active messages, data as one
 * libfabric tagged message straight into the receiver's buffer.
 *
 *   sender                         receiver
 *   RTS(tag, len, sid) ----------> match a posted receive (or keep it as
 *                                  unexpected until one is posted); check
 *                                  the length; post the tagged receive
 *                      <---------- CTS(sid, rid)         (reply channel)
 *   tagged send to tag rid ======> data lands in the buffer
 *                      <---------- FIN(sid)              (reply channel)
 *   done: the receiver has it      done
 *
 * Eager messages (CM5_EAGER_MAX bytes or fewer) skip the clear-to-send:
 *
 *   EAGER(tag, len, sid) + data -> match a posted receive and copy the
 *                                  data into it (or keep it, data too, as
 *                                  unexpected until one is posted)
 *                      <---------- ACK(sid)              (reply channel)
 *   done: the receiver has it      done
 *
 * The sender still completes only once a receive took the message, so
 * every send stays synchronous (doc/cm5fab.7: CMMD_send_block returns
 * once the receiver has the data): eager saves the clear-to-send and the
 * data's second trip, and the receiver completes one message latency
 * after the send instead of three.  What the receiver buffers is bounded
 * per sender: each sender holds an eager budget in bytes for each peer
 * (msg_eager_window), spends len + MSG_EAGER_OVERHEAD on each eager
 * message and gets it back with the ACK, that is once a receive took the
 * message; a message that finds the budget short goes by rendezvous,
 * which buffers nothing.  The same budget bounds the eager bodies in
 * flight, for which the endpoints' receive buffers have room
 * (cm5i_msg_rx_bytes).  Eager and rendezvous messages to one node leave
 * in order through the same queue, and the request channel keeps that
 * order, so matching sees them as sent.
 *
 * Longer messages and scopies between nodes of one host on the fast path
 * (CM5_CMA, cm5i_fab_cma_ok) move by single copy, the receiver reading
 * the sender's buffer:
 *
 *   CMA(tag, len, sid, addr) --->  match a posted receive (or wait for
 *                                  one), read len bytes at addr into it
 *                                  (process_vm_readv)
 *                      <---------- ACK(sid)              (reply channel)
 *
 * the sender's buffer stays its until the ACK, as with a rendezvous.  A
 * read the kernel refuses turns the message into a rendezvous at the
 * receiver (CTS, tagged data), and that peer is read this way no more.
 *
 * Offered receives (real time, single copy between the two): a receive
 * posted for one node, longer than CM5_EAGER_MAX, when no receive for any
 * node is posted and every earlier receive for that node was offered
 * too, is offered to it:
 *
 *   receiver                       sender
 *   post: OFFER(tag, size, rid, addr) --> kept, in order, per receiver
 *                    (reply channel)
 *                                  send: no announcement of its own to
 *                                  that node unmatched, the first offer
 *                                  whose tag matches and that is large
 *                                  enough: write the data there
 *                                  (process_vm_writev), and done
 *   done  <----------------------- PUT(rid, len, tag)
 *
 * so a send to a node whose receive is posted completes without the
 * receiver's turn (on 2 CPUs shared by 8-64 nodes, the second turn of a
 * message's round trip was most of an all-to-all's time: doc/bench.md).
 * The send is still synchronous: the receive had been posted.  Matching
 * is unchanged: an announcement the sender made before it saw the offer
 * takes the oldest receive it matches at the receiver as before, offered
 * or not, and its CTS or ACK names that receive, whose offer the sender
 * then drops (the offer came first: both travel on the reply channel,
 * which keeps their order, and the offer left at the post, before any
 * match of the receive); while an announcement of its own is unmatched,
 * the sender writes into no offer.
 *
 * Handlers and completion callbacks only record events; whatever sends or
 * may block (posting the tagged operations, CTS, FIN, user callbacks) runs
 * as deferred work outside every handler.  Messages are named on the wire
 * by (slot, generation) in a table, so a late packet for a reused slot is
 * recognized.
 */
#include "am_msg.h"

#include <stdlib.h>
#include <string.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_flow.h"
#include "am_guard.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_rport.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t msg_count; /* this module's statistics (cm5_stats) */

enum { MSG_RTS_SENT = 1, MSG_MATCHED, MSG_DATA, MSG_DONE };
#define MSG_REFUSED UINT32_MAX /* CTS slot: the receive buffer is short */

struct cm5_msg {
    cm5i_fab_op_t op; /* the tagged operation; first */
    cm5i_deferred_t work;
    void (*next_step)(cm5_msg_h m);
    uint32_t slot, gen;
    uint32_t peer_slot, peer_gen;
    int is_send;
    int state;
    int node, tag;
    size_t size;  /* send: length; receive: buffer size */
    size_t bytes; /* the message's length */
    void *buf;
    void *copy; /* CM5_MSG_COPY's private buffer */
    int local_done, remote_done;
    int landed, data_told; /* synchronised: tagged data in, and its turn */
    int freed;
    int in_callback;    /* msg_finish is running the user's callbacks */
    int internal;       /* the runtime's own: not counted as a user message */
    int eager;          /* the data travels with the announcement */
    int cma;            /* the receiver reads the data (single copy) */
    int offered;        /* a receive offered to its node (msg_offer) */
    int announced;      /* a send announced, its match not known yet */
    uint64_t peer_addr; /* receiving a single copy: the sender's data */
    int rport;          /* receiving side of an scopy, or -1 */
    cm5i_rport_place_t place; /* an scopy to scatter into its rport */
    void (*sent)(void *arg);  /* sending side of an scopy */
    cm5_status_t status;
    cm5_msg_done_func_t done;
    void *arg;
    struct cm5_msg *next; /* posted receives */
    uint64_t vt, fin_vt;  /* virtual time: the RTS's and the FIN's stamps
                           * (a receive: when the receiver has it) */
    uint64_t post_vt;     /* a receive: the clock when it was posted */
    uint32_t stamp;       /* the latest epoch of its packets (CM5I_CN_HOLD) */
    /* Synchronised virtual time, held senders (msg_lane): */
    struct cm5_msg *lane_next;      /* waiting for the lane */
    void (*lane_step)(cm5_msg_h m); /* its push, once it has the lane */
    int took;                       /* a receive: the data's turn came */
    /* ... taken beside the clock (cm5:bc=1): its acknowledgement's word
     * comes when its last packet is taken (cm5i_msg_took); the step
     * that sends it waits until then (ack_park) */
    int ack_pending;
    void (*ack_park)(cm5_msg_h m);
    int pushed; /* a send: its push was charged */
    /* ... an scopy sent as a tagged transfer, taken in its announcement's
     * turn as one read by single copy (msg_match): no data notice */
    int direct;
    uint64_t ack_word;         /* ... its acknowledgement's word */
    uint32_t sc_rport, sc_off; /* an scopy's rport and offset */
};

/* An RTS, or an eager message, that found no receive yet. */
typedef struct msg_rts {
    int src, tag;
    uint32_t len, slot, gen;
    uint64_t vt;    /* its stamp (virtual time) */
    uint32_t stamp; /* its control-network epoch */
    int eager;      /* its data follows */
    int cma;        /* read its data at addr in the sender (single copy) */
    uint64_t addr;
    struct msg_rts *next;
    char data[];
} msg_rts_t;

/* A receive a node offered this one (msg_offer): where to write. */
typedef struct msg_offer {
    uint32_t slot, gen, size;
    int tag;
    uint64_t addr;
    struct msg_offer *next;
} msg_offer_t;

/* What an eager message costs the sender's budget at its receiver: its
 * bytes, and about what the receiver's record of it takes besides. */
#define MSG_EAGER_OVERHEAD 64
/* The receive buffers every peer's eager budget may fill at once: each
 * peer gets 16 messages of the largest size, less in large jobs, but
 * always one. */
#define MSG_EAGER_DEPTH 16
#define MSG_EAGER_TOTAL (1u << 20)

static struct {
    size_t max;       /* CM5_EAGER_MAX: 0 turns eager messages off */
    uint32_t window;  /* the budget per peer, in bytes */
    uint32_t *budget; /* what is left of it, per destination */
} eager;

static struct {
    cm5_msg_h *slots;
    uint32_t *gens;
    uint32_t nslots, *free_slots, nfree;
    cm5_msg_h posted_head, posted_tail;
    msg_rts_t *rts_head, *rts_tail;
    int active[2]; /* receives, sends */
    /* Sends whose RTS waits for a flow-control credit, per destination in
     * order (so that messages with one tag still arrive in order): a send
     * never blocks on a receiver that does not poll. */
    cm5_msg_h *rtsq_head, *rtsq_tail;
    /* An RTS to this node is being sent: sending waits while the provider
     * has no room, and the progress it makes meanwhile may send queued
     * RTSs (or run callbacks that send): those must queue behind it, or
     * a later message overtakes an earlier one with the same tag. */
    unsigned char *rts_busy;
    int rts_queued; /* sends in rtsq */
    /* Nodes that could not read this one's memory (CM5_CMA): their
     * messages take the rendezvous. */
    unsigned char *cma_off;
    /* Offered receives: per node, the offers it made this one, in order;
     * this node's announcements to it whose match is not known yet; its
     * posted receives here for that node that were not offered; posted
     * receives for any node. */
    msg_offer_t **offer_head, **offer_tail;
    uint32_t *unmatched, *unoffered;
    int any_posted;
    /* Records released inside the interrupt signal handler, where free()
     * is not async-signal-safe: the next progress outside it (the
     * interrupt thread's pass, or the main thread's next call) frees
     * them. */
    cm5_msg_h dead;
} msgs;

static cm5_status_t msg_slot(cm5_msg_h m)
{
    if (msgs.nfree == 0) {
        uint32_t n = msgs.nslots ? msgs.nslots * 2 : 64;
        cm5_msg_h *s = realloc(msgs.slots, n * sizeof(*s));
        uint32_t *g = realloc(msgs.gens, n * sizeof(*g));
        uint32_t *f = realloc(msgs.free_slots, n * sizeof(*f));

        if (s)
            msgs.slots = s;
        if (g)
            msgs.gens = g;
        if (f)
            msgs.free_slots = f;
        if (!s || !g || !f)
            return CM5_ERR_NO_MEMORY;
        for (uint32_t i = msgs.nslots; i < n; i++) {
            msgs.slots[i] = NULL; /* cm5i_msg_teardown frees the others */
            msgs.gens[i] = 0;
            msgs.free_slots[msgs.nfree++] = n - 1 - (i - msgs.nslots);
        }
        msgs.nslots = n;
    }
    m->slot = msgs.free_slots[--msgs.nfree];
    m->gen = ++msgs.gens[m->slot];
    msgs.slots[m->slot] = m;
    return CM5_OK;
}

static cm5_msg_h msg_lookup(uint32_t slot, uint32_t gen)
{
    if (slot >= msgs.nslots || msgs.gens[slot] != gen)
        return NULL;
    return msgs.slots[slot];
}

/* Free a record: never inside the signal handler (counted if it were). */
static void msg_destroy(cm5_msg_h m)
{
    if (CM5I_UNLIKELY(cm5i_irq_in_signal))
        msg_count.signal_frees++;
    free(m->copy);
    free(m);
}

static void msg_release(cm5_msg_h m)
{
    msgs.slots[m->slot] = NULL;
    msgs.gens[m->slot]++; /* late packets no longer match */
    msgs.free_slots[msgs.nfree++] = m->slot;
    if (CM5I_UNLIKELY(cm5i_irq_in_signal)) {
        m->next = msgs.dead;
        msgs.dead = m;
        return;
    }
    msg_destroy(m);
}

/* A progress hook: free the records released in signal context. */
static int msg_bury(int chmask)
{
    (void)chmask;
    if (CM5I_UNLIKELY(cm5i_irq_in_signal))
        return 0;
    while (msgs.dead) {
        cm5_msg_h m = msgs.dead;

        msgs.dead = m->next;
        msg_destroy(m);
    }
    return 0;
}

static void msg_run_step(cm5i_deferred_t *w)
{
    cm5_msg_h m = (cm5_msg_h)((char *)w - offsetof(struct cm5_msg, work));

    m->next_step(m);
}

static void msg_later(cm5_msg_h m, void (*step)(cm5_msg_h))
{
    m->next_step = step;
    m->work.run = msg_run_step;
    cm5i_defer(&m->work);
}

/* A protocol step that must wait (the provider has no room, or no credit
 * for the packet it sends on the reply channel) queues itself again and
 * runs at the next progress, instead of waiting inside deferred work
 * (issue 14, fault 5).  In signal context, where progress does not run
 * between interrupts, it waits as a send waits (polling only). */
static int msg_retry(cm5_msg_h m, void (*step)(cm5_msg_h), int again)
{
    /* (Synchronised virtual time: when a step runs decides its virtual
     * time, credits must not: it waits for them here.) */
    if (!again || cm5i_irq_in_signal || cm5i_clock_orders)
        return 0;
    msg_later(m, step);
    return 1;
}

static void msg_poll_once(cm5i_waiter_t *w)
{
    cm5i_progress_poll_only(1);
    cm5i_wait_step(w, CM5I_CH_ALL);
    cm5i_progress_poll_only(-1);
}

/* ---- synchronised virtual time: held senders ----
 *
 * A node's processor moves its messages' data itself, one message at a
 * time, and a busy receiver holds it (doc/model.md, "Held senders"): a
 * message's data is pushed once its receiver is ready (GO, or CTS for a
 * tagged transfer) and this node's lane is free; its notice (MSG_DATA,
 * or an scopy's announcement) carries the push's start; the receiver
 * takes the data in the notice's turn, its processor busy for it, and
 * acknowledges (ACK, FIN) with the time the last packet left, which
 * frees the lane.  Only when the clock orders packets, and only for
 * messages it times (not the control network's own). */
static struct {
    cm5_msg_h cur;        /* pushing (until its ACK or FIN) */
    cm5_msg_h head, tail; /* ready, waiting for the lane, in turn order */
} lane;

static int msg_held(cm5_msg_h m)
{
    return CM5I_UNLIKELY(cm5i_clock_orders) && m->vt != CM5I_VT_NONE;
}

/* m's data may go: step pushes it once the lane is m's (now: at once if
 * it is free, else as deferred work). */
static void msg_lane_take(cm5_msg_h m, void (*step)(cm5_msg_h), int now)
{
    m->lane_step = step;
    m->lane_next = NULL;
    if (lane.cur) {
        if (lane.tail)
            lane.tail->lane_next = m;
        else
            lane.head = m;
        lane.tail = m;
        return;
    }
    lane.cur = m;
    if (now)
        step(m);
    else
        msg_later(m, step);
}

/* m's receiver acknowledged its data: the next push may begin. */
static void msg_lane_release(cm5_msg_h m)
{
    cm5_msg_h n = lane.head;

    if (lane.cur != m)
        return;
    lane.cur = n;
    if (!n)
        return;
    lane.head = n->lane_next;
    if (!lane.head)
        lane.tail = NULL;
    msg_later(n, n->lane_step);
}

/* ---- eager budget ---- */

#define MSG_ASYNC_LIMIT 65536
static int msg_async_max; /* CM5_ASYNC_MAX, read at start-up */

void cm5i_msg_config(void)
{
    eager.max =
        (size_t)cm5i_config_long(CM5_ENV_EAGER_MAX, 0, CM5I_PKT_BODY_MAX);
    msg_async_max =
        (int)cm5i_config_long(CM5_ENV_ASYNC_MAX, 1, MSG_ASYNC_LIMIT);
}

int cm5_async_max(void)
{
    if (!msg_async_max) /* (before start-up: checked again there) */
        msg_async_max =
            (int)cm5i_config_long(CM5_ENV_ASYNC_MAX, 1, MSG_ASYNC_LIMIT);
    return msg_async_max;
}

/* An eager message must not be overtaken by the RTS of a later one: it
 * stays 512 bytes (its header, with room to spare) below what the
 * provider keeps in order (cm5i_fab_ordered_max: ofi_rxm's bounce
 * buffers; with 2048, 1536 kept order, 2048 did not).  Called once the
 * endpoints are open (every node has the same). */
static void msg_eager_fit(void)
{
    size_t room = cm5i_fab_ordered_max(cm5i_ctx.fab);
    size_t fit = room > 512 + 64 ? room - 512 : 64;

    if (room == SIZE_MAX || eager.max <= fit)
        return;
    cm5i_log(CM5I_LOG_INFO, "init",
             "%s keeps messages in order up to "
             "%zu bytes: eager messages of at most %zu bytes instead of %zu",
             cm5i_fab_provider(cm5i_ctx.fab), fit + 512, fit, eager.max);
    eager.max = fit;
}

static uint32_t msg_eager_window(void)
{
    size_t one = eager.max + MSG_EAGER_OVERHEAD, w = MSG_EAGER_DEPTH * one;
    size_t nep = cm5i_ctx.nep > 0 ? (size_t)cm5i_ctx.nep : 1;

    if (!eager.max)
        return 0;
    if (nep * w > MSG_EAGER_TOTAL)
        w = MSG_EAGER_TOTAL / nep;
    return (uint32_t)(w < one ? one : w);
}

/* The body of a CMA packet: where the data is in the sender, and for an
 * scopy the rport and offset (rport MSG_CMA_NO_RPORT for a message). */
typedef struct {
    uint64_t addr;
    uint32_t len, rport, offset, pad;
} msg_cma_body_t;
#define MSG_CMA_NO_RPORT UINT32_MAX
/* ... or (on the reply channel) an offered receive: arg[0] its tag,
 * arg[2..3] its slot and generation, addr and len its buffer. */
#define MSG_CMA_OFFER (UINT32_MAX - 1)
/* An eager packet with this in off puts its data into an offered receive
 * (arg[2..3] the receive's slot and generation, not the sender's). */
#define MSG_EAGER_PUT 1

size_t cm5i_msg_packet_max(void)
{
    size_t body =
        eager.max > sizeof(msg_cma_body_t) ? eager.max : sizeof(msg_cma_body_t);

    return sizeof(cm5i_pkt_t) + body;
}

size_t cm5i_msg_rx_bytes(void)
{
    return (size_t)cm5i_ctx.nep * msg_eager_window();
}

/* A same-host ring holds one peer's eager messages in flight: the
 * budget, in records whose slots can take up to twice what the budget
 * charges (a header, rounding to whole slots). */
size_t cm5i_msg_ring_bytes(void) { return 2 * (size_t)msg_eager_window(); }

/* May a message of len bytes to node go eagerly?  Spends the budget.  Not
 * in signal context, whose send queue holds bare packets. */
static int msg_eager_take(int node, size_t len)
{
    uint32_t cost = (uint32_t)len + MSG_EAGER_OVERHEAD;

    if (!eager.max || len > eager.max || cm5i_irq_in_signal)
        return 0;
    if (eager.budget[node] < cost) {
        msg_count.eager_over_bound++;
        return 0;
    }
    eager.budget[node] -= cost;
    return 1;
}

static void msg_eager_give(int node, size_t len)
{
    eager.budget[node] += (uint32_t)len + MSG_EAGER_OVERHEAD;
}

/* The message is posted (end 0) or complete (end 1): the observers'
 * bulk events (the trace records CMMD messages and scopies). */
static void msg_event(cm5_msg_h m, int end)
{
    if (CM5I_UNLIKELY(cm5i_ev_mask &
                      (CM5I_EV_BIT_bulk_start | CM5I_EV_BIT_bulk_end))) {
        cm5i_ev_bulk_t b = {.is_send = m->is_send,
                            .node = m->node,
                            .tag = m->tag,
                            .bytes = end ? m->bytes : m->size,
                            .slot = m->slot,
                            .gen = m->gen};

        if (end)
            CM5I_EV(bulk_end, &b);
        else
            CM5I_EV(bulk_start, &b);
    }
}

/* Deferred: the message is done; tell the user, release if freed (also
 * when the callbacks free it themselves: the usual CMMD idiom). */
static void msg_finish(cm5_msg_h m)
{
    /* Its callbacks are user code: they wait for the end of a
     * control-network call (the collectives' own messages have none). */
    if ((m->sent || m->done || m->rport >= 0) && cm5i_cn_holds(m->stamp)) {
        m->next_step = msg_finish; /* also when called as a last step */
        m->work.run = msg_run_step;
        m->work.stamp = m->stamp;
        cm5i_defer_user(&m->work);
        return;
    }
    m->state = MSG_DONE;
    msg_event(m, 1);
    m->in_callback = 1;
    if (!m->internal)
        msgs.active[m->is_send]--;
    {
        /* (synchronised virtual time: the wait it runs inside of takes no
         * packet from what the user's code calls, am_model_sync.c) */
        int cb = cm5i_depth.cb_wait;

        cm5i_depth.cb_wait = cm5i_wait_level() + 1;
        if (m->rport >= 0 && m->status == CM5_OK) {
            if (m->place.esize)
                cm5i_rport_scatter(&m->place, m->copy, m->bytes);
            cm5i_rport_landed(m->rport, m->bytes);
        }
        if (m->sent)
            m->sent(m->arg);
        if (m->done)
            m->done(m, m->arg);
        cm5i_depth.cb_wait = cb;
    }
    m->in_callback = 0;
    if (m->freed)
        msg_release(m);
}

/* A protocol packet with the clock's word *w (NULL: none given). */
static void msg_send_word(int ch, int node, int index, uint32_t a0, uint32_t a1,
                          uint32_t a2, uint32_t a3, const cm5i_word_t *w)
{
    const uint32_t arg[4] = {a0, a1, a2, a3};
    cm5_status_t st = cm5i_am_internal_word(ch, node, index, arg, w);

    if (st != CM5_OK)
        cm5_fatal("cm5_msg", "protocol message to node %d failed: %s", node,
                  cm5_status_string(st));
}

static void msg_send_internal(int ch, int node, int index, uint32_t a0,
                              uint32_t a1, uint32_t a2, uint32_t a3)
{
    msg_send_word(ch, node, index, a0, a1, a2, a3, NULL);
}

/* The word of m's acknowledgement (ACK, FIN), into *w: the one its take
 * promised (held senders), or when its data landed; NULL without a
 * clock. */
static const cm5i_word_t *msg_ack_word(cm5_msg_h m, cm5i_word_t *w)
{
    if (m->took) {
        *w = (cm5i_word_t){m->ack_word, 1};
        return w;
    }
    if (CM5I_LIKELY(cm5i_clock == NULL))
        return NULL;
    *w = (cm5i_word_t){cm5i_clock->bulk_landed(
                           m->node, m->vt, m->post_vt, m->bytes, m->rport < 0,
                           m->rport >= 0 || m->done, &m->fin_vt),
                       0};
    return w;
}

/* The word of m's announcement (NULL without a clock). */
static const cm5i_word_t *msg_vt_word(cm5_msg_h m, cm5i_word_t *w)
{
    if (CM5I_LIKELY(cm5i_clock == NULL))
        return NULL;
    *w = (cm5i_word_t){m->vt, 0};
    return w;
}

/* ---- receiver ---- */

static int msg_matches(int want_node, int want_tag, int node, int tag)
{
    /* Negative tags are the runtime's own: wildcards never match them. */
    return (want_node == CM5_ANY_NODE || want_node == node) &&
           (want_tag == tag || (want_tag == CM5_ANY_TAG && tag >= 0));
}

static void msg_recv_finish(cm5_msg_h m);

/* Held senders: the data's notice (word start) is taken now; the
 * node's processor takes the data (once, whichever notice came); with
 * the others that came while it was busy when the notice is a data
 * notice (MSG_DATA), whose turn waited until they all had
 * (cm5i_msync_set_notice), not an scopy's announcement. */
static void msg_take(cm5_msg_h m, uint64_t start, int notice)
{
    if (m->took)
        return;
    m->took = 1;
    m->ack_word = cm5i_clock->bulk_take(m->node, start, m->bytes, m->rport < 0,
                                        notice, m, &m->fin_vt);
    if (m->ack_word == CM5I_VT_NONE)
        m->ack_pending = 1;
}

/* Receipt beside the clock: the acknowledgement of m waits for its word
 * (ack_pending); step sends it once the word is there. */
static int msg_ack_parked(cm5_msg_h m, void (*step)(cm5_msg_h))
{
    if (!m->ack_pending)
        return 0;
    m->ack_park = step;
    return 1;
}

int cm5i_msg_notice(const cm5i_pkt_t *pkt, int *src, size_t *len, int *cmmd,
                    void **ref)
{
    cm5_msg_h m;

    if (pkt->type != CM5I_PKT_INTERNAL || pkt->obj != CM5I_INT_MSG_DATA)
        return 0;
    m = msg_lookup(pkt->arg[0], pkt->arg[1]);
    if (!m || m->is_send || m->node != pkt->src || !msg_held(m) || m->took ||
        m->status != CM5_OK)
        return 0;
    if (src) {
        *src = m->node;
        *len = m->bytes;
        *cmmd = m->rport < 0;
        *ref = m;
    }
    return 1;
}

void cm5i_msg_took(void *ref, uint64_t ack, uint64_t end)
{
    cm5_msg_h m = ref;

    m->took = 1;
    m->ack_word = ack;
    m->fin_vt = end;
    m->ack_pending = 0;
    if (m->ack_park) {
        void (*step)(cm5_msg_h) = m->ack_park;

        m->ack_park = NULL;
        msg_later(m, step);
    }
}

/* Deferred, held senders: the receive is ready for the data that it
 * reads (single copy) or has (eager): the sender may push it. */
static void msg_go(cm5_msg_h m)
{
    msg_send_internal(CM5I_CH_REP, m->node, CM5I_INT_MSG_GO, m->peer_slot,
                      m->peer_gen, m->slot, m->gen);
}

static void msg_cma_pull(cm5_msg_h m);
static void msg_eager_ack(cm5_msg_h m);
static uint64_t msg_rx_vt(void);

static void msg_recv_done(void *arg, int status, size_t len)
{
    cm5_msg_h m = arg;

    (void)len;
    cm5i_traffic_rx++;
    if (status != CM5_OK)
        m->status = status;
    m->landed = 1;
    /* Synchronised virtual time takes the data in its turn, which the
     * sender's MSG_DATA packet tells (msg_data_handler). */
    if (!cm5i_clock_orders || m->data_told || status != CM5_OK)
        msg_later(m, msg_recv_finish);
}

/* Synchronised virtual time: the sender's data left (a tagged transfer,
 * which no clock orders) and this is its turn: the data is taken now,
 * once it is in. */
static void msg_data_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || m->is_send || m->node != src)
        cm5_fatal("cm5_msg", "unexpected data notice from node %d", src);
    if (msg_held(m))
        msg_take(m, msg_rx_vt(), 1);
    if (m->cma) { /* held senders: read it in this turn */
        msg_later(m, msg_cma_pull);
        return;
    }
    if (m->eager) {
        msg_later(m, msg_eager_ack);
        return;
    }
    if (m->landed) {
        if (m->status == CM5_OK)
            msg_later(m, msg_recv_finish);
        return;
    }
    m->data_told = 1;
    for (unsigned spins = 0; !m->landed;) /* (msg_recv_done finishes it) */
        cm5i_progress_pull_step(&spins);
}

/* Deferred: post the tagged receive, then clear the sender to send. */
static void msg_accept(cm5_msg_h m)
{
    uint64_t tag = (uint64_t)m->gen << 32 | m->slot;
    cm5i_waiter_t w;
    cm5_status_t st;

    if (msg_retry(m, msg_accept, !cm5i_flow_has(CM5I_CH_REP, m->node)))
        return;
    if (m->status != CM5_OK || m->bytes == 0) {
        /* Empty, or too long (refused: the sender's message fails too):
         * no data phase.  The receiver learns of a refusal first, so its
         * report comes before the sender's. */
        int node = m->node;
        uint32_t slot = m->peer_slot, gen = m->peer_gen;
        uint32_t how = m->status == CM5_OK ? 0 : MSG_REFUSED;

        if (CM5I_UNLIKELY(cm5i_clock != NULL) && m->status == CM5_OK)
            cm5i_clock->bulk_landed(node, m->vt, m->post_vt, 0, m->rport < 0,
                                    m->rport >= 0 || m->done, &m->fin_vt);
        uint32_t rslot = m->slot + 1;

        msg_finish(m);
        msg_send_internal(CM5I_CH_REP, node, CM5I_INT_MSG_CTS, slot, gen, how,
                          rslot);
        return;
    }
    m->op.done = msg_recv_done;
    m->op.arg = m;
    cm5i_waiter_start(&w, CM5I_WAIT_MSG_RECV_ROOM);
    while ((st = cm5i_fab_trecv(cm5i_ctx.fab, tag, m->buf, m->bytes, &m->op)) ==
           CM5_ERR_AGAIN) {
        if (msg_retry(m, msg_accept, 1)) {
            cm5i_waiter_end(&w);
            return;
        }
        msg_poll_once(&w);
    }
    cm5i_waiter_end(&w);
    if (st != CM5_OK)
        cm5_fatal("cm5_msg_recv", "cannot post the receive: %s",
                  cm5_status_string(st));
    m->state = MSG_DATA;
    msg_send_internal(CM5I_CH_REP, m->node,
                      m->direct ? CM5I_INT_SCOPY_CTS : CM5I_INT_MSG_CTS,
                      m->peer_slot, m->peer_gen, m->slot, m->gen);
}

/* Deferred: an eager message is in the receive buffer (or refused, as
 * too long): tell the sender, whose budget it frees. */
static void msg_eager_ack(cm5_msg_h m)
{
    int node = m->node;
    uint32_t slot = m->peer_slot, gen = m->peer_gen;
    cm5i_word_t w;

    if (msg_retry(m, msg_eager_ack, !cm5i_flow_has(CM5I_CH_REP, node)) ||
        (m->status == CM5_OK && msg_ack_parked(m, msg_eager_ack)))
        return;
    if (m->status != CM5_OK) {
        /* The receiver reports a refusal first, as in msg_accept. */
        uint32_t rslot = m->slot + 1;

        msg_finish(m);
        msg_send_internal(CM5I_CH_REP, node, CM5I_INT_MSG_ACK, slot, gen,
                          MSG_REFUSED, rslot);
        return;
    }
    /* In virtual time an eager or single-copy message is modelled as a
     * rendezvous (the CM-5's CMMD had no other): the acknowledgement
     * says when the data was in, as a rendezvous's completion does. */
    msg_send_word(CM5I_CH_REP, node, CM5I_INT_MSG_ACK, slot, gen, 0,
                  m->rport < 0 ? m->slot + 1 : 0, msg_ack_word(m, &w));
    msg_finish(m);
}

/* Deferred: read a single-copy message from the sender's memory, then
 * acknowledge it as an eager one; a read the kernel refuses turns it
 * into a rendezvous (the sender's clear-to-send handler pushes it). */
static void msg_cma_pull(cm5_msg_h m)
{
    if (CM5I_UNLIKELY(cm5i_clock_orders))
        cm5i_fab_cma_adopt(cm5i_ctx.fab, m->node, cm5i_wait_peer_pid(m->node));
    if (m->status == CM5_OK && m->bytes) {
        if (cm5i_fab_cma_read(cm5i_ctx.fab, m->node, m->buf, m->peer_addr,
                              m->bytes) != CM5_OK) {
            msg_count.cma_fallbacks++;
            m->cma = 0;
            msg_accept(m);
            return;
        }
        msg_count.cma_messages++;
        msg_count.cma_bytes += m->bytes;
    }
    msg_eager_ack(m);
}

/* The receive m takes the message r announces; data: an eager message's
 * bytes (NULL for a rendezvous). */
static void msg_match(cm5_msg_h m, const msg_rts_t *r, const void *data)
{
    m->node = r->src;
    m->tag = r->tag;
    m->bytes = r->len;
    m->peer_slot = r->slot;
    m->peer_gen = r->gen;
    m->vt = r->vt;
    m->stamp = cm5i_stamp_max(m->stamp, r->stamp);
    m->state = MSG_MATCHED;
    if (m->bytes > m->size)
        m->status = CM5_ERR_INVALID;
    if (r->cma) {
        m->cma = 1;
        m->peer_addr = r->addr;
        if (msg_held(m) && m->status == CM5_OK && m->rport < 0) {
            msg_later(m, msg_go); /* held senders: the data when pushed */
            return;
        }
        if (msg_held(m) && m->status == CM5_OK) /* an scopy: pushed now */
            msg_take(m, r->vt, 0);
        msg_later(m, msg_cma_pull);
        return;
    }
    if (!data && msg_held(m) && m->rport >= 0 && m->status == CM5_OK &&
        m->bytes) {
        /* Synchronised, an scopy sent as a tagged transfer (no single
         * copy: another host, CM5_CMA=off): its announcement is its
         * data's notice, as a single copy's is, its push paid as it was
         * announced; its data comes at once, cleared by a packet no
         * clock orders, and is waited for in this turn (the times are
         * those of a single copy). */
        m->direct = 1;
        m->data_told = 1; /* (msg_recv_done finishes it) */
        msg_take(m, r->vt, 0);
        msg_accept(m);
        for (unsigned spins = 0; !m->landed;)
            cm5i_progress_pull_step(&spins);
        return;
    }
    if (!data) {
        msg_later(m, msg_accept);
        return;
    }
    m->eager = 1;
    if (m->status == CM5_OK && m->bytes)
        memcpy(m->buf, data, m->bytes);
    msg_later(m, msg_held(m) && m->status == CM5_OK ? msg_go : msg_eager_ack);
}

static void msg_unlink_posted(cm5_msg_h m, cm5_msg_h prev)
{
    if (m->node == CM5_ANY_NODE)
        msgs.any_posted--;
    else if (!m->offered)
        msgs.unoffered[m->node]--;
    CM5I_QUEUE_UNLINK(msgs.posted_head, msgs.posted_tail, prev, m);
}

/* The virtual send time of the packet being handled (none when the model
 * is off). */
static uint64_t msg_rx_vt(void)
{
    return CM5I_UNLIKELY(cm5i_clock != NULL) ? cm5i_clock->rx_word()
                                             : CM5I_VT_NONE;
}

/* A message was announced (data: an eager one's bytes): the oldest
 * posted receive it matches takes it, or it waits for one. */
static void msg_arrived(const msg_rts_t *r, const void *data)
{
    msg_rts_t *u;

    for (cm5_msg_h m = msgs.posted_head, prev = NULL; m;
         prev = m, m = m->next) {
        if (msg_matches(m->node, m->tag, r->src, r->tag)) {
            msg_unlink_posted(m, prev);
            msg_match(m, r, data);
            return;
        }
    }
    u = malloc(sizeof(*u) + (data ? r->len : 0));
    if (!u)
        cm5_fatal("cm5_msg", "out of memory for a message from node %d",
                  r->src);
    *u = *r;
    u->eager = data != NULL;
    if (data) {
        memcpy(u->data, data, r->len);
        msg_count.eager_unexpected++;
    }
    CM5I_QUEUE_APPEND(msgs.rts_head, msgs.rts_tail, u);
}

static void msg_rts_handler(int src, const uint32_t *arg)
{
    msg_rts_t r = {.src = src,
                   .tag = (int)arg[0],
                   .len = arg[1],
                   .slot = arg[2],
                   .gen = arg[3],
                   .vt = msg_rx_vt(),
                   .stamp = cm5i_rx_stamp};

    msg_arrived(&r, NULL);
}

static void msg_put_arrived(int src, uint32_t slot, uint32_t gen, uint32_t len,
                            int tag, const void *data);

/* An eager message: the announcement with the data as its body (the
 * decoder checked that the body has arg[1] bytes). */
static int msg_eager_packet(int ch, const cm5i_pkt_t *pkt)
{
    msg_rts_t r = {.src = pkt->src,
                   .tag = (int)pkt->arg[0],
                   .len = pkt->arg[1],
                   .slot = pkt->arg[2],
                   .gen = pkt->arg[3],
                   .vt = msg_rx_vt(),
                   .stamp = cm5i_rx_stamp};
    size_t len;
    const void *body = cm5i_pkt_body(&len);

    (void)ch;
    if (pkt->off == MSG_EAGER_PUT) {
        msg_put_arrived(pkt->src, r.slot, r.gen, r.len, r.tag, body);
        return 1;
    }
    cm5i_depth.in_handler++;
    msg_arrived(&r, body);
    cm5i_depth.in_handler--;
    return 1; /* the data is copied: the packet's credit is owed now */
}

/* A single-copy announcement: a message, or an scopy when the body
 * names an rport. */
static void msg_scopy_arrived(int src, const msg_rts_t *r, uint32_t rport,
                              uint32_t off);

/* A receive node offered (r: its tag, slot and generation; b: where). */
static void msg_offer_arrived(int node, const msg_rts_t *r,
                              const msg_cma_body_t *b)
{
    msg_offer_t *o = malloc(sizeof(*o));

    if (!o)
        cm5_fatal("cm5_msg", "out of memory for a receive node %d offered",
                  node);
    *o = (msg_offer_t){.slot = r->slot,
                       .gen = r->gen,
                       .size = b->len,
                       .tag = r->tag,
                       .addr = b->addr};
    CM5I_QUEUE_APPEND(msgs.offer_head[node], msgs.offer_tail[node], o);
}

/* The receive in slot of node took an announcement of this node (its CTS
 * or ACK said so): its offer, if it made one, is no longer open. */
static void msg_offer_drop(int node, uint32_t slot)
{
    for (msg_offer_t *o = msgs.offer_head[node], *prev = NULL; o;
         prev = o, o = o->next) {
        if (o->slot != slot)
            continue;
        CM5I_QUEUE_UNLINK(msgs.offer_head[node], msgs.offer_tail[node], prev,
                          o);
        free(o);
        return;
    }
}

/* The match of an announcement of m (a send) is known. */
static void msg_matched_told(cm5_msg_h m)
{
    if (m->announced) {
        m->announced = 0;
        msgs.unmatched[m->node]--;
    }
}

/* The sender put a message into an offered receive (slot, gen): wrote
 * len bytes there, or sends them as data (an eager put). */
static void msg_put_arrived(int src, uint32_t slot, uint32_t gen, uint32_t len,
                            int tag, const void *data)
{
    cm5_msg_h m = msg_lookup(slot, gen), prev = NULL, p;

    if (!m || m->is_send || !m->offered || m->node != src || m->state != 0 ||
        len > m->size)
        cm5_fatal("cm5_msg",
                  "unexpected message into an offered receive "
                  "from node %d",
                  src);
    for (p = msgs.posted_head; p && p != m; prev = p, p = p->next)
        ;
    if (!p)
        cm5_fatal("cm5_msg", "node %d wrote into a receive no longer posted",
                  src);
    msg_unlink_posted(m, prev);
    m->tag = tag;
    m->bytes = len;
    if (data && len)
        memcpy(m->buf, data, len);
    m->stamp = cm5i_stamp_max(m->stamp, cm5i_rx_stamp);
    m->state = MSG_MATCHED;
    msg_later(m, msg_finish);
}

static void msg_put_handler(int src, const uint32_t *arg)
{
    /* (Counted where single copies always were: by the receiver.) */
    msg_count.cma_messages++;
    msg_count.cma_bytes += arg[2];
    msg_put_arrived(src, arg[0], arg[1], arg[2], (int)arg[3], NULL);
}

static int msg_cma_packet(int ch, const cm5i_pkt_t *pkt)
{
    msg_cma_body_t b;
    size_t len;
    const void *body = cm5i_pkt_body(&len);
    msg_rts_t r = {.src = pkt->src,
                   .tag = (int)pkt->arg[0],
                   .slot = pkt->arg[2],
                   .gen = pkt->arg[3],
                   .cma = 1,
                   .vt = msg_rx_vt(),
                   .stamp = cm5i_rx_stamp};

    (void)ch;
    if (len != sizeof(b))
        cm5_fatal("cm5_msg",
                  "a malformed single-copy announcement from "
                  "node %d",
                  pkt->src);
    memcpy(&b, body, sizeof(b));
    if (b.rport == MSG_CMA_OFFER) {
        msg_offer_arrived(pkt->src, &r, &b);
        return 1;
    }
    r.len = b.len;
    r.addr = b.addr;
    cm5i_depth.in_handler++;
    if (b.rport != MSG_CMA_NO_RPORT)
        msg_scopy_arrived(pkt->src, &r, b.rport, b.offset);
    else
        msg_arrived(&r, NULL);
    cm5i_depth.in_handler--;
    return 1;
}

/* ---- sender ---- */

static void msg_send_done(void *arg, int status, size_t len)
{
    cm5_msg_h m = arg;

    (void)len;
    if (status != CM5_OK)
        m->status = status;
    m->local_done = 1;
    if (m->remote_done || status != CM5_OK)
        msg_later(m, msg_finish);
}

/* Synchronised virtual time: the data's turn at the receiver.  Held
 * senders (deferred, the lane is m's): m's data is pushed, the sender
 * pays for it, and the notice carries the push's start (the receiver
 * reads the data, has it, or takes the tagged transfer); only once: a
 * single copy the kernel refused goes again as a tagged transfer. */
static void msg_data_notice(cm5_msg_h m)
{
    int charge = msg_held(m) && !m->pushed;
    cm5i_word_t w;

    if (charge) /* (the push's word: a promise its packet keeps) */
        w = (cm5i_word_t){cm5i_clock->push(m->bytes, 0), 1};
    msg_send_word(CM5I_CH_REQ, m->node, CM5I_INT_MSG_DATA, m->peer_slot,
                  m->peer_gen, 0, 0, charge ? &w : NULL);
    if (charge)
        cm5i_clock->push(m->bytes, 1);
    m->pushed = 1;
}

/* Deferred: the receiver is ready; send the data. */
static void msg_push(cm5_msg_h m)
{
    uint64_t tag = (uint64_t)m->peer_gen << 32 | m->peer_slot;
    const void *src = m->copy ? m->copy : m->buf;
    cm5i_waiter_t w;
    cm5_status_t st;

    m->op.done = msg_send_done;
    m->op.arg = m;
    m->state = MSG_DATA;
    cm5i_waiter_start(&w, CM5I_WAIT_MSG_SEND_ROOM);
    while ((st = cm5i_fab_tsend(cm5i_ctx.fab, m->node, tag, src, m->bytes,
                                &m->op)) == CM5_ERR_AGAIN) {
        if (msg_retry(m, msg_push, 1)) {
            cm5i_waiter_end(&w);
            return;
        }
        msg_poll_once(&w);
    }
    cm5i_waiter_end(&w);
    if (st == CM5_OK)
        cm5i_traffic_tx++;
    cm5i_doorbell_ring(m->node); /* the receiver drives the transfer too */
    if (st != CM5_OK)
        cm5_fatal("cm5_msg_send", "sending %zu bytes to node %d failed: %s",
                  m->bytes, m->node, cm5_status_string(st));
    if (cm5i_clock_orders && !m->direct) /* its turn at the receiver */
        msg_data_notice(m);
}

/* Synchronised: the receiver of a tagged scopy took it in its
 * announcement's turn and waits there for the data (msg_match): it goes
 * now, even from a handler. */
static void msg_scopy_cts_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || !m->is_send || m->node != src || !m->direct)
        cm5_fatal("cm5_msg", "unexpected scopy clear-to-send from node %d",
                  src);
    m->peer_slot = arg[2];
    m->peer_gen = arg[3];
    msg_push(m);
}

/* Held senders: the receiver is ready for m's data. */
static void msg_go_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || !m->is_send || !(m->eager || m->cma) || m->node != src ||
        !msg_held(m))
        cm5_fatal("cm5_msg", "unexpected ready notice from node %d", src);
    m->stamp = cm5i_stamp_max(m->stamp, cm5i_rx_stamp);
    m->peer_slot = arg[2];
    m->peer_gen = arg[3];
    msg_lane_take(m, msg_data_notice, 0);
}

static void msg_cts_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || !m->is_send || m->node != src)
        cm5_fatal("cm5_msg", "unexpected clear-to-send from node %d", src);
    m->stamp = cm5i_stamp_max(m->stamp, cm5i_rx_stamp);
    m->peer_slot = arg[2];
    m->peer_gen = arg[3];
    msg_matched_told(m);
    /* (The receive that took it: arg[2], or arg[3] - 1 when there is no
     * data phase.) */
    if (arg[2] == MSG_REFUSED || m->bytes == 0) {
        if (arg[3])
            msg_offer_drop(src, arg[3] - 1);
    } else {
        msg_offer_drop(src, arg[2]);
    }
    if (m->cma) {
        /* The receiver could not read it: rendezvous from now on. */
        msgs.cma_off[src] = 1;
        m->cma = 0;
    }
    if (m->peer_slot == MSG_REFUSED)
        m->status = CM5_ERR_INVALID;
    if (m->bytes == 0 || m->status != CM5_OK) {
        msg_lane_release(m);
        msg_later(m, msg_finish);
        return;
    }
    if (msg_held(m) && lane.cur != m) {
        msg_lane_take(m, msg_push, 0);
        return;
    }
    msg_later(m, msg_push);
}

/* A receive took the eager message (or refused it). */
static void msg_ack_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || !m->is_send || !(m->eager || m->cma) || m->node != src)
        cm5_fatal("cm5_msg", "unexpected acknowledgement from node %d", src);
    m->stamp = cm5i_stamp_max(m->stamp, cm5i_rx_stamp);
    msg_matched_told(m);
    if (arg[3]) /* (the receive that took it) */
        msg_offer_drop(src, arg[3] - 1);
    if (m->eager)
        msg_eager_give(src, m->bytes);
    if (arg[2] == MSG_REFUSED)
        m->status = CM5_ERR_INVALID;
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        cm5i_clock->bulk_fin(m->fin_vt = cm5i_clock->rx_word());
    msg_lane_release(m);
    msg_later(m, msg_finish);
}

static void msg_fin_handler(int src, const uint32_t *arg)
{
    cm5_msg_h m = msg_lookup(arg[0], arg[1]);

    if (!m || !m->is_send || m->node != src)
        cm5_fatal("cm5_msg", "unexpected completion from node %d", src);
    m->stamp = cm5i_stamp_max(m->stamp, cm5i_rx_stamp);
    m->remote_done = 1;
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        cm5i_clock->bulk_fin(m->fin_vt = cm5i_clock->rx_word());
    msg_lane_release(m);
    if (m->local_done) {
        msg_later(m, msg_finish);
        return;
    }
    /* Synchronised virtual time: it finishes in this packet's turn, not
     * when the fabric says so (msg_send_done then finishes it). */
    for (unsigned spins = 0; cm5i_clock_orders && !m->local_done;)
        cm5i_progress_pull_step(&spins);
}

/* The receiver tells the sender once the data is in (deferred). */
static void msg_recv_finish(cm5_msg_h m)
{
    cm5i_word_t w;

    if (m->status == CM5_OK &&
        (msg_retry(m, msg_recv_finish, !cm5i_flow_has(CM5I_CH_REP, m->node)) ||
         msg_ack_parked(m, msg_recv_finish)))
        return;
    if (m->status == CM5_OK)
        msg_send_word(CM5I_CH_REP, m->node, CM5I_INT_MSG_FIN, m->peer_slot,
                      m->peer_gen, 0, 0, msg_ack_word(m, &w));
    msg_finish(m);
}

static void msg_send_eager(cm5_msg_h m, const cm5i_word_t *w)
{
    cm5i_pkt_t pkt = {.type = CM5I_PKT_EAGER,
                      .arg = {(uint32_t)m->tag, 0, m->slot, m->gen}};
    cm5_status_t st;

    cm5i_pkt_word(&pkt, w);
    st = cm5i_am_send_body(CM5I_CH_REQ, m->node, &pkt,
                           m->copy ? m->copy : m->buf, m->bytes);
    if (st != CM5_OK)
        cm5_fatal("cm5_msg_send", "sending %zu bytes to node %d failed: %s",
                  m->bytes, m->node, cm5_status_string(st));
    msg_count.eager_sent++;
    m->local_done = 1;
}

/* May m's data go by single copy (the receiver reading it)?  Not in
 * signal context, whose send queue holds bare packets, and not to a node
 * that could not read this one's memory before. */
static int msg_cma_can(int node, size_t len)
{
    if (CM5I_UNLIKELY(cm5i_clock_orders) && len)
        cm5i_fab_cma_adopt(cm5i_ctx.fab, node, cm5i_wait_peer_pid(node));
    return len && !cm5i_irq_in_signal && !msgs.cma_off[node] &&
           cm5i_fab_cma_ok(cm5i_ctx.fab, node);
}

/* Announce m for a single copy: the tag (rport MSG_CMA_NO_RPORT), or the
 * rport and offset of an scopy. */
static void msg_send_cma(cm5_msg_h m, uint32_t rport, uint32_t off,
                         const cm5i_word_t *w)
{
    const void *src = m->copy ? m->copy : m->buf;
    msg_cma_body_t b = {.addr = (uint64_t)(uintptr_t)src,
                        .len = (uint32_t)m->bytes,
                        .rport = rport,
                        .offset = off};
    cm5i_pkt_t pkt = {.type = CM5I_PKT_CMA,
                      .arg = {(uint32_t)m->tag, 0, m->slot, m->gen}};
    cm5_status_t st;

    m->cma = 1;
    cm5i_pkt_word(&pkt, w);
    st = cm5i_am_send_body(CM5I_CH_REQ, m->node, &pkt, &b, sizeof(b));
    if (st != CM5_OK)
        cm5_fatal("cm5_msg_send",
                  "announcing %zu bytes to node %d failed: "
                  "%s",
                  m->bytes, m->node, cm5_status_string(st));
}

/* Announce m (with its data, if eager). */
static void msg_send_rts(cm5_msg_h m)
{
    int node = m->node;
    cm5i_word_t w;
    const cm5i_word_t *wp = msg_vt_word(m, &w); /* eager or not */

    if (m->eager && cm5i_irq_in_signal) {
        /* A queued eager send reached in signal context (whose send
         * queue holds bare packets): it was copied when it was queued,
         * and goes by rendezvous. */
        msg_eager_give(node, m->bytes);
        m->eager = 0;
    }
    msgs.rts_busy[node] = 1;
    m->announced = 1;
    msgs.unmatched[node]++;
    if (m->eager)
        msg_send_eager(m, wp);
    else if (msg_cma_can(node, m->bytes))
        msg_send_cma(m, MSG_CMA_NO_RPORT, 0, wp);
    else
        msg_send_word(CM5I_CH_REQ, node, CM5I_INT_MSG_RTS, (uint32_t)m->tag,
                      (uint32_t)m->bytes, m->slot, m->gen, wp);
    msgs.rts_busy[node] = 0;
}

/* Must a send to node queue behind an announcement (queued or being
 * sent) or wait for a credit? */
static int msg_must_queue(int node)
{
    return msgs.rtsq_head[node] || msgs.rts_busy[node] ||
           !cm5i_flow_has(CM5I_CH_REQ, node);
}

/* Offered receives: may a send to node write into an offer (real time,
 * single copy, none of this node's announcements to it unmatched)? */
static int msg_put_may(int node)
{
    return !msgs.unmatched[node] && CM5I_LIKELY(cm5i_clock == NULL) &&
           msg_cma_can(node, 1);
}

/* Write m into the first offer of its node whose tag matches, if it is
 * large enough (the caller saw msg_put_may); 1: done. */
static int msg_put(cm5_msg_h m)
{
    int node = m->node, inline_;
    msg_offer_t *o, *prev = NULL;

    for (o = msgs.offer_head[node]; o; prev = o, o = o->next)
        if (msg_matches(CM5_ANY_NODE, o->tag, node, m->tag))
            break;
    if (!o || m->bytes > o->size)
        return 0; /* (a receive too short refuses it as before) */
    inline_ = m->bytes <= eager.max;
    if (!inline_ && cm5i_fab_cma_write(cm5i_ctx.fab, node, o->addr, m->buf,
                                       m->bytes) != CM5_OK) {
        msg_count.cma_fallbacks++; /* (and the fabric reads it no more) */
        return 0;
    }
    CM5I_QUEUE_UNLINK(msgs.offer_head[node], msgs.offer_tail[node], prev, o);
    m->state = MSG_DATA;
    m->local_done = m->remote_done = 1;
    if (inline_) { /* the data in the packet, as an eager message's */
        cm5i_pkt_t pkt = {.type = CM5I_PKT_EAGER,
                          .off = MSG_EAGER_PUT,
                          .arg = {(uint32_t)m->tag, 0, o->slot, o->gen}};
        cm5_status_t st =
            cm5i_am_send_body(CM5I_CH_REQ, node, &pkt, m->buf, m->bytes);

        if (st != CM5_OK)
            cm5_fatal("cm5_msg_send", "sending %zu bytes to node %d failed: %s",
                      m->bytes, node, cm5_status_string(st));
        msg_count.eager_sent++;
    } else {
        msg_send_internal(CM5I_CH_REQ, node, CM5I_INT_MSG_PUT, o->slot, o->gen,
                          (uint32_t)m->bytes, (uint32_t)m->tag);
    }
    free(o);
    msg_count.puts_sent++;
    msg_later(m, msg_finish);
    return 1;
}

/* A receive m just posted, not matched: offer it to its node if it may
 * (see the top), else count it against later offers. */
static void msg_offer(cm5_msg_h m)
{
    int node = m->node;
    msg_cma_body_t b = {.addr = (uint64_t)(uintptr_t)m->buf,
                        .len = (uint32_t)m->size,
                        .rport = MSG_CMA_OFFER};
    cm5i_pkt_t pkt = {.type = CM5I_PKT_CMA,
                      .arg = {(uint32_t)m->tag, 0, m->slot, m->gen}};
    cm5_status_t st;

    if (node == CM5_ANY_NODE) {
        msgs.any_posted++;
        return;
    }
    /* (Not a receive an eager message fits: the offer costs a packet
     * and the sender a poll, more than the eager message's
     * acknowledgement costs: a 16-byte CMMD round trip took 0.98 us with
     * such offers, 0.80 without, and small all-to-alls gained nothing;
     * doc/bench.md.) */
    if (msgs.any_posted || msgs.unoffered[node] || m->size <= eager.max ||
        CM5I_UNLIKELY(cm5i_clock != NULL) || m->size > UINT32_MAX ||
        !msg_cma_can(node, 1) || !cm5i_flow_has(CM5I_CH_REP, node)) {
        msgs.unoffered[node]++;
        return;
    }
    /* (Offered before it goes: a handler run while it waits for room may
     * match the receive, whose ACK then names it.) */
    m->offered = 1;
    st = cm5i_am_send_body(CM5I_CH_REP, node, &pkt, &b, sizeof(b));
    if (st != CM5_OK)
        cm5_fatal("cm5_msg_recv", "offering a receive to node %d failed: %s",
                  node, cm5_status_string(st));
    msg_count.offers_made++;
}

/* ---- API ---- */

static cm5_msg_h msg_new(int is_send, int node, int tag, void *buf, size_t len,
                         cm5_msg_done_func_t done, void *arg)
{
    cm5_msg_h m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    if (msg_slot(m) != CM5_OK) {
        free(m);
        return NULL;
    }
    m->is_send = is_send;
    m->rport = -1;
    m->node = node;
    m->tag = tag;
    m->buf = buf;
    m->size = len;
    m->done = done;
    m->arg = arg;
    msgs.active[is_send]++;
    msg_event(m, 0);
    return m;
}

cm5_status_t cm5_msg_send(int node, int tag, const void *buf, size_t len,
                          unsigned flags, cm5_msg_done_func_t done, void *arg,
                          cm5_msg_h *out)
{
    CM5I_GUARD();
    if (tag < 0)
        return CM5_ERR_INVALID;
    return cm5i_msg_send(node, tag, buf, len, flags, done, arg, out);
}

cm5_status_t cm5i_msg_send(int node, int tag, const void *buf, size_t len,
                           unsigned flags, cm5_msg_done_func_t done, void *arg,
                           cm5_msg_h *out)
{
    cm5_msg_h m;
    int queue;

    cm5i_ensure_init();
    if (!cm5i_node_ok(node))
        return CM5_ERR_RANGE;
    if ((len && !buf) || len > UINT32_MAX || tag == CM5_ANY_TAG)
        return CM5_ERR_INVALID;
    if (cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    m = msg_new(1, node, tag, (void *)buf, len, done, arg);
    if (!m)
        return CM5_ERR_NO_MEMORY;
    m->bytes = len;
    queue = msg_must_queue(node);
    if (!queue && msg_put_may(node)) {
        /* An offer may wait unread (the node slept, left a barrier): take
         * what the reply channel holds, as a send's wait would (not for
         * a message eager takes anyway: receives it fits are not
         * offered, and the poll is on a small message's round trip). */
        if (!msgs.offer_head[node] && len > eager.max) {
            cm5i_progress_poll_only(1);
            cm5i_progress(CM5I_CH_BIT(CM5I_CH_REP));
            cm5i_progress_poll_only(-1);
            queue = msg_must_queue(node);
        }
        if (!queue && msg_put(m)) {
            *out = m;
            return CM5_OK;
        }
    }
    m->eager = msg_eager_take(node, len);
    /* An eager message sent now is copied into its packet at once. */
    if ((flags & CM5_MSG_COPY) && len && (queue || !m->eager)) {
        m->copy = malloc(len);
        if (!m->copy) {
            if (m->eager)
                msg_eager_give(node, len);
            msgs.active[1]--;
            msg_release(m);
            return CM5_ERR_NO_MEMORY;
        }
        memcpy(m->copy, buf, len);
    }
    m->state = MSG_RTS_SENT;
    *out = m;
    m->fin_vt = CM5I_VT_NONE;
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        m->vt = cm5i_clock->bulk_send(len, 1);
    if (queue) {
        if (!msgs.rtsq_head[node])
            msgs.rtsq_tail[node] = NULL;
        CM5I_QUEUE_APPEND(msgs.rtsq_head[node], msgs.rtsq_tail[node], m);
        msgs.rts_queued++;
        return CM5_OK;
    }
    msg_send_rts(m);
    return CM5_OK;
}

/* A progress hook (outside handlers): send the queued RTSs that have
 * credits. */
static int msg_send_queued(int chmask)
{
    int n = 0;

    (void)chmask;
    for (int node = 0; node < cm5i_ctx.nep && msgs.rts_queued; node++) {
        cm5_msg_h m;

        while ((m = msgs.rtsq_head[node]) && !msgs.rts_busy[node] &&
               cm5i_flow_has(CM5I_CH_REQ, node)) {
            msgs.rtsq_head[node] = m->next;
            m->next = NULL;
            msgs.rts_queued--;
            msg_send_rts(m);
            n++;
        }
    }
    return n;
}

cm5_status_t cm5_msg_recv(int node, int tag, void *buf, size_t len,
                          cm5_msg_done_func_t done, void *arg, cm5_msg_h *out)
{
    CM5I_GUARD();
    if (tag < 0 && tag != CM5_ANY_TAG)
        return CM5_ERR_INVALID;
    return cm5i_msg_recv(node, tag, buf, len, done, arg, out);
}

cm5_status_t cm5i_msg_recv(int node, int tag, void *buf, size_t len,
                           cm5_msg_done_func_t done, void *arg, cm5_msg_h *out)
{
    cm5_msg_h m;

    cm5i_ensure_init();
    if (node != CM5_ANY_NODE && !cm5i_node_ok(node))
        return CM5_ERR_RANGE;
    if (len && !buf)
        return CM5_ERR_INVALID;
    if (cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    m = msg_new(0, node, tag, buf, len, done, arg);
    if (!m)
        return CM5_ERR_NO_MEMORY;
    *out = m;
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        m->post_vt = cm5i_clock->now();
    for (msg_rts_t *r = msgs.rts_head, *prev = NULL; r; prev = r, r = r->next) {
        if (!msg_matches(node, tag, r->src, r->tag))
            continue;
        CM5I_QUEUE_UNLINK(msgs.rts_head, msgs.rts_tail, prev, r);
        msg_match(m, r, r->eager ? r->data : NULL);
        free(r);
        return CM5_OK;
    }
    CM5I_QUEUE_APPEND(msgs.posted_head, msgs.posted_tail, m);
    msg_offer(m);
    return CM5_OK;
}

/* A sender that waits for its message waits, in virtual time, until its
 * last packet has left (the network held it back while the receiver's
 * link was busy); a receiver until it has the message. */
static void msg_model_done(cm5_msg_h m)
{
    if (!CM5I_UNLIKELY(cm5i_clock != NULL) || m->state != MSG_DONE)
        return;
    if (m->is_send)
        cm5i_clock->reach(m->fin_vt);
    else if (m->status == CM5_OK)
        cm5i_clock->bulk_seen(m->node, m->vt, m->fin_vt, msgs.active[0] == 0);
}

int cm5_msg_test(cm5_msg_h m)
{
    CM5I_GUARD();
    if (m->state != MSG_DONE && !cm5i_depth.in_handler)
        cm5i_probe_progress_of(m);
    msg_model_done(m);
    return m->state == MSG_DONE;
}

cm5_status_t cm5_msg_wait(cm5_msg_h m)
{
    CM5I_GUARD();
    cm5i_waiter_t w;

    if (m->state != MSG_DONE && cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    cm5i_waiter_start(&w, CM5I_WAIT_MSG_DONE);
    while (m->state != MSG_DONE)
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    msg_model_done(m);
    return m->status;
}

void cm5_msg_free(cm5_msg_h m)
{
    CM5I_GUARD();
    if (!m)
        return;
    if (m->state == MSG_DONE && !m->in_callback)
        msg_release(m);
    else
        m->freed = 1; /* released by msg_finish */
}

void cm5_msg_info(cm5_msg_h m, cm5_msg_info_t *out)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    out->is_send = m->is_send;
    out->node = m->node;
    out->tag = m->tag;
    out->bytes = m->state >= MSG_MATCHED || m->is_send ? m->bytes : 0;
    out->size = m->size;
    out->buf = m->buf;
    out->done = m->state == MSG_DONE;
    out->status = m->status;
}

int cm5_msg_probe(int node, int tag, cm5_msg_info_t *out)
{
    CM5I_GUARD();
    cm5i_ensure_init();
    if (!cm5i_depth.in_handler)
        cm5i_probe_progress();
    for (msg_rts_t *r = msgs.rts_head; r; r = r->next) {
        if (!msg_matches(node, tag, r->src, r->tag))
            continue;
        if (out) {
            memset(out, 0, sizeof(*out));
            out->node = r->src;
            out->tag = r->tag;
            out->bytes = r->len;
        }
        return 1;
    }
    return 0;
}

int cm5i_msg_open(int sends) { return msgs.active[sends ? 1 : 0]; }

int cm5_msg_active(int sends)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    if (CM5I_UNLIKELY(cm5i_clock != NULL) && msgs.active[sends ? 1 : 0] == 0 &&
        !cm5i_depth.in_handler)
        cm5i_clock->bulk_all_seen(sends ? 1 : 0);
    return msgs.active[sends ? 1 : 0];
}

/* ---- scopy ---- */

/* Announce scopy m (held senders: once the lane is its; read by single
 * copy, the announcement is the data's notice and the push is paid). */
static void msg_scopy_announce(cm5_msg_h m)
{
    int held = msg_held(m);
    cm5i_word_t w;
    const cm5i_word_t *wp = msg_vt_word(m, &w);

    if (held) /* (the push's word: a promise its packet keeps) */
        w = (cm5i_word_t){cm5i_clock->push(m->bytes, 0), 1};
    if (msg_cma_can(m->node, m->bytes)) {
        msg_send_cma(m, m->sc_rport, m->sc_off, wp);
    } else {
        /* (held, with data: a tagged transfer the receiver takes in this
         * announcement's turn, as a single copy: msg_match) */
        m->direct = held && m->bytes;
        msg_send_word(CM5I_CH_REQ, m->node, CM5I_INT_SCOPY,
                      m->sc_rport | m->slot << 8, m->sc_off, (uint32_t)m->bytes,
                      m->gen, wp);
    }
    if (held && (m->cma || m->direct)) {
        m->pushed = 1;
        cm5i_clock->push(m->bytes, 1);
    }
}

cm5_status_t cm5_scopy(int node, int rport, size_t offset, const void *buf,
                       size_t len, void (*sent)(void *arg), void *arg)
{
    CM5I_GUARD();
    cm5_msg_h m;

    cm5i_ensure_init();
    if (node < 0 || node >= cm5i_ctx.size)
        return CM5_ERR_RANGE;
    if (rport < 0 || rport >= CM5_RPORTS || (len && !buf) || len > UINT32_MAX ||
        offset > UINT32_MAX)
        return CM5_ERR_INVALID;
    if (cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    m = msg_new(1, node, -1, (void *)buf, len, NULL, arg);
    if (!m)
        return CM5_ERR_NO_MEMORY;
    msgs.active[1]--;
    m->internal = 1;
    m->freed = 1;
    m->sent = sent;
    m->bytes = len;
    m->state = MSG_RTS_SENT;
    m->sc_rport = (uint32_t)rport;
    m->sc_off = (uint32_t)offset;
    m->vt = CM5I_VT_NONE;
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        m->vt = cm5i_clock->bulk_send(len, 0);
    if (msg_held(m)) { /* its announcement is its data's push */
        msg_lane_take(m, msg_scopy_announce, 1);
        return CM5_OK;
    }
    msg_scopy_announce(m);
    return CM5_OK;
}

static void msg_scopy_handler(int src, const uint32_t *arg)
{
    msg_rts_t rts = {.src = src,
                     .tag = -1,
                     .len = arg[2],
                     .slot = arg[0] >> 8,
                     .gen = arg[3],
                     .vt = msg_rx_vt(),
                     .stamp = cm5i_rx_stamp};

    msg_scopy_arrived(src, &rts, arg[0] & 0xff, arg[1]);
}

/* An scopy of rts->len bytes to offset off of rport rp: its receive. */
static void msg_scopy_arrived(int src, const msg_rts_t *a, uint32_t rp,
                              uint32_t off)
{
    int r = (int)rp;
    uint32_t len = a->len;
    cm5i_rport_t *p = rp < CM5_RPORTS ? &cm5i_rports[rp] : NULL;
    msg_rts_t rts = *a;
    cm5_msg_h m;

    if (!p || !p->allocated)
        cm5_fatal("CMAML_scopy",
                  "node %d sent %u bytes to rport %u of node "
                  "%d, which is not allocated",
                  src, len, rp, cm5i_ctx.rank);
    if ((long)len > p->a.byte_counter - p->pending)
        cm5_fatal("CMAML_scopy",
                  "%u bytes from node %d at offset %u pass "
                  "the byte counter of rport %d on node %d (%ld bytes left)",
                  len, src, off, r, cm5i_ctx.rank,
                  p->a.byte_counter - p->pending);
    if (len && !p->a.addr)
        cm5_fatal("CMAML_scopy",
                  "rport %d on node %d has no address (node "
                  "%d sent %u bytes)",
                  r, cm5i_ctx.rank, src, len);
    m = msg_new(0, src, -1, (char *)p->a.addr + off, len, NULL, NULL);
    if (!m)
        cm5_fatal("CMAML_scopy", "out of memory");
    msgs.active[0]--;
    m->internal = 1;
    m->freed = 1;
    m->rport = r;
    if (len && cm5i_rport_place(r, src, off, len, &m->place)) {
        /* Elements with gaps: land in a buffer, scatter when complete. */
        m->copy = malloc(len);
        if (!m->copy)
            cm5_fatal("CMAML_scopy", "out of memory");
        m->buf = m->copy;
    }
    p->pending += len;
    msg_match(m, &rts, NULL);
}

/* Free the message tables, the messages still in them and the RTSs no
 * receive matched (finalize, or a start that failed). */
void cm5i_msg_teardown(void)
{
    for (uint32_t i = 0; i < msgs.nslots; i++)
        if (msgs.slots[i]) {
            free(msgs.slots[i]->copy);
            free(msgs.slots[i]);
        }
    msg_bury(0);
    while (msgs.rts_head) {
        msg_rts_t *r = msgs.rts_head;

        msgs.rts_head = r->next;
        free(r);
    }
    free(msgs.slots);
    free(msgs.gens);
    free(msgs.free_slots);
    free(msgs.rtsq_head);
    free(msgs.rts_busy);
    free(msgs.cma_off);
    for (int k = 0; msgs.offer_head && k < cm5i_ctx.nep; k++)
        while (msgs.offer_head[k]) {
            msg_offer_t *o = msgs.offer_head[k];

            msgs.offer_head[k] = o->next;
            free(o);
        }
    free(msgs.offer_head);
    free(msgs.unmatched);
    memset(&msgs, 0, sizeof(msgs));
    memset(&lane, 0, sizeof(lane));
    free(eager.budget);
    eager.budget = NULL;
}

cm5_status_t cm5i_msg_setup(void)
{
    cm5i_stats_part(&msg_count);
    cm5i_am_register_internal(CM5I_INT_SCOPY, msg_scopy_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_RTS, msg_rts_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_CTS, msg_cts_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_FIN, msg_fin_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_ACK, msg_ack_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_DATA, msg_data_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_GO, msg_go_handler);
    cm5i_am_register_internal(CM5I_INT_MSG_PUT, msg_put_handler);
    cm5i_am_register_internal(CM5I_INT_SCOPY_CTS, msg_scopy_cts_handler);
    cm5i_pkt_register_body(CM5I_PKT_EAGER, msg_eager_packet);
    cm5i_pkt_register_body(CM5I_PKT_CMA, msg_cma_packet);
    cm5i_progress_hook(CM5I_HOOK_OUTSIDE_LAST, msg_send_queued);
    cm5i_progress_hook(CM5I_HOOK_FIRST, msg_bury);
    if (!msgs.rtsq_head) {
        msgs.rtsq_head = calloc((size_t)cm5i_ctx.nep * 2, sizeof(cm5_msg_h));
        if (!msgs.rtsq_head)
            return CM5_ERR_NO_MEMORY;
        msgs.rtsq_tail = msgs.rtsq_head + cm5i_ctx.nep;
    }
    if (!msgs.rts_busy) {
        msgs.rts_busy = calloc((size_t)cm5i_ctx.nep, 1);
        if (!msgs.rts_busy)
            return CM5_ERR_NO_MEMORY;
    }
    if (!msgs.cma_off) {
        msgs.cma_off = calloc((size_t)cm5i_ctx.nep, 1);
        if (!msgs.cma_off)
            return CM5_ERR_NO_MEMORY;
    }
    if (!msgs.offer_head) {
        msgs.offer_head = calloc((size_t)cm5i_ctx.nep * 2, sizeof(void *));
        msgs.unmatched = calloc((size_t)cm5i_ctx.nep * 2, sizeof(uint32_t));
        if (!msgs.offer_head || !msgs.unmatched)
            return CM5_ERR_NO_MEMORY;
        msgs.offer_tail = msgs.offer_head + cm5i_ctx.nep;
        msgs.unoffered = msgs.unmatched + cm5i_ctx.nep;
    }
    msg_eager_fit();
    eager.window = msg_eager_window();
    if (!eager.budget) {
        eager.budget = malloc((size_t)cm5i_ctx.nep * sizeof(uint32_t));
        if (!eager.budget)
            return CM5_ERR_NO_MEMORY;
        for (int i = 0; i < cm5i_ctx.nep; i++)
            eager.budget[i] = eager.window;
    }
    return CM5_OK;
}
