/*
 * Active messages: packets, dispatch and credit-based flow control.
 *
 * Every (sender, receiver, channel) has a window of `credits` counted
 * packets.  The receiver has buffer space for all of them (plus a few
 * uncounted credit and barrier packets per peer), so nothing is buffered
 * without bound and a sender never overruns a receiver.  Credits come back
 * piggybacked on any packet going the other way, or in a credit packet
 * when half a window is owed.  Credit packets travel on the reply channel,
 * which every wait drains, so credits always return.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "am_internal.h"

static void am_owe(int ch, int src)
{
    uint16_t *owe = &cm5i_ctx.owe[ch][src];

    (*owe)++;
    if (*owe >= cm5i_ctx.credits / 2 && !cm5i_ctx.flush_mark[src]) {
        cm5i_ctx.flush_mark[src] = 1;
        cm5i_ctx.flush_q[cm5i_ctx.nflush++] = src;
    }
}

/* The handler a packet names (NULL: not executable code here). */
static cm5_am_handler_func_t am_handler(const cm5i_pkt_t *pkt)
{
    cm5i_href_t ref = {.obj = pkt->obj, .off = pkt->off};

    return (cm5_am_handler_func_t)(pkt->raw ? cm5i_handler_decode_raw(ref)
                                            : cm5i_handler_decode(ref));
}

static void am_run_user(int ch, const cm5i_pkt_t *pkt)
{
    cm5_am_handler_func_t h = am_handler(pkt);
    int was_req = cm5i_ctx.in_req_handler;

    if (CM5I_UNLIKELY(!h))
        cm5_fatal(ch == CM5I_CH_REQ ? "CMAML_request" : "CMAML_reply",
                  "handler (object %08x, offset 0x%x) sent by node %d is "
                  "not executable code in this process; not called",
                  pkt->obj, pkt->off, pkt->src);
    cm5i_ctx.in_handler++;
    cm5i_ctx.in_req_handler = ch == CM5I_CH_REQ;
    h(pkt->arg[0], pkt->arg[1], pkt->arg[2], pkt->arg[3]);
    cm5i_ctx.in_req_handler = was_req;
    cm5i_ctx.in_handler--;
    if (ch == CM5I_CH_REQ)
        cm5i_ctx.stats.requests_handled++;
    else
        cm5i_ctx.stats.replies_handled++;
}

static void am_run_internal(const cm5i_pkt_t *pkt)
{
    cm5i_internal_func_t fn =
        pkt->obj < CM5I_INTERNAL_MAX ? cm5i_ctx.internal[pkt->obj] : NULL;

    if (!fn)
        cm5_fatal("cm5fab", "unknown internal message %u from node %d",
                  pkt->obj, pkt->src);
    cm5i_ctx.in_handler++;
    fn(pkt->src, pkt->arg);
    cm5i_ctx.in_handler--;
    cm5i_ctx.stats.internal_handled++;
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
/* User work (completion callbacks) deferred meanwhile. */
static cm5i_deferred_t *held_work_head, *held_work_tail;

static int am_holding(int ch)
{
    return held[ch].head < held[ch].tail;
}

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
                cm5_fatal("cm5fab", "out of memory holding %zu active "
                          "messages during a control-network call", n);
            h->q = q;
            h->cap = cap;
        }
    }
    h->q[h->tail++] = *pkt;
}

/* Run the packets held on ch (outside handlers and control-network
 * calls, and not while a one-channel poll parks ch). */
static int am_run_held(int ch)
{
    int n = 0;

    while (am_holding(ch) && !cm5i_ctx.cn_hold &&
           !(cm5i_park_mask & CM5I_CH_BIT(ch))) {
        cm5i_pkt_t pkt = held[ch].q[held[ch].head++];

        am_run_user(ch, &pkt);
        n++;
    }
    if (!am_holding(ch))
        held[ch].head = held[ch].tail = 0;
    return n;
}

/* Put the held user work back in the deferred queue, ahead of newer. */
static void am_release_work(void)
{
    held_work_tail->next = cm5i_ctx.defer_head;
    if (!cm5i_ctx.defer_head)
        cm5i_ctx.defer_tail = held_work_tail;
    cm5i_ctx.defer_head = held_work_head;
    held_work_head = held_work_tail = NULL;
}

