/*
 * Active messages: the packets, their decoder and dispatch table, user
 * and runtime handlers, remote procedure calls, the user packets held
 * while a control-network call waits, and sending (with the credits of
 * am_flow.c).
 */
#include "am_packet.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "am_ctx.h"
#include "am_event.h"
#include "am_flow.h"
#include "am_guard.h"
#include "am_handler.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t packet_count; /* this module's statistics (cm5_stats) */

static struct {
    cm5i_pkt_func_t types[CM5I_PKT_MAX];              /* by packet type */
    cm5i_internal_func_t internal[CM5I_INTERNAL_MAX]; /* by index */
    /* Remote procedure calls wait here until the node is outside every
     * handler; credits bound them to nep * window. */
    cm5i_pkt_t *rpc_q;
    uint32_t rpc_head, rpc_tail, rpc_cap;
    int in_rpc; /* RPCs never nest (one may send, and so wait) */
    uint8_t has_body[CM5I_PKT_MAX]; /* by packet type */
    const void *body;               /* of the packet being dispatched */
    size_t body_len;
    void (*park)(int ch, const cm5i_pkt_t *pkt); /* am_poll.c's */
} pkts;

/* The handler a packet names (NULL: not executable code here). */
static cm5_am_handler_func_t am_handler(const cm5i_pkt_t *pkt)
{
    cm5i_href_t ref = {.obj = pkt->obj, .off = pkt->off};

    return (cm5_am_handler_func_t)(pkt->raw & CM5I_RAW_ADDR
                                       ? cm5i_handler_decode_raw(ref)
                                       : cm5i_handler_decode(ref));
}

static void am_run_user(int ch, const cm5i_pkt_t *pkt)
{
    cm5_am_handler_func_t h = am_handler(pkt);
    int was_req = cm5i_depth.in_req_handler;
    uint32_t was_stamp = cm5i_rx_stamp;

    if (CM5I_UNLIKELY(!h))
        cm5_fatal(ch == CM5I_CH_REQ ? "CMAML_request" : "CMAML_reply",
                  "handler (object %08x, offset 0x%x) sent by node %d is "
                  "not executable code in this process; not called",
                  pkt->obj, pkt->off, pkt->src);
    CM5I_EV(deliver, ch, pkt);
    cm5i_depth.in_handler++;
    cm5i_depth.in_req_handler = ch == CM5I_CH_REQ;
    cm5i_rx_stamp = pkt->seq;
    h(pkt->arg[0], pkt->arg[1], pkt->arg[2], pkt->arg[3]);
    cm5i_rx_stamp = was_stamp;
    CM5I_EV(delivered, ch);
    cm5i_depth.in_req_handler = was_req;
    cm5i_depth.in_handler--;
    if (ch == CM5I_CH_REQ)
        packet_count.requests_handled++;
    else
        packet_count.replies_handled++;
}

static void am_run_internal(const cm5i_pkt_t *pkt)
{
    cm5i_internal_func_t fn =
        pkt->obj < CM5I_INTERNAL_MAX ? pkts.internal[pkt->obj] : NULL;

    if (!fn)
        cm5_fatal("cm5fab", "unknown internal message %u from node %d",
                  pkt->obj, pkt->src);
    cm5i_depth.in_handler++;
    fn(pkt->src, pkt->arg);
    cm5i_depth.in_handler--;
    packet_count.internal_handled++;
}

/* User packets held while a control-network call waits, per channel in
 * arrival order.  Their credits go back at once: the collectives' own
 * packets share the window and must never wait behind held user messages
 * (on the CM-5 the control network was a network of its own).  A queue
 * holds what the other nodes send before they reach the same call; a
 * program that sends more than AM_HELD_MAX meanwhile would have filled
 * the CM-5's data network and hung, and is stopped with a message
 * instead.  Packets parked by a one-channel poll (am_poll.c) are always
 * older than held ones: nothing is parked while a channel holds some. */
#define AM_HELD_MAX (1u << 22)
typedef struct {
    cm5i_pkt_t *q;
    size_t head, tail, cap;
} am_held_t;
static am_held_t held[CM5I_NCH];

static int am_holding(int ch) { return held[ch].head < held[ch].tail; }

static void am_hold(int ch, const cm5i_pkt_t *pkt)
{
    am_held_t *h = &held[ch];

    if (h->tail == h->cap) {
        size_t n = h->tail - h->head, cap = h->cap ? h->cap : 256;
        cm5i_pkt_t *q;

        if (h->head) /* (the first time, q is NULL) */
            memmove(h->q, h->q + h->head, n * sizeof(*h->q));
        h->head = 0;
        h->tail = n;
        if (n + 1 > cap / 2)
            cap *= 2;
        if (cap > AM_HELD_MAX)
            cm5_fatal(ch == CM5I_CH_REQ ? "CMAML_request" : "CMAML_reply",
                      "%zu active messages arrived while this node waited "
                      "in a control-network call (barrier, reduction, scan, "
                      "broadcast); the CM-5's data network would have "
                      "filled and hung: poll before the call",
                      n);
        if (cap != h->cap) {
            q = realloc(h->q, cap * sizeof(*q));
            if (!q)
                cm5_fatal("cm5fab",
                          "out of memory holding %zu active "
                          "messages during a control-network call",
                          n);
            h->q = q;
            h->cap = cap;
        }
    }
    h->q[h->tail++] = *pkt;
}

/* Run the packets held on ch that may run now (outside handlers, and
 * not while a one-channel poll parks ch): all of them outside
 * control-network calls; inside one, those of its epoch or earlier, the
 * later ones staying in order (a sender's epochs never decrease, so
 * none of its packets passes another).  Positions count from the head:
 * a handler's own arrivals may move the queue (am_hold). */
static int am_run_held(int ch)
{
    am_held_t *h = &held[ch];
    size_t i = 0;
    int n = 0;

    while (h->head + i < h->tail && !(cm5i_park_mask & CM5I_CH_BIT(ch))) {
        cm5i_pkt_t pkt = h->q[h->head + i];

        if (cm5i_cn_holds(pkt.seq)) {
            i++;
            continue;
        }
        if (i == 0) {
            h->head++;
        } else {
            memmove(&h->q[h->head + i], &h->q[h->head + i + 1],
                    (h->tail - h->head - i - 1) * sizeof(*h->q));
            h->tail--;
        }
        am_run_user(ch, &pkt);
        n++;
    }
    if (!am_holding(ch))
        h->head = h->tail = 0;
    return n;
}

/* The outermost control-network call begins: an operation (begins: 1,
 * a host collective: 2) or a part of one (0). */
static void cn_begin(int begins)
{
    if (begins) {
        cm5i_cn_ops++;
        cm5i_cn_host = begins == 2;
        if (cm5i_cn_host)
            cm5i_host_ops++;
    }
    CM5I_EV(cn_enter);
}

/* The exit barrier serves handlers: the program is over, and a peer may
 * still need a reply from this node to get there too. */
int cm5i_cn_enter(int begins)
{
    if (cm5i_ctx.finalizing)
        return 0;
    /* A call the runtime makes for itself (cm5_ordered's barrier under
     * synchronised virtual time): an operation, but it serves handlers,
     * as the program did not ask for a control-network call there. */
    if (cm5i_depth.cn_serve && !cm5i_depth.cn_hold) {
        cn_begin(begins);
        return 0;
    }
    if (cm5i_depth.cn_hold++ == 0)
        cn_begin(begins);
    return 1;
}

void cm5i_cn_leave(int *held_here)
{
    if (!*held_here)
        return;
    /* With interrupts enabled, held handlers run as the call returns. */
    if (--cm5i_depth.cn_hold == 0 &&
        (am_holding(CM5I_CH_REQ) || am_holding(CM5I_CH_REP) ||
         cm5i_defer_held()) &&
        cm5i_irq_active)
        cm5i_irq_pending = 1;
}

/* Sends queued in signal context (see cm5i_am_flush_sendq). */
#define AM_SENDQ_CAP 256
typedef struct {
    int ch, node;
    cm5i_pkt_t pkt;
} am_sendq_entry_t;
static struct {
    am_sendq_entry_t *q;
    unsigned head, tail;
} sendq;

int cm5i_am_user_pending(void)
{
    return am_holding(CM5I_CH_REQ) || am_holding(CM5I_CH_REP) ||
           cm5i_defer_held() || pkts.rpc_head != pkts.rpc_tail;
}