/* The exit barrier serves handlers: the program is over, and a peer may
 * still need a reply from this node to get there too. */
int cm5i_cn_enter(void)
{
    if (cm5i_ctx.finalizing)
        return 0;
    cm5i_ctx.cn_hold++;
    return 1;
}

void cm5i_cn_leave(int *held_here)
{
    if (!*held_here)
        return;
    /* With interrupts enabled, held handlers run as the call returns. */
    if (--cm5i_ctx.cn_hold == 0 &&
        (am_holding(CM5I_CH_REQ) || am_holding(CM5I_CH_REP) ||
         held_work_head) &&
        cm5_interrupts_enabled())
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
           held_work_head || cm5i_ctx.defer_head ||
           cm5i_ctx.rpc_head != cm5i_ctx.rpc_tail;
}

static int am_run_rpcs(void);
static int am_run_deferred(void);

int cm5i_am_run_user(void)
{
    int n = 0;

    if (cm5i_ctx.in_handler || cm5i_ctx.cn_hold)
        return 0;
    if (held_work_head)
        am_release_work();
    for (int c = CM5I_NCH - 1; c >= 0; c--)
        if (am_holding(c))
            n += am_run_held(c);
    if (cm5i_ctx.rpc_head != cm5i_ctx.rpc_tail)
        n += am_run_rpcs();
    if (cm5i_ctx.defer_head)
        n += am_run_deferred();
    return n;
}

void cm5i_am_held_fini(void)
{
    free(sendq.q);
    sendq.q = NULL;
    sendq.head = sendq.tail = 0;
    for (int c = 0; c < CM5I_NCH; c++) {
        free(held[c].q);
        held[c].q = NULL;
        held[c].head = held[c].tail = held[c].cap = 0;
    }
}

static void am_rx(void *arg, int ch, const void *buf, size_t len)
{
    cm5i_pkt_t pkt;

    (void)arg;
    if (CM5I_UNLIKELY(len != sizeof(pkt)))
        goto foreign;
    memcpy(&pkt, buf, sizeof(pkt));
    /* Checked before its credits count: a dropped packet changes nothing
     * but the drop count (tests/fuzz/fuzz_am_rx.c). */
    if (CM5I_UNLIKELY(pkt.key != cm5i_ctx.key ||
                      pkt.src >= cm5i_ctx.boot.size ||
                      pkt.type < CM5I_PKT_USER || pkt.type > CM5I_PKT_RPC))
        goto foreign;
    for (int c = 0; c < CM5I_NCH; c++)
        cm5i_ctx.tx_cred[c][pkt.src] += pkt.cred[c];
    switch (pkt.type) {
    case CM5I_PKT_USER:
        /* Behind held packets too, to keep each sender's order. */
        if (cm5i_ctx.cn_hold || am_holding(ch)) {
            am_hold(ch, &pkt);
            break; /* its credit goes back now */
        }
        if (CM5I_UNLIKELY(cm5i_park_mask & CM5I_CH_BIT(ch)) &&
            !cm5i_ctx.in_handler) {
            cm5i_park(ch, &pkt); /* credits owed once it has run */
            return;
        }
        am_run_user(ch, &pkt);
        break;
    case CM5I_PKT_INTERNAL:
        am_run_internal(&pkt);
        break;
    case CM5I_PKT_RPC:
        /* Credits bound the queue: owed only once the call has run. */
        cm5i_ctx.rpc_q[cm5i_ctx.rpc_tail++ % cm5i_ctx.rpc_cap] = pkt;
        return;
    case CM5I_PKT_BARRIER:
        if (pkt.arg[0] < CM5I_BARRIER_ROUNDS)
            cm5i_ctx.bar_arrived[pkt.arg[0]]++;
        cm5i_ctx.stats.internal_handled++;
        return; /* uncounted */
    case CM5I_PKT_CREDIT:
        cm5i_ctx.stats.internal_handled++;
        return; /* uncounted */
    default:
        goto foreign;
    }
    am_owe(ch, pkt.src);
    return;
foreign:
    if (cm5i_ctx.stats.foreign_dropped++ % 1000 == 0)
        cm5i_log(CM5I_LOG_WARN, "am",
                 "dropped a packet that is not from this job (%zu bytes; "
                 "%llu so far)",
                 len, (unsigned long long)cm5i_ctx.stats.foreign_dropped);
}

/* Piggyback the credits owed to node.  Reply-channel credits ride only on
 * the reply channel: a node blocked in a handler reads only that one, and
 * it may be waiting for exactly those credits. */
static void am_take_owed(int ch, int node, cm5i_pkt_t *pkt)
{
    for (int c = 0; c < CM5I_NCH; c++) {
        if (c == CM5I_CH_REP && ch != CM5I_CH_REP) {
            pkt->cred[c] = 0;
            continue;
        }
        pkt->cred[c] = cm5i_ctx.owe[c][node];
        cm5i_ctx.owe[c][node] = 0;
    }
}

static void am_give_back(int node, const cm5i_pkt_t *pkt)
{
    for (int c = 0; c < CM5I_NCH; c++)
        cm5i_ctx.owe[c][node] += pkt->cred[c];
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
    uint16_t *cred = &cm5i_ctx.tx_cred[ch][node];
    am_sendq_entry_t *e;

    if (!sendq.q || sendq.tail - sendq.head == AM_SENDQ_CAP ||
        (counted && *cred == 0))
        return 0;
    e = &sendq.q[sendq.tail % AM_SENDQ_CAP];
    am_take_owed(ch, node, pkt);
    e->ch = ch;
    e->node = node;
    e->pkt = *pkt;
    if (counted)
        (*cred)--;
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

void cm5i_flush_credits(void)
{
    int keep = 0;

    for (int i = 0; i < cm5i_ctx.nflush; i++) {
        int node = cm5i_ctx.flush_q[i];
        cm5i_pkt_t pkt = {.key = cm5i_ctx.key,
                          .src = (uint16_t)cm5i_ctx.rank,
                          .type = CM5I_PKT_CREDIT};
        cm5_status_t st;

        am_take_owed(CM5I_CH_REP, node, &pkt);
        if (pkt.cred[0] == 0 && pkt.cred[1] == 0) {
            cm5i_ctx.flush_mark[node] = 0;
            continue; /* already piggybacked */
        }
        st = cm5i_fab_send(cm5i_ctx.fab, CM5I_CH_REP, node, &pkt, sizeof(pkt));
        if (st == CM5_OK) {
            cm5i_ctx.flush_mark[node] = 0;
            cm5i_doorbell_ring(node);
            continue;
        }
        am_give_back(node, &pkt);
        if (st != CM5_ERR_AGAIN)
            cm5_fatal("cm5fab", "cannot return credits to node %d: %s", node,
                      cm5_status_string(st));
        cm5i_ctx.flush_q[keep++] = node; /* retry at the next poll */
    }
    cm5i_ctx.nflush = keep;
}

static int am_run_deferred(void);

static int am_run_rpcs(void)
{
    int n = 0;

    while (cm5i_ctx.rpc_head != cm5i_ctx.rpc_tail) {
        cm5i_pkt_t pkt = cm5i_ctx.rpc_q[cm5i_ctx.rpc_head++ % cm5i_ctx.rpc_cap];
        cm5_am_handler_func_t h = am_handler(&pkt);

        if (!h)
            cm5_fatal("CMAML_rpc",
                      "function (object %08x, offset 0x%x) sent by node %d "
                      "is not executable code in this process; not called",
                      pkt.obj, pkt.off, pkt.src);
        h(pkt.arg[0], pkt.arg[1], pkt.arg[2], pkt.arg[3]);
        am_owe(CM5I_CH_REQ, pkt.src);
        cm5i_ctx.stats.requests_handled++;
        n++;
    }
    return n;
}

/* A peer is unreachable.  When a node dies, the launcher (cm5run,
 * mpirun) stops the job and names it: wait a little for that, so that the
 * user reads one line and not one per surviving node; if nobody stops us
 * (a cut link), report it ourselves, naming the node if we know it. */
static CM5_NORETURN void am_network_failure(int c, int status)
{
    int lost = cm5i_fab_lost_node(cm5i_ctx.fab);
    double until = cm5_wtime() + 3.0;
    struct timespec ts = {0, 20 * 1000 * 1000};

    if (strcmp(cm5_bootstrap(), "single") != 0)
        while (cm5_wtime() < until)
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

int cm5i_progress(int chmask)
{
    int n = 0;

    if (!cm5i_ctx.in_handler && !cm5i_ctx.cn_hold && held_work_head)
        am_release_work();
    if (CM5I_UNLIKELY(sendq.head != sendq.tail) && !cm5i_irq_in_signal)
        cm5i_am_flush_sendq();
    /* Replies first: they complete work and return credits. */
    for (int c = CM5I_NCH - 1; c >= 0; c--) {
        int r;

        if (!(chmask & CM5I_CH_BIT(c)))
            continue;
        /* What waits on c runs before anything newer: parked, then held. */
        if (CM5I_UNLIKELY(cm5i_parked[c]) && !cm5i_ctx.cn_hold &&
            (!(cm5i_park_mask & CM5I_CH_BIT(c)) || cm5i_ctx.in_handler))
            n += cm5i_park_drain(c);
        if (CM5I_UNLIKELY(am_holding(c)) && !cm5i_ctx.in_handler)
            n += am_run_held(c);
        r = cm5i_fab_poll(cm5i_ctx.fab, c, am_rx, NULL);
        if (CM5I_UNLIKELY(r < 0))
            am_network_failure(c, r);
        n += r;
    }
    if (!cm5i_ctx.in_handler) {
        /* RPCs and completion callbacks are user code too. */
        if (cm5i_ctx.rpc_head != cm5i_ctx.rpc_tail && !cm5i_ctx.cn_hold &&
            !(cm5i_park_mask & CM5I_CH_BIT(CM5I_CH_REQ)))
            n += am_run_rpcs();
        if (cm5i_ctx.defer_head)
            n += am_run_deferred();
        if (cm5i_ctx.rts_queued)
            n += cm5i_msg_send_queued();
    }
    if (cm5i_ctx.nflush)
        cm5i_flush_credits();
    return n;
}

/* While a handler runs, only the reply channel may be served: request
 * handlers never nest. */
static int am_wait_mask(void)
{
    return cm5i_ctx.in_handler ? CM5I_CH_BIT(CM5I_CH_REP) : CM5I_CH_ALL;
}

cm5_status_t cm5i_am_send(int ch, int node, cm5i_pkt_t *pkt)
{
    int counted = pkt->type == CM5I_PKT_USER ||
                  pkt->type == CM5I_PKT_INTERNAL || pkt->type == CM5I_PKT_RPC;
    uint16_t *cred = &cm5i_ctx.tx_cred[ch][node];
    cm5i_waiter_t w;
    cm5_status_t st;

    pkt->key = cm5i_ctx.key;
    pkt->src = (uint16_t)cm5i_ctx.rank;
    if (CM5I_UNLIKELY(cm5i_irq_in_signal) &&
        am_sendq_put(ch, node, pkt, counted))
        return CM5_OK;
    if (CM5I_UNLIKELY(sendq.head != sendq.tail)) { /* keep the order */
        cm5i_waiter_init(&w);
        while (cm5i_am_flush_sendq())
            cm5i_wait_step(&w, am_wait_mask());
    }
    if (counted && CM5I_UNLIKELY(*cred == 0)) {
        cm5i_ctx.stats.credit_waits++;
        cm5i_waiter_init(&w);
        while (*cred == 0)
            cm5i_wait_step(&w, am_wait_mask());
    }
    for (cm5i_waiter_t *wp = NULL;;) {
        am_take_owed(ch, node, pkt);
        st = cm5i_fab_send(cm5i_ctx.fab, ch, node, pkt, sizeof(*pkt));
        if (CM5I_LIKELY(st == CM5_OK))
            break;
        am_give_back(node, pkt);
        if (st != CM5_ERR_AGAIN)
            return st;
        if (!wp) {
            wp = &w;
            cm5i_waiter_init(wp);
        }
        cm5i_wait_step(wp, am_wait_mask());
    }
    if (counted)
        (*cred)--;
    cm5i_doorbell_ring(node);
    return CM5_OK;
}

void cm5i_am_deliver(int ch, const cm5i_pkt_t *pkt)
{
    am_run_user(ch, pkt);
    am_owe(ch, pkt->src);
}

static cm5_status_t am_user(int ch, int type, int node,
                            cm5_am_handler_func_t h, const uint32_t arg[4])
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
        pkt.raw = 1;
    } else if (CM5I_UNLIKELY((st = cm5i_handler_encode((const void *)h,
                                                       &ref)) != CM5_OK))
        return st;
    pkt.obj = ref.obj;
    pkt.off = ref.off;
    memcpy(pkt.arg, arg, sizeof(pkt.arg));
    return cm5i_am_send(ch, node, &pkt);
}