static int am_run_rpcs(void);

int cm5i_am_run_user(void)
{
    int n = 0;

    if (cm5i_depth.in_handler || cm5i_depth.cn_hold || cm5i_depth.user_hold)
        return 0;
    for (int c = CM5I_NCH - 1; c >= 0; c--)
        if (am_holding(c))
            n += am_run_held(c);
    if (pkts.rpc_head != pkts.rpc_tail && !pkts.in_rpc) {
        pkts.in_rpc = 1;
        n += am_run_rpcs();
        pkts.in_rpc = 0;
    }
    n += cm5i_defer_run_held();
    return n;
}

/* Free what the module holds (finalize, or a start that failed). */
uint64_t cm5i_pkt_digest(uint64_t h)
{
    h = cm5i_digest(h, &pkts.rpc_tail, sizeof(pkts.rpc_tail));
    for (int c = 0; c < CM5I_NCH; c++) {
        size_t n = held[c].tail - held[c].head;

        h = cm5i_digest(h, &n, sizeof(n));
    }
    return h;
}

void cm5i_pkt_teardown(void)
{
    free(pkts.rpc_q);
    pkts.rpc_q = NULL;
    pkts.rpc_head = pkts.rpc_tail = pkts.rpc_cap = 0;
    pkts.in_rpc = 0;
    free(sendq.q);
    sendq.q = NULL;
    sendq.head = sendq.tail = 0;
    for (int c = 0; c < CM5I_NCH; c++) {
        free(held[c].q);
        held[c].q = NULL;
        held[c].head = held[c].tail = held[c].cap = 0;
    }
}

/* ---- the packet types of this module ---- */

static int am_user_packet(int ch, const cm5i_pkt_t *pkt)
{
    /* Behind held packets too, to keep each sender's order. */
    if (cm5i_cn_holds(pkt->seq) || am_holding(ch)) {
        am_hold(ch, pkt);
        return 1; /* its credit goes back now */
    }
    if (CM5I_UNLIKELY(cm5i_park_mask & CM5I_CH_BIT(ch)) &&
        !cm5i_depth.in_handler) {
        pkts.park(ch, pkt); /* credits owed once it has run */
        return 0;
    }
    am_run_user(ch, pkt);
    return 1;
}

static int am_internal_packet(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch;
    am_run_internal(pkt);
    return 1;
}

static int am_rpc_packet(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch;
    /* Credits bound the queue: owed only once the call has run. */
    pkts.rpc_q[pkts.rpc_tail++ % pkts.rpc_cap] = *pkt;
    return 0;
}

int cm5i_park_mask;

void cm5i_pkt_parker(void (*park)(int ch, const cm5i_pkt_t *pkt))
{
    pkts.park = park;
}

void cm5i_pkt_register(int type, cm5i_pkt_func_t fn) { pkts.types[type] = fn; }

void cm5i_pkt_register_body(int type, cm5i_pkt_func_t fn)
{
    pkts.types[type] = fn;
    pkts.has_body[type] = 1;
}

const void *cm5i_pkt_body(size_t *len)
{
    *len = pkts.body_len;
    return pkts.body;
}

/* Counted packets take a credit (am_flow.c). */
static int am_counted(int type)
{
    return type == CM5I_PKT_USER || type == CM5I_PKT_INTERNAL ||
           type == CM5I_PKT_RPC || type == CM5I_PKT_EAGER ||
           type == CM5I_PKT_CMA || type == CM5I_PKT_VSYNC;
}

void cm5i_pkt_dispatch(int ch, const cm5i_pkt_t *pkt, const void *body,
                       size_t len)
{
    uint32_t was = cm5i_rx_stamp;

    pkts.body = body;
    pkts.body_len = len;
    CM5I_EV(arrive, ch, pkt);
    /* What this packet completes inherits its epoch. */
    cm5i_rx_stamp = pkt->type == CM5I_PKT_BARRIER ? 0 : pkt->seq;
    if (pkts.types[pkt->type](ch, pkt) && !(pkt->raw & CM5I_RAW_OWED))
        cm5i_flow_owe(ch, pkt->src);
    cm5i_rx_stamp = was;
}