cm5_status_t cm5_am_request(int node, cm5_am_handler_func_t h, uint32_t a0,
                            uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};
    cm5_status_t st;

    if (CM5I_UNLIKELY(cm5i_ctx.in_handler))
        return CM5_ERR_STATE;
    st = am_user(CM5I_CH_REQ, CM5I_PKT_USER, node, h, arg);
    if (st == CM5_OK)
        cm5i_ctx.stats.requests_sent++;
    return st;
}

cm5_status_t cm5_am_reply(int node, cm5_am_handler_func_t h, uint32_t a0,
                          uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};
    cm5_status_t st;

    if (CM5I_UNLIKELY(cm5i_ctx.in_handler && !cm5i_ctx.in_req_handler))
        return CM5_ERR_STATE;
    st = am_user(CM5I_CH_REP, CM5I_PKT_USER, node, h, arg);
    if (st == CM5_OK)
        cm5i_ctx.stats.replies_sent++;
    return st;
}

cm5_status_t cm5_am_rpc(int node, cm5_am_handler_func_t h, uint32_t a0,
                        uint32_t a1, uint32_t a2, uint32_t a3)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {a0, a1, a2, a3};
    cm5_status_t st;

    if (CM5I_UNLIKELY(cm5i_ctx.in_handler))
        return CM5_ERR_STATE;
    st = am_user(CM5I_CH_REQ, CM5I_PKT_RPC, node, h, arg);
    if (st == CM5_OK)
        cm5i_ctx.stats.requests_sent++;
    return st;
}