/* The decoder: every packet a channel delivers (a fabric callback). */
void cm5i_pkt_rx(void *arg, int ch, const void *buf, size_t len)
{
    cm5i_pkt_t pkt;
    size_t body;

    (void)arg;
    cm5i_traffic_rx++;
    if (CM5I_UNLIKELY(len < sizeof(pkt)))
        goto foreign;
    memcpy(&pkt, buf, sizeof(pkt));
    pkt.raw &= CM5I_RAW_ADDR; /* (the rest is the receiver's) */
    body = len - sizeof(pkt);
    /* Checked before its credits count: a dropped packet changes nothing
     * but the drop count (tests/fuzz/fuzz_am_rx.c). */
    if (CM5I_UNLIKELY(pkt.key != cm5i_ctx.key ||
                      pkt.src >= cm5i_ctx.boot.size ||
                      pkt.type >= CM5I_PKT_MAX || !pkts.types[pkt.type]))
        goto foreign;
    if (CM5I_UNLIKELY(pkts.has_body[pkt.type] ? body != pkt.arg[1] : body != 0))
        goto foreign;
    cm5i_flow_returned(pkt.src, &pkt);
    if (CM5I_UNLIKELY(cm5i_clock != NULL) && cm5i_clock->take) {
        /* Virtual time keeps it for its turn: its credit goes back now
         * (a sender must never wait for a receiver's clock). */
        int counted = am_counted(pkt.type);

        if (counted)
            pkt.raw |= CM5I_RAW_OWED;
        if (cm5i_clock->take(ch, &pkt, (const char *)buf + sizeof(pkt), body)) {
            if (counted)
                cm5i_flow_owe(ch, pkt.src);
            return;
        }
        pkt.raw &= (uint8_t)~CM5I_RAW_OWED;
    }
    cm5i_pkt_dispatch(ch, &pkt, (const char *)buf + sizeof(pkt), body);
    return;
foreign:
    if (packet_count.foreign_dropped++ % 1000 == 0)
        cm5i_log(CM5I_LOG_WARN, "am",
                 "dropped a packet that is not from this job (%zu bytes; "
                 "%llu so far)",
                 len, (unsigned long long)packet_count.foreign_dropped);
}

/* Packets sent by handlers that run in the signal handler, which never
 * calls the provider itself: the interrupt thread sends them as soon as
 * the handler returns.  Each took its credit when queued, so a peer's
 * window still bounds them; when the queue is full or a credit is
 * lacking, the send falls back to the direct path (see am_irq.c). */

cm5_status_t cm5i_am_sendq_setup(void)
{
    if (!sendq.q)
        sendq.q = calloc(AM_SENDQ_CAP, sizeof(*sendq.q));
    return sendq.q ? CM5_OK : CM5_ERR_NO_MEMORY;
}

static int am_sendq_put(int ch, int node, cm5i_pkt_t *pkt, int counted)
{
    am_sendq_entry_t *e;

    if (!sendq.q || sendq.tail - sendq.head == AM_SENDQ_CAP ||
        (counted && !cm5i_flow_has(ch, node)))
        return 0;
    e = &sendq.q[sendq.tail % AM_SENDQ_CAP];
    cm5i_flow_piggyback(ch, node, pkt);
    e->ch = ch;
    e->node = node;
    e->pkt = *pkt;
    if (counted)
        cm5i_flow_take(ch, node);
    sendq.tail++;
    return 1;
}

int cm5i_am_flush_sendq(void)
{
    while (sendq.head != sendq.tail) {
        am_sendq_entry_t *e = &sendq.q[sendq.head % AM_SENDQ_CAP];
        cm5_status_t st = cm5i_fab_send(cm5i_ctx.fab, e->ch, e->node, &e->pkt,
                                        sizeof(e->pkt));

        if (st == CM5_ERR_AGAIN)
            return 1;
        if (st != CM5_OK)
            cm5_fatal("cm5fab", "a message to node %d failed: %s", e->node,
                      cm5_status_string(st));
        sendq.head++;
        cm5i_doorbell_ring(e->node);
    }
    return 0;
}

/* Take the first RPC that may run now (see am_run_held), or return 0;
 * the ones before it that must wait keep their order. */
static int am_next_rpc(cm5i_pkt_t *out)
{
    uint32_t i, cap = pkts.rpc_cap;

    for (i = pkts.rpc_head; i != pkts.rpc_tail; i++)
        if (!cm5i_cn_holds(pkts.rpc_q[i % cap].seq))
            break;
    if (i == pkts.rpc_tail)
        return 0;
    *out = pkts.rpc_q[i % cap];
    for (; i != pkts.rpc_head; i--)
        pkts.rpc_q[i % cap] = pkts.rpc_q[(i - 1) % cap];
    pkts.rpc_head++;
    return 1;
}

static int am_run_rpcs(void)
{
    cm5i_pkt_t pkt;
    int n = 0;

    while (am_next_rpc(&pkt)) {
        cm5_am_handler_func_t h = am_handler(&pkt);
        uint32_t was_stamp = cm5i_rx_stamp;

        if (!h)
            cm5_fatal("CMAML_rpc",
                      "function (object %08x, offset 0x%x) sent by node %d "
                      "is not executable code in this process; not called",
                      pkt.obj, pkt.off, pkt.src);
        CM5I_EV(deliver, CM5I_CH_REQ, &pkt);
        cm5i_rx_stamp = pkt.seq;
        h(pkt.arg[0], pkt.arg[1], pkt.arg[2], pkt.arg[3]);
        cm5i_rx_stamp = was_stamp;
        CM5I_EV(delivered, CM5I_CH_REQ);
        if (!(pkt.raw & CM5I_RAW_OWED))
            cm5i_flow_owe(CM5I_CH_REQ, pkt.src);
        packet_count.requests_handled++;
        n++;
    }
    return n;
}

/* While a handler runs, only the reply channel may be served: request
 * handlers never nest. */
static int am_wait_mask(void)
{
    return cm5i_depth.in_handler ? CM5I_CH_BIT(CM5I_CH_REP) : CM5I_CH_ALL;
}

/* One step of a send's wait: it polls what frees its resource (credits,
 * provider room) and runs no deferred work, which may send and wait in
 * turn (issue 14, fault 5). */
static void am_send_wait(cm5i_waiter_t *w)
{
    cm5i_progress_poll_only(1);
    cm5i_wait_step(w, am_wait_mask());
    cm5i_progress_poll_only(-1);
}

/* Send pkt, or with out: pkt followed by the len bytes of body already
 * behind its place in out. */
static cm5_status_t am_send(int ch, int node, cm5i_pkt_t *pkt, size_t len,
                            char *out)
{
    int counted = am_counted(pkt->type);
    cm5i_waiter_t w;
    cm5_status_t st;

    pkt->key = cm5i_ctx.key;
    pkt->src = (uint16_t)cm5i_ctx.rank;
    if (pkt->type != CM5I_PKT_BARRIER) /* (its seq is the barrier's) */
        pkt->seq = cm5i_cn_stamp();
    CM5I_EV(send, ch, node, pkt);
    pkt->raw &= (uint8_t) ~(CM5I_RAW_WORD | CM5I_RAW_KEPT); /* (the sender's) */
    if (CM5I_UNLIKELY(cm5i_irq_in_signal) &&
        am_sendq_put(ch, node, pkt, counted))
        return CM5_OK;
    if (CM5I_UNLIKELY(sendq.head != sendq.tail)) { /* keep the order */
        cm5i_waiter_start(&w, CM5I_WAIT_SENDQ);
        while (cm5i_am_flush_sendq())
            am_send_wait(&w);
        cm5i_waiter_end(&w);
    }
    if (counted && CM5I_UNLIKELY(!cm5i_flow_has(ch, node))) {
        packet_count.credit_waits++;
        cm5i_waiter_start(&w, CM5I_WAIT_CREDITS);
        while (!cm5i_flow_has(ch, node))
            am_send_wait(&w);
        cm5i_waiter_end(&w);
    }
    cm5i_waiter_t *wp = NULL; /* once the provider has no room */

    for (;;) {
        cm5i_flow_piggyback(ch, node, pkt);
        if (CM5I_LIKELY(!out)) {
            st = cm5i_fab_send(cm5i_ctx.fab, ch, node, pkt, sizeof(*pkt));
        } else {
            memcpy(out, pkt, sizeof(*pkt));
            st = cm5i_fab_send(cm5i_ctx.fab, ch, node, out, sizeof(*pkt) + len);
        }
        if (CM5I_LIKELY(st == CM5_OK))
            break;
        cm5i_flow_unpiggyback(node, pkt);
        if (st != CM5_ERR_AGAIN) {
            if (wp)
                cm5i_waiter_end(wp);
            return st;
        }
        if (!wp) {
            wp = &w;
            cm5i_waiter_start(wp, CM5I_WAIT_SEND_ROOM);
        }
        am_send_wait(wp);
    }
    if (CM5I_UNLIKELY(wp != NULL))
        cm5i_waiter_end(wp);
    cm5i_traffic_tx++;
    if (counted)
        cm5i_flow_take(ch, node);
    cm5i_doorbell_ring(node);
    return CM5_OK;
}