cm5_status_t cm5_am_handler_check(const void *handler)
{
    cm5i_href_t ref;

    return cm5i_handler_encode(handler, &ref);
}

cm5_status_t cm5i_am_internal(int ch, int node, int index,
                              const uint32_t arg[4])
{
    cm5i_pkt_t pkt = {.type = CM5I_PKT_INTERNAL, .obj = (uint32_t)index};

    memcpy(pkt.arg, arg, sizeof(pkt.arg));
    return cm5i_am_send(ch, node, &pkt);
}

void cm5i_defer_user(cm5i_deferred_t *work)
{
    if (!cm5i_ctx.cn_hold) {
        cm5i_defer(work);
        return;
    }
    work->next = NULL;
    if (held_work_tail)
        held_work_tail->next = work;
    else
        held_work_head = work;
    held_work_tail = work;
}

void cm5i_defer(cm5i_deferred_t *work)
{
    work->next = NULL;
    if (cm5i_ctx.defer_tail)
        cm5i_ctx.defer_tail->next = work;
    else
        cm5i_ctx.defer_head = work;
    cm5i_ctx.defer_tail = work;
}

static int am_run_deferred(void)
{
    int n = 0;

    while (cm5i_ctx.defer_head) {
        cm5i_deferred_t *w = cm5i_ctx.defer_head;

        cm5i_ctx.defer_head = w->next;
        if (!cm5i_ctx.defer_head)
            cm5i_ctx.defer_tail = NULL;
        w->run(w); /* may send, wait, and so defer more */
        n++;
    }
    return n;
}

void cm5i_am_register_internal(int index, cm5i_internal_func_t fn)
{
    cm5i_ctx.internal[index] = fn;
}

int cm5_in_handler(void)
{
    /* (The interrupt thread runs the runtime's own handlers while the
     * main thread is outside the runtime.) */
    return cm5i_rt_depth > 0 && cm5i_ctx.in_handler > 0;
}