cm5_status_t cm5i_am_send(int ch, int node, cm5i_pkt_t *pkt)
{
    return am_send(ch, node, pkt, 0, NULL);
}

cm5_status_t cm5i_am_send_body(int ch, int node, cm5i_pkt_t *pkt,
                               const void *body, size_t len)
{
    char out[sizeof(cm5i_pkt_t) + CM5I_PKT_BODY_MAX];

    if (len > CM5I_PKT_BODY_MAX || cm5i_irq_in_signal)
        return CM5_ERR_INVALID;
    pkt->arg[1] = (uint32_t)len;
    if (len)
        memcpy(out + sizeof(*pkt), body, len);
    return am_send(ch, node, pkt, len, out);
}

void cm5i_am_deliver(int ch, const cm5i_pkt_t *pkt)
{
    am_run_user(ch, pkt);
    if (!(pkt->raw & CM5I_RAW_OWED))
        cm5i_flow_owe(ch, pkt->src);
}

/* A user active message (request, reply or RPC) of type to node on ch;
 * its observers may number it (the trace's arrows) and see it leave. */
static cm5_status_t am_user(int ch, int type, int node, cm5_am_handler_func_t h,
                            const uint32_t arg[4])
{
    cm5i_pkt_t pkt = {.type = (uint8_t)type};
    cm5i_href_t ref;
    cm5_status_t st;

    cm5i_ensure_init();
    if (CM5I_UNLIKELY(!cm5i_node_ok(node)))
        return CM5_ERR_RANGE;
    if (CM5I_UNLIKELY(cm5i_ctx.host >= 0 &&
                      (node == cm5i_ctx.host) !=
                          (cm5i_ctx.rank == cm5i_ctx.host))) {
        cm5i_handler_raw((const void *)(uintptr_t)h, &ref);
        pkt.raw = CM5I_RAW_ADDR;
    } else if (CM5I_UNLIKELY(
                   (st = cm5i_handler_encode((const void *)h, &ref)) != CM5_OK))
        return st;
    pkt.obj = ref.obj;
    pkt.off = ref.off;
    memcpy(pkt.arg, arg, sizeof(pkt.arg));
    CM5I_EV(am_send, ch, node, &pkt);
    st = cm5i_am_send(ch, node, &pkt);
    if (st == CM5_OK)
        CM5I_EV(am_sent, ch, node, &pkt);
    return st;
}

/* A request or an RPC: the same but for the packet type. */
static cm5_status_t am_request(int type, int node, cm5_am_handler_func_t h,
                               const uint32_t arg[4])
{
    cm5_status_t st;

    if (CM5I_UNLIKELY(cm5i_depth.in_handler))
        return CM5_ERR_STATE;
    st = am_user(CM5I_CH_REQ, type, node, h, arg);
    if (st == CM5_OK)
        packet_count.requests_sent++;
    return st;
}

cm5_status_t cm5_am_request(int node, cm5_am_handler_func_t h, uint32_t a0,
                            uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};

    return am_request(CM5I_PKT_USER, node, h, arg);
}

cm5_status_t cm5_am_reply(int node, cm5_am_handler_func_t h, uint32_t a0,
                          uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};
    cm5_status_t st;

    if (CM5I_UNLIKELY(cm5i_depth.in_handler && !cm5i_depth.in_req_handler))
        return CM5_ERR_STATE;
    st = am_user(CM5I_CH_REP, CM5I_PKT_USER, node, h, arg);
    if (st == CM5_OK)
        packet_count.replies_sent++;
    return st;
}

cm5_status_t cm5_am_rpc(int node, cm5_am_handler_func_t h, uint32_t a0,
                        uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};

    return am_request(CM5I_PKT_RPC, node, h, arg);
}

cm5_status_t cm5_am_handler_check(const void *handler)
{
    cm5i_href_t ref;

    return cm5i_handler_encode(handler, &ref);
}

void cm5i_pkt_word(cm5i_pkt_t *pkt, const cm5i_word_t *w)
{
    if (!w)
        return;
    pkt->vt = w->w;
    pkt->raw |= CM5I_RAW_WORD | (w->kept ? CM5I_RAW_KEPT : 0);
}

cm5_status_t cm5i_am_internal_word(int ch, int node, int index,
                                   const uint32_t arg[4], const cm5i_word_t *w)
{
    cm5i_pkt_t pkt = {.type = CM5I_PKT_INTERNAL, .obj = (uint32_t)index};

    memcpy(pkt.arg, arg, sizeof(pkt.arg));
    cm5i_pkt_word(&pkt, w);
    return cm5i_am_send(ch, node, &pkt);
}

cm5_status_t cm5i_am_internal(int ch, int node, int index,
                              const uint32_t arg[4])
{
    return cm5i_am_internal_word(ch, node, index, arg, NULL);
}

/* Progress hooks: sends queued in signal context go first; a channel's
 * held packets run before newer ones; RPCs run outside handlers. */
static int am_hook_sendq(int chmask)
{
    (void)chmask;
    if (CM5I_UNLIKELY(sendq.head != sendq.tail) && !cm5i_irq_in_signal)
        cm5i_am_flush_sendq();
    return 0;
}

static int am_hook_held(int ch)
{
    if (CM5I_UNLIKELY(am_holding(ch)) && !cm5i_depth.in_handler)
        return am_run_held(ch);
    return 0;
}

static int am_hook_rpcs(int chmask)
{
    (void)chmask;
    int n;

    if (pkts.rpc_head == pkts.rpc_tail || pkts.in_rpc ||
        (cm5i_park_mask & CM5I_CH_BIT(CM5I_CH_REQ)))
        return 0;
    pkts.in_rpc = 1;
    n = am_run_rpcs();
    pkts.in_rpc = 0;
    return n;
}

int cm5i_am_work_pending(void)
{
    return pkts.rpc_head != pkts.rpc_tail || am_holding(CM5I_CH_REQ) ||
           am_holding(CM5I_CH_REP) || cm5i_defer_pending();
}

uint64_t cm5i_am_handled(void)
{
    return packet_count.requests_handled + packet_count.replies_handled;
}

cm5_status_t cm5i_pkt_setup(void)
{
    cm5i_stats_part(&packet_count);
    pkts.rpc_cap = (uint32_t)cm5i_ctx.nep * cm5i_flow_window();
    pkts.rpc_head = pkts.rpc_tail = 0;
    pkts.rpc_q = malloc(pkts.rpc_cap * sizeof(cm5i_pkt_t));
    if (!pkts.rpc_q)
        return CM5_ERR_NO_MEMORY;
    cm5i_progress_decoder(cm5i_pkt_rx);
    /* Below this layer, flow control sends its credit packets itself. */
    cm5i_pkt_register(CM5I_PKT_CREDIT, cm5i_flow_credit_packet);
    cm5i_pkt_register(CM5I_PKT_USER, am_user_packet);
    cm5i_pkt_register(CM5I_PKT_INTERNAL, am_internal_packet);
    cm5i_pkt_register(CM5I_PKT_RPC, am_rpc_packet);
    cm5i_progress_hook(CM5I_HOOK_FIRST, am_hook_sendq);
    cm5i_progress_hook(CM5I_HOOK_CHANNEL, am_hook_held);
    cm5i_progress_hook(CM5I_HOOK_OUTSIDE, am_hook_rpcs);
    return CM5_OK;
}

void cm5i_am_register_internal(int index, cm5i_internal_func_t fn)
{
    pkts.internal[index] = fn;
}

int cm5_in_handler(void)
{
    /* (The interrupt thread runs the runtime's own handlers while the
     * main thread is outside the runtime.) */
    return cm5i_rt_depth > 0 && cm5i_depth.in_handler > 0;
}
