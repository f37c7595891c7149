/*
 * Virtual time's synchronisation (doc/model.md, "Synchronisation"): a
 * conservative parallel discrete-event simulation of the job's nodes,
 * through the memory cm5run shares with them (boot_proto.h).
 *
 * Every packet that the model times carries a word from which its due
 * time at the receiver follows: its sender's clock as it left plus the
 * latency L (an acknowledgement: the time its message's last packet
 * left, which is later).  A receiver keeps such packets in a heap by
 * (due, source, channel, place) and runs one only when no packet due
 * before it can still come:
 *
 *   - every node publishes a bound: nothing it sends from now on is due
 *     before it.  A node that runs (outside a blocking wait) will send at
 *     its clock or later: bound = clock + L.  A node in a blocking wait
 *     (a receive, CMAML_poll_while_lt, a barrier) sends only after it
 *     has taken a packet, so no earlier than the earliest it holds or
 *     the least bound of the others: bound = max(clock, min(that)) + L
 *     (in a control-network call also no later than the call's least
 *     end).  And no bound passes a packet the node sent that its
 *     receiver has not taken yet, or a word it promised to a packet not
 *     yet sent: receivers count what they took from each sender
 *     (count[j * n + k]), and a sender drops a packet from its list of
 *     packets in flight once its receiver's count covers it;
 *   - a node that runs and polls at clock c (any full progress pass)
 *     waits until every other node's bound is past c, then runs the
 *     packets due by c in order (each may move its clock: then again);
 *   - a node in a blocking wait runs the earliest packet it holds once
 *     every other node's bound is past its due time (or equal to it,
 *     for a node that comes after its source), its clock jumping there.
 *
 * Bounds only grow; the least of them always can (L > 0), so the job
 * never waits on itself unless every node waits with nothing to take
 * (a deadlock: cm5run's check reports it).  The order of what a node
 * takes, and so every virtual time, is the same on every run.
 *
 * Records as messages (nodes on several hosts, or CM5_MODEL_SYNC=net;
 * doc/model.md, "Across hosts"): each node keeps a copy of every other
 * node's record, numbered, and the records travel as packets
 * (CM5I_PKT_VSYNC) when the receiver needs them: the sender's value
 * passes a want of the receiver's, the sender took packets of the
 * receiver's, it began a control-network operation, or it wants a value
 * the receiver's copy has not passed.  A value is a promise only beside
 * the others' of the same moment (a waiting node with nothing held
 * publishes "infinite"), so a node sends with its own record every
 * record it holds that is newer than the receiver's copy, and the
 * receiver takes them together: its copies are a consistent cut, as the
 * shared snapshot is, only older, which only makes it wait longer.  They
 * are sent outside handlers and send waits (a progress hook, the waits).
 */
#include "am_model_sync.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_guard.h"
#include "am_irq.h"
#include "am_msg.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "boot/boot_env.h"
#include "boot/boot_proto.h"

#define MS_INF UINT64_MAX

int cm5i_msync_on;

enum { MS_RUN, MS_JUMP, MS_CN, MS_FROZEN, MS_PJ };

typedef struct {
    uint64_t due;
    uint32_t src, ch, place;
    cm5i_pkt_t pkt;
    void *body;
    size_t len;
} ms_ev_t;

/* A packet in flight: kept until its receiver has taken all this node
 * sent it (ms_in_flight). */
typedef struct {
    int node;
    uint64_t due;
} ms_out_t;

static struct {
    const cm5i_model_params_t *p;
    cm5i_vnode_t *v;
    int ready, me, n;
    uint64_t L;
    cm5_vsync_rec_t *rec;
    _Atomic uint32_t *gen;   /* the job's publications (slot 0's seq) */
    _Atomic uint32_t *count; /* [n * n] */
    uint32_t *sent;          /* [n]: ordered packets sent to each node */
    uint32_t *taken;         /* [n]: taken from each node */
    uint32_t *places;        /* [n * CM5I_NCH]: taken per source, channel */
    ms_out_t *out;
    size_t nout, capout;
    uint64_t *prom;
    size_t nprom, capprom;
    ms_ev_t *heap;
    size_t nheap, capheap;
    uint64_t published; /* our bound as the others see it */
    uint64_t reach;     /* and our reach (cm5_vsync_rec_t) */
    uint64_t through;   /* everything due before it is here */
    uint64_t cn_entry;
    uint64_t cn_end; /* the operation under way ends then (0: not known) */
    uint32_t cn_ops; /* the operation cn_entry is of */
    int cn_begun;
    int cn_host;       /* it is a host collective (am_host.c) */
    uint64_t cn_price; /* what it costs, once known (0: a barrier or more) */
    int in_dispatch, done, said;
    int irq_wait;    /* the program, outside the runtime, waits by rule */
    uint64_t bc_own; /* a receipt beside the clock: its first end (0: none) */
    uint64_t runs;   /* packets run (a probe loop's jump: am_model.c) */
    uint64_t pj_to;  /* a probe's jump goes no further (0: none under way) */
    /* The fat tree's shared links (cm5:lk=1): their calendars, in the
     * shared memory, and its header. */
    int lk_on;
    int running; /* packets being run (ms_run, nested) */
    cm5i_links_t lk;
    cm5_vsync_links_t *lkh;
    /* Records as messages (ms.net): the copies, what was last sent to
     * each peer and taken from it. */
    int net, flushing, closed;
    int draining; /* cm5i_msync_drain */
    size_t ndirty;
    cm5_vsync_rec_t *net_rec;
    _Atomic uint32_t *net_count;
    _Atomic uint32_t net_gen;
    uint32_t *net_seq; /* [n]: the number of each record held */
    struct ms_peer *peer;
} ms;

/* A peer: what it was last sent of this node's record and of each
 * node's (the numbers), the records it sent that wait for its last
 * packet. */
struct ms_peer {
    /* the least of this node's values since it last sent the peer its
     * record: the peer may hold any of them (forwarded by others) */
    uint64_t bound, reach;
    uint32_t *sent; /* [n] */
    char *stage;
    size_t nstage, capstage;
    int dirty; /* to send */
};

/* ---- jitter (CM5_MODEL_JITTER, testing) ----
 *
 * With a seed, a node yields or sleeps at random points of the
 * synchronisation, so that the nodes meet in real-time orders a quiet
 * run rarely shows (a bound published late, a packet landing while a
 * pass is under way).  Nothing here may change a virtual time: a test
 * compares a jittered run's times with a plain run's. */
static uint64_t ms_jit_seed; /* 0: off */
static _Thread_local uint64_t ms_jit_s;

static void ms_jitter(void)
{
    uint64_t x;

    if (!ms_jit_seed)
        return;
    if (!ms_jit_s) /* (the interrupt thread draws its own) */
        ms_jit_s = (ms_jit_seed ^ (cm5i_irq_thread() ? 0x94d049bb133111ebull
                                                     : 0x2545f4914f6cdd1dull)) |
                   1; /* (xorshift never leaves 0) */
    x = ms_jit_s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ms_jit_s = x;
    if (x >> 59 == 0) { /* 1 in 32: sleep up to 0.5 ms */
        struct timespec ts = {0, (long)((x >> 20) % 500000)};

        nanosleep(&ts, NULL);
    } else if (x >> 59 < 4) { /* 3 in 32: hand the CPU over */
        sched_yield();
    }
}

static int ms_jitter_setup(void)
{
    const char *js = cm5i_config_str(CM5_ENV_MODEL_JITTER);
    unsigned long long seed = 0;

    ms_jit_seed = 0;
    if (js && *js) {
        if (cm5i_model_seed(js, &seed) < 0) {
            cm5i_log(CM5I_LOG_ERROR, "model",
                     "%s=%s: expected a seed (a non-negative integer; 0: off)",
                     CM5_ENV_MODEL_JITTER, js);
            return -1;
        }
    }
    if (seed)
        ms_jit_seed = (seed * 0x9e3779b97f4a7c15ull) ^
                      ((uint64_t)(cm5i_ctx.rank + 1) * 0xbf58476d1ce4e5b9ull) ^
                      1;
    return 0;
}

static void ms_net_mark(int j)
{
    if (!ms.peer[j].dirty) {
        ms.peer[j].dirty = 1;
        ms.ndirty++;
    }
}

static void ms_violation(const char *what, int node, uint64_t due,
                         uint64_t bound)
{
    if (ms.said++)
        return;
    cm5i_log(CM5I_LOG_WARN, "model",
             "synchronisation: %s (node %d, due %llu ns, bound %llu ns); "
             "virtual times may differ from run to run",
             what, node, (unsigned long long)due, (unsigned long long)bound);
}

int cm5i_msync_setup(const cm5i_model_params_t *p, cm5i_vnode_t *v, int want)
{
    const char *how = cm5i_ctx.boot.method ? cm5i_ctx.boot.method : "";
    /* The records live in the memory the nodes of one host share (the
     * doorbell): cm5run's, or a PMIx job's whose nodes are all on one
     * host (boot_pmix.c).  Across hosts they travel as packets (ms.net,
     * "Records as messages" above). */
    int pmix_one_host = strcmp(how, "pmix") == 0 && cm5i_ctx.boot.local &&
                        cm5i_ctx.boot.doorbell_fd >= 0;
    int can = strcmp(how, "cm5run") == 0 || strcmp(how, "single") == 0 ||
              pmix_one_host;
    const char *why =
        strcmp(how, "pmix") != 0 ? "this job was started by another launcher"
        : !cm5i_ctx.boot.local   ? "this PMIx job's nodes are on several hosts"
                               : "this PMIx job's nodes got no shared doorbell";

    memset(&ms, 0, sizeof(ms));
    cm5i_msync_on = 0;
    if (want == 0)
        return 0;
    /* 2: records as messages on one host too (tests, CM5_MODEL_SYNC=net) */
    ms.net = want == 2 || !can;
    if (p->L <= 0) {
        if (want > 0) {
            cm5i_log(CM5I_LOG_ERROR, "model",
                     "%s=on needs a latency L > 0 (the nodes' lookahead)",
                     CM5_ENV_MODEL_SYNC);
            return -1;
        }
        return 0;
    }
    if (ms.net && p->lk) {
        cm5i_log(CM5I_LOG_ERROR, "model",
                 "shared links (lk=1) need the nodes' shared memory, and %s",
                 can ? CM5_ENV_MODEL_SYNC "=net sends records as messages"
                     : why);
        return -1;
    }
    if (ms.net && cm5i_ctx.rank == 0)
        cm5i_log(CM5I_LOG_INFO, "model",
                 "synchronised through messages: every node sends its "
                 "record to the others as packets (%s)",
                 can ? CM5_ENV_MODEL_SYNC "=net" : why);
    if (ms_jitter_setup() < 0)
        return -1;
    ms.p = p;
    ms.v = v;
    ms.L = (uint64_t)p->L;
    ms.published = 0;
    cm5i_msync_on = 1;
    return 0;
}

static void ms_net_bump(void);

/* The shared area is mapped by am_wait.c after the start-up exchange;
 * what this node counted before is written once it is there. */
static void ms_ready(void)
{
    char *base;
    size_t n;

    if (CM5I_LIKELY(ms.rec != NULL))
        return;
    if (!ms.ready) {
        n = (size_t)cm5i_ctx.nep;
        ms.me = cm5i_ctx.rank;
        ms.n = (int)n;
        ms.sent = calloc(n, sizeof(*ms.sent));
        ms.taken = calloc(n, sizeof(*ms.taken));
        ms.places = calloc(n * CM5I_NCH, sizeof(*ms.places));
        if (!ms.sent || !ms.taken || !ms.places)
            cm5_fatal("cm5fab", "virtual time: out of memory");
        ms.ready = 1;
    }
    n = (size_t)ms.n;
    if (ms.net) {
        /* (the copies exist since cm5i_msync_attach; in use once the
         * job has started, when every peer can be sent to) */
        if (!ms.net_rec || !cm5i_ctx.ready)
            return;
        ms.gen = &ms.net_gen;
        ms.count = ms.net_count;
        for (size_t k = 0; k < n; k++)
            atomic_store(&ms.count[(size_t)ms.me * n + k], ms.taken[k]);
        atomic_store(&ms.net_rec[ms.me].want, MS_INF);
        ms.rec = ms.net_rec;
        ms_net_bump();
        for (int j = 0; j < ms.n; j++)
            if (j != ms.me)
                ms_net_mark(j); /* (what it took from each so far) */
        return;
    }
    base = cm5i_wait_area();
    if (!base)
        return;
    ms.gen = &((cm5_doorbell_slot_t *)base)[0].seq;
    ms.count = (_Atomic uint32_t *)(base + CM5_VSYNC_COUNTS(n));
    for (size_t k = 0; k < n; k++)
        atomic_store(&ms.count[(size_t)ms.me * n + k], ms.taken[k]);
    atomic_store(&((cm5_vsync_rec_t *)(base + CM5_VSYNC_RECS(n)))[ms.me].want,
                 MS_INF);
    ms.rec = (cm5_vsync_rec_t *)(base + CM5_VSYNC_RECS(n));
    if (ms.p->lk && cm5_vsync_link_count(n)) {
        ms.lkh = (cm5_vsync_links_t *)(base + CM5_VSYNC_LINKS(n));
        /* (cm5i_model_parse checked that a bucket carries a packet) */
        ms.lk_on = cm5i_links_init(&ms.lk, (uint32_t *)(ms.lkh + 1), ms.n,
                                   (uint32_t)cm5_vsync_link_r(n), ms.p) == 0;
    }
}

/* ---- records as messages ---- */

/* One record in a packet: node k's, its number; k's own (has_count):
 * the packets k has taken from the packet's receiver, the one word of
 * k's count row the receiver reads (ms_in_flight).  A forwarded record
 * carries no count: the receiver learns it from k itself, which sends
 * its record to a node whose packets it took. */
typedef struct {
    uint32_t k, seq;
    uint64_t bound, reach, want, cn_entry, host_entry, host_end;
    uint32_t cn_ops, host_ops;
    uint32_t count, has_count;
} ms_entry_t;

static size_t ms_entry_size(void) { return sizeof(ms_entry_t); }

/* This node's record changed (its number moves: the peers' copies of it
 * are older). */
static void ms_net_bump(void)
{
    if (ms.net && ms.net_seq)
        ms.net_seq[ms.me]++;
}

static void ms_entry_fill(ms_entry_t *e, int k, int to)
{
    size_t n = (size_t)ms.n;

    memset(e, 0, sizeof(*e));
    e->k = (uint32_t)k;
    e->seq = ms.net_seq[k];
    e->bound = atomic_load(&ms.net_rec[k].bound);
    e->reach = atomic_load(&ms.net_rec[k].reach);
    e->want = atomic_load(&ms.net_rec[k].want);
    e->cn_entry = atomic_load(&ms.net_rec[k].cn_entry);
    e->cn_ops = atomic_load(&ms.net_rec[k].cn_ops);
    e->host_entry = atomic_load(&ms.net_rec[k].host_entry);
    e->host_ops = atomic_load(&ms.net_rec[k].host_ops);
    e->host_end = atomic_load(&ms.net_rec[k].host_end);
    if (k == ms.me) {
        e->has_count = 1;
        e->count = atomic_load(&ms.net_count[(size_t)k * n + (size_t)to]);
    }
}

/* Send peer j every record newer than its copy (this node's and the
 * others' it holds: a record here may follow from another's, which
 * must reach j with it), in packets no larger than the job's
 * (cm5i_msync_packet_max); the last packet says so (arg[2]), and j
 * takes them all at once. */
static void ms_net_send(int j)
{
    char body[CM5I_PKT_BODY_MAX];
    size_t es = ms_entry_size(), at = 0,
           room = cm5i_msync_packet_max() - sizeof(cm5i_pkt_t);
    struct ms_peer *q = &ms.peer[j];
    int k = 0;

    for (;;) {
        int last;

        while (k < ms.n &&
               (k == j || ms.net_seq[k] == q->sent[k] || ms.net_seq[k] == 0))
            k++;
        last = k >= ms.n;
        if (room > sizeof(body))
            room = sizeof(body);
        if (!last && at + es <= room) {
            ms_entry_fill((ms_entry_t *)(void *)(body + at), k, j);
            q->sent[k] = ms.net_seq[k];
            if (k == ms.me) { /* (what it publishes meanwhile lowers them) */
                q->bound = ((ms_entry_t *)(void *)(body + at))->bound;
                q->reach = ((ms_entry_t *)(void *)(body + at))->reach;
            }
            at += es;
            k++;
            continue;
        }
        {
            cm5i_pkt_t pkt = {.type = CM5I_PKT_VSYNC, .vt = CM5I_VT_NONE};
            cm5_status_t st;

            pkt.arg[2] = (uint32_t)last;
            st = cm5i_am_send_body(CM5I_CH_REP, j, &pkt, body, at);
            if (st != CM5_OK)
                cm5_fatal("cm5fab",
                          "virtual time: node %d could not send its record "
                          "to node %d (%s)",
                          ms.me, j, cm5_status_string(st));
        }
        at = 0;
        if (last)
            break;
    }
}

/* Send the peers marked their copies, outside handlers and send waits
 * (a progress hook, and the waits). */
static int ms_net_flush(int arg)
{
    int sent = 0;

    (void)arg;
    if (!ms.net || !ms.rec || !ms.ndirty || ms.flushing || ms.closed ||
        !cm5i_progress_may_send())
        return 0;
    ms.flushing = 1;
    /* (a send that waits for credits polls: a packet taken meanwhile may
     * mark a peer again; the next flush sends it) */
    for (int j = 0; j < ms.n && ms.ndirty; j++) {
        if (!ms.peer[j].dirty)
            continue;
        ms.peer[j].dirty = 0;
        ms.ndirty--;
        ms_net_send(j);
        sent++;
    }
    ms.flushing = 0;
    return sent;
}

/* Take one record (newer ones only); a peer that waits for a value this
 * node has passed already is sent this node's. */
static void ms_net_take(const ms_entry_t *e)
{
    size_t n = (size_t)ms.n;
    int k = (int)e->k;
    _Atomic uint32_t *c = &ms.net_count[(size_t)k * n + (size_t)ms.me];

    if (k == ms.me)
        return;
    /* (a count only grows: taken from an older record too, which came
     * by the direct way after a newer one was forwarded) */
    if (e->has_count && (int32_t)(e->count - atomic_load(c)) > 0)
        atomic_store(c, e->count);
    if ((int32_t)(e->seq - ms.net_seq[k]) <= 0)
        return;
    ms.net_seq[k] = e->seq;
    atomic_store(&ms.net_rec[k].cn_entry, e->cn_entry);
    atomic_store(&ms.net_rec[k].cn_ops, e->cn_ops);
    atomic_store(&ms.net_rec[k].host_entry, e->host_entry);
    atomic_store(&ms.net_rec[k].host_ops, e->host_ops);
    atomic_store(&ms.net_rec[k].host_end, e->host_end);
    atomic_store(&ms.net_rec[k].reach, e->reach);
    atomic_store(&ms.net_rec[k].want, e->want);
    atomic_store(&ms.net_rec[k].bound, e->bound);
    if (ms.rec && e->want != MS_INF &&
        ((e->want < ms.published && ms.peer[k].bound <= e->want) ||
         (e->want < ms.reach && ms.peer[k].reach <= e->want)))
        ms_net_mark(k);
    /* k holds this node back (a record forwarded by a third, maybe newer
     * than when this node sent its want): k must know the want */
    if (ms.rec) {
        uint64_t w = atomic_load(&ms.net_rec[ms.me].want);

        if (w != MS_INF && e->bound <= w)
            ms_net_mark(k);
    }
}

/* Records from a peer: kept until its last packet, then taken together
 * (they are a view that holds together: a record and those it follows
 * from). */
static int ms_net_packet(int ch, const cm5i_pkt_t *pkt)
{
    size_t len, es = ms_entry_size();
    const char *b = cm5i_pkt_body(&len);
    int src = pkt->src;
    struct ms_peer *q;

    (void)ch;
    if (!ms.net || !ms.net_rec || src == ms.me || src >= ms.n || len % es)
        return 1;
    q = &ms.peer[src];
    if (q->nstage + len > q->capstage) {
        size_t cap = q->capstage ? 2 * q->capstage : 2 * CM5I_PKT_BODY_MAX;

        while (cap < q->nstage + len)
            cap *= 2;
        q->stage = realloc(q->stage, cap);
        if (!q->stage)
            cm5_fatal("cm5fab", "virtual time: out of memory");
        q->capstage = cap;
    }
    memcpy(q->stage + q->nstage, b, len);
    q->nstage += len;
    if (!pkt->arg[2])
        return 1;
    for (size_t at = 0; at < q->nstage; at += es)
        ms_net_take((const ms_entry_t *)(void *)(q->stage + at));
    q->nstage = 0;
    atomic_fetch_add(&ms.net_gen, 1);
    return 1;
}

/* The node left the exit barrier, its value infinite: every peer gets
 * it (one still in the barrier's last turns may wait for it), and the
 * node leaves once every peer's is infinite too: none will need its
 * record any more, and none has gone while it sent its own. */
static void ms_net_close(void)
{
    unsigned spins = 0;

    if (!cm5i_progress_may_send()) { /* (not from a handler) */
        cm5i_log(CM5I_LOG_WARN, "model",
                 "synchronisation: the exit barrier ended where this node "
                 "cannot send its last record");
        return;
    }
    for (int j = 0; j < ms.n; j++)
        if (j != ms.me)
            ms_net_mark(j);
    for (;;) {
        int open = 0;

        ms_net_flush(0);
        for (int j = 0; j < ms.n; j++)
            if (j != ms.me && atomic_load(&ms.net_rec[j].bound) != MS_INF)
                open++;
        if (!open && !ms.ndirty)
            break;
        cm5i_progress_pull_step(&spins);
    }
    ms.closed = 1;
}

size_t cm5i_msync_packet_max(void)
{
    size_t m = cm5i_msg_packet_max(),
           one = sizeof(cm5i_pkt_t) + sizeof(ms_entry_t) +
                 (size_t)cm5i_ctx.nep * sizeof(uint32_t);

    return cm5i_msync_on && ms.net && one > m ? one : m;
}

void cm5i_msync_attach(void)
{
    size_t n;

    if (!cm5i_msync_on || !ms.net || ms.net_rec)
        return;
    n = (size_t)cm5i_ctx.nep;
    ms.n = (int)n;
    ms.me = cm5i_ctx.rank;
    ms.net_rec = calloc(n, sizeof(*ms.net_rec));
    ms.net_count = calloc(n * n, sizeof(*ms.net_count));
    ms.net_seq = calloc(n, sizeof(*ms.net_seq));
    ms.peer = calloc(n, sizeof(*ms.peer));
    if (!ms.net_rec || !ms.net_count || !ms.net_seq || !ms.peer)
        cm5_fatal("cm5fab", "virtual time: out of memory");
    for (size_t j = 0; j < n; j++) {
        atomic_store(&ms.net_rec[j].want, MS_INF);
        ms.peer[j].sent = calloc(n, sizeof(uint32_t));
        if (!ms.peer[j].sent)
            cm5_fatal("cm5fab", "virtual time: out of memory");
    }
    cm5i_pkt_register_body(CM5I_PKT_VSYNC, ms_net_packet);
    cm5i_progress_hook(CM5I_HOOK_OUTSIDE_LAST, ms_net_flush);
}

/* This node published b and r: each peer may hold them from now on (a
 * record forwarded by another node); those whose want they pass get
 * this node's record. */
static void ms_net_published(uint64_t b, uint64_t r)
{
    ms_net_bump();
    for (int j = 0; j < ms.n; j++) {
        struct ms_peer *q = &ms.peer[j];
        uint64_t w;

        if (j == ms.me)
            continue;
        w = atomic_load_explicit(&ms.rec[j].want, memory_order_relaxed);
        if ((w < b && q->bound <= w) || (w < r && q->reach <= w))
            ms_net_mark(j);
        if (b < q->bound)
            q->bound = b;
        if (r < q->reach)
            q->reach = r;
    }
}

/* This node's want (MS_INF: none).  As messages, a new want goes to the
 * peers whose copied value has not passed it (the others need not wake
 * it), each time it changes: a peer may hold another want of this
 * node's, forwarded by a third; none is not sent (a peer then sends once
 * more, harmlessly). */
static void ms_set_want(uint64_t w)
{
    if (atomic_load(&ms.rec[ms.me].want) == w)
        return;
    atomic_store(&ms.rec[ms.me].want, w);
    if (!ms.net)
        return;
    ms_net_bump();
    if (w == MS_INF)
        return;
    for (int j = 0; j < ms.n; j++) {
        uint64_t b, r;

        if (j == ms.me)
            continue;
        b = atomic_load_explicit(&ms.rec[j].bound, memory_order_acquire);
        r = atomic_load_explicit(&ms.rec[j].reach, memory_order_acquire);
        if (b <= w || r <= w)
            ms_net_mark(j);
    }
}

void cm5i_msync_teardown(void)
{
    for (size_t i = 0; i < ms.nheap; i++)
        free(ms.heap[i].body);
    free(ms.heap);
    free(ms.out);
    free(ms.prom);
    free(ms.sent);
    free(ms.taken);
    free(ms.places);
    for (int j = 0; ms.peer && j < ms.n; j++) {
        free(ms.peer[j].sent);
        free(ms.peer[j].stage);
    }
    free(ms.net_rec);
    free((void *)ms.net_count);
    free(ms.net_seq);
    free(ms.peer);
    memset(&ms, 0, sizeof(ms));
    cm5i_msync_on = 0;
}

static uint64_t ms_add(uint64_t a, uint64_t b)
{
    return a > MS_INF - b ? MS_INF : a + b;
}

/* The packet types the model orders (the control network's own, and
 * credits, end or act by rule). */
#define MS_ORDERED_TYPES                                                       \
    (1u << CM5I_PKT_USER | 1u << CM5I_PKT_RPC | 1u << CM5I_PKT_EAGER |         \
     1u << CM5I_PKT_CMA | 1u << CM5I_PKT_INTERNAL)

int cm5i_msync_orderable(const cm5i_pkt_t *pkt)
{
    return (MS_ORDERED_TYPES >> pkt->type & 1u) &&
           !(pkt->type == CM5I_PKT_INTERNAL &&
             (pkt->obj == CM5I_INT_COLL || pkt->obj == CM5I_INT_GOR ||
              pkt->obj == CM5I_INT_SCOPY_CTS));
}

int cm5i_msync_ordered(const cm5i_pkt_t *pkt, uint64_t *due)
{
    if (pkt->vt == CM5I_VT_NONE || !cm5i_msync_orderable(pkt))
        return 0;
    *due = pkt->type == CM5I_PKT_INTERNAL && (pkt->obj == CM5I_INT_MSG_ACK ||
                                              pkt->obj == CM5I_INT_MSG_FIN)
               ? pkt->vt
               : ms_add(pkt->vt, ms.L);
    return 1;
}

/* ---- what this node has in flight ---- */

void *cm5i_msync_grow(void *v, size_t *cap, size_t first, size_t elem)
{
    *cap = *cap ? 2 * *cap : first;
    v = realloc(v, *cap * elem);
    if (!v)
        cm5_fatal("cm5fab", "virtual time: out of memory");
    return v;
}

void cm5i_msync_sent(int node, const cm5i_pkt_t *pkt, int promised)
{
    uint64_t due;

    /* (past the exit barrier nothing is ordered: with a host program and
     * records as messages, the exit's second host collective sends) */
    if (!cm5i_msync_on || ms.done || !cm5i_msync_ordered(pkt, &due))
        return;
    ms_ready();
    ms_jitter();
    if (due < ms.published) {
        char what[256];

        snprintf(what, sizeof(what),
                 "a packet (type %d/%u, word %llu) is due before what this "
                 "node published (its clock %llu)",
                 pkt->type, pkt->obj, (unsigned long long)pkt->vt,
                 (unsigned long long)ms.v->clock);
        ms_violation(what, node, due, ms.published);
    }
    if (ms.nout == ms.capout)
        ms.out = cm5i_msync_grow(ms.out, &ms.capout, 64, sizeof(*ms.out));
    ms.sent[node]++;
    ms.out[ms.nout++] = (ms_out_t){node, due};
    /* (its promise, if it had one, is kept) */
    for (size_t i = 0; promised && i < ms.nprom; i++)
        if (ms.prom[i] == due) {
            ms.prom[i] = ms.prom[--ms.nprom];
            break;
        }
}

void cm5i_msync_promise(uint64_t due)
{
    if (!cm5i_msync_on)
        return;
    if (ms.nprom == ms.capprom)
        ms.prom = cm5i_msync_grow(ms.prom, &ms.capprom, 16, sizeof(*ms.prom));
    ms.prom[ms.nprom++] = due;
}

/* Drop what the receivers have taken; the earliest due of the rest. */
static uint64_t ms_in_flight(uint64_t *to_self)
{
    uint64_t lo = MS_INF, self = MS_INF;

    for (size_t i = 0; i < ms.nout;) {
        ms_out_t *o = &ms.out[i];
        uint32_t c =
            ms.count ? atomic_load_explicit(&ms.count[o->node * ms.n + ms.me],
                                            memory_order_acquire)
                     : 0;

        /* Only once its receiver has taken all it was sent: packets
         * with a body may pass plain ones on the way (separate rings),
         * so a count does not say which it has. */
        if (ms.count && (int32_t)(c - ms.sent[o->node]) >= 0) {
            *o = ms.out[--ms.nout];
            continue;
        }
        if (o->due < lo)
            lo = o->due;
        if (o->node == ms.me && o->due < self)
            self = o->due;
        i++;
    }
    for (size_t i = 0; i < ms.nprom; i++)
        if (ms.prom[i] < lo)
            lo = ms.prom[i];
    if (to_self)
        *to_self = self;
    return lo;
}

/* ---- the heap of packets taken, by (due, src, ch, place) ---- */

static int ms_before(const ms_ev_t *a, const ms_ev_t *b)
{
    if (a->due != b->due)
        return a->due < b->due;
    if (a->src != b->src)
        return a->src < b->src;
    if (a->ch != b->ch)
        return a->ch < b->ch;
    return (int32_t)(a->place - b->place) < 0;
}

static void ms_push(const ms_ev_t *e)
{
    size_t i;

    if (ms.nheap == ms.capheap) {
        ms.capheap = ms.capheap ? 2 * ms.capheap : 256;
        if (ms.capheap > (1u << 24))
            cm5_fatal("cm5fab",
                      "virtual time: %zu packets wait for their turn at "
                      "this node (its clock is far behind its senders')",
                      ms.nheap);
        ms.heap = realloc(ms.heap, ms.capheap * sizeof(*ms.heap));
        if (!ms.heap)
            cm5_fatal("cm5fab", "virtual time: out of memory");
    }
    i = ms.nheap++;
    while (i > 0 && ms_before(e, &ms.heap[(i - 1) / 2])) {
        ms.heap[i] = ms.heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    ms.heap[i] = *e;
}

static void ms_pop(ms_ev_t *e)
{
    ms_ev_t last;
    size_t i = 0;

    *e = ms.heap[0];
    last = ms.heap[--ms.nheap];
    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= ms.nheap)
            break;
        if (c + 1 < ms.nheap && ms_before(&ms.heap[c + 1], &ms.heap[c]))
            c++;
        if (!ms_before(&ms.heap[c], &last))
            break;
        ms.heap[i] = ms.heap[c];
        i = c;
    }
    if (ms.nheap)
        ms.heap[i] = last;
}

static int ms_mode(void);
static void ms_publish_mode(int mode);

int cm5i_msync_take(int ch, const cm5i_pkt_t *pkt, const void *body, size_t len)
{
    ms_ev_t e;
    uint32_t src = pkt->src;

    if (!cm5i_msync_on || ms.done || !cm5i_msync_ordered(pkt, &e.due))
        return 0;
    ms_ready();
    ms_jitter();
    if (e.due < ms.through)
        ms_violation("a packet came after this node passed its due time",
                     (int)src, e.due, ms.through);
    e.src = src;
    e.ch = (uint32_t)ch;
    e.place = ms.places[src * CM5I_NCH + (uint32_t)ch]++;
    e.pkt = *pkt;
    e.len = len;
    e.body = NULL;
    if (len) {
        e.body = malloc(len);
        if (!e.body)
            cm5_fatal("cm5fab", "virtual time: out of memory");
        memcpy(e.body, body, len);
    }
    ms_push(&e);
    /* What it may do now is published before the count that lets its
     * sender forget it (ms_safe reads both in one snapshot). */
    ms_publish_mode(ms_mode());
    if (ms.count)
        atomic_store_explicit(&ms.count[ms.me * ms.n + (int)src],
                              ++ms.taken[src], memory_order_release);
    else
        ms.taken[src]++;
    if (ms.net && ms.rec) { /* (its sender may forget the packet) */
        ms_net_bump();
        ms_net_mark((int)src);
    }
    return 1;
}

/* ---- bounds ---- */

static int ms_mode(void)
{
    int w = cm5i_wait_innermost();

    if (ms.pj_to)
        return MS_PJ; /* (cm5i_msync_probe_jump) */

    switch (w) {
    case CM5I_WAIT_NONE:
        /* (outside the runtime, interrupts on: the interrupt thread's
         * pass, which takes packets as a blocking wait does) */
        return ms.irq_wait ? MS_JUMP : MS_RUN;
    case CM5I_WAIT_UNTIL:
    case CM5I_WAIT_WHILE_LT:
    case CM5I_WAIT_MSG_DONE:
        /* Inside a control-network call it waits for the call's own
         * messages, which no clock orders: the call's end bounds it. */
        return cm5i_depth.cn_hold && !cm5i_ctx.finalizing ? MS_CN : MS_JUMP;
    case CM5I_WAIT_BARRIER:
    case CM5I_WAIT_COLL:
    case CM5I_WAIT_REDUCE:
    case CM5I_WAIT_SCAN:
    case CM5I_WAIT_SPLIT:
    case CM5I_WAIT_SEGSCAN:
        /* (the exit barrier takes everything: the program is over) */
        return cm5i_ctx.finalizing ? MS_JUMP : MS_CN;
    default:
        return MS_FROZEN; /* a wait for a resource: no virtual time */
    }
}

/* A consistent snapshot of the published values (a publication bumps
 * the job's count after it stores): lo, the least, at node *who, and
 * lo2, the least of the others. */
static void ms_snapshot(uint64_t *v)
{
    for (;;) {
        uint32_t g = atomic_load_explicit(ms.gen, memory_order_acquire);

        for (int j = 0; j < ms.n; j++)
            v[j] = atomic_load_explicit(&ms.rec[j].bound, memory_order_acquire);
        if (atomic_load_explicit(ms.gen, memory_order_acquire) == g)
            return;
    }
}

/* Work of its own queued (an RPC, deferred work, parked packets) may
 * send at its clock, whatever it waits for. */
static int ms_own_work(void)
{
    /* Taking what came during a control-network call that has ended
     * (cm5i_msync_drain), the node runs its work only after a packet it
     * takes (at that packet's time, ms_take_through) or after the call:
     * no earlier than the packets it may take.  (Counted as work at its
     * clock there, two nodes with a scopy's handler each held would
     * wait for each other's value for ever.) */
    if (ms.draining)
        return 0;
    return cm5i_am_work_pending() || cm5i_parked[CM5I_CH_REQ] ||
           cm5i_parked[CM5I_CH_REP];
}

/* What this node may send before the control-network call it is in
 * ends: its held packets' handlers, its packets in flight, its own work
 * queued (at its clock). */
static uint64_t ms_cn_reach(void)
{
    uint64_t fl = ms_in_flight(NULL),
             r = ms.nheap ? ms_add(ms.heap[0].due, ms.L) : MS_INF;

    if (ms_own_work())
        r = ms_add(ms.v->clock, ms.L);
    return fl < r ? fl : r;
}

/* Node j's value w, offered: keep the least (*lo, at node *who) and the
 * least of the others (*lo2). */
static void ms_keep_least(uint64_t w, int j, uint64_t *lo, uint64_t *lo2,
                          int *who)
{
    if (w < *lo) {
        *lo2 = *lo;
        *lo = w;
        *who = j;
    } else if (w < *lo2)
        *lo2 = w;
}

/* The operations under way, counted as the nodes in it count them: a
 * host collective, the host collectives (the host and every node take
 * part); another, all the nodes' operations (the host takes no part). */
static uint32_t ms_cn_k(void)
{
    return ms.cn_host ? cm5i_host_ops : cm5i_cn_ops;
}

/* Node j's count of those operations and its clock as it began its
 * last; 0 when j takes no part in them (the host, in the nodes' own).
 * A host collective: *end, the end of the last j left (0: none). */
static int ms_cn_of(int j, uint32_t *o, uint64_t *e, uint64_t *end)
{
    _Atomic uint32_t *ops =
        ms.cn_host ? &ms.rec[j].host_ops : &ms.rec[j].cn_ops;
    _Atomic uint64_t *ent =
        ms.cn_host ? &ms.rec[j].host_entry : &ms.rec[j].cn_entry;
    uint32_t o2;

    *end = 0;
    if (!ms.cn_host && j == cm5i_ctx.host)
        return 0;
    do {
        *o = atomic_load_explicit(ops, memory_order_acquire);
        *e = atomic_load_explicit(ent, memory_order_acquire);
        if (ms.cn_host)
            *end =
                atomic_load_explicit(&ms.rec[j].host_end, memory_order_acquire);
        o2 = atomic_load_explicit(ops, memory_order_acquire);
    } while (*o != o2);
    return 1;
}

void cm5i_msync_host_end(uint64_t end)
{
    if (!cm5i_msync_on || !ms.rec || end == CM5I_VT_NONE)
        return;
    atomic_store_explicit(&ms.rec[ms.me].host_end, end, memory_order_release);
    ms_net_bump();
    for (int j = 0; ms.net && j < ms.n; j++)
        if (j != ms.me)
            ms_net_mark(j);
}

/* The least time the control-network operation under way can end: the
 * latest entry clock (a node not yet in it enters when it acts next: no
 * earlier than its own value or anything that can reach it) plus a
 * barrier; or its end, once known. */
static uint64_t ms_cn_least(const uint64_t *v)
{
    uint32_t k = ms_cn_k(), o[ms.n];
    uint64_t t = ms.cn_entry, lo = MS_INF, lo2 = MS_INF, e[ms.n], end;
    int who = -1, in[ms.n];

    if (ms.cn_end)
        return ms.cn_end;
    for (int j = 0; j < ms.n; j++) {
        uint64_t w = v[j];

        if (j == ms.me) {
            o[j] = k;
            e[j] = ms.cn_entry;
            in[j] = 1;
            w = ms_cn_reach();
        } else {
            in[j] = ms_cn_of(j, &o[j], &e[j], &end);
            /* A node that has begun the next host collective left this
             * one at its end (the host may wait to hear of it from node
             * 0 while the others have gone on). */
            if (in[j] && ms.cn_host && o[j] == k + 1 && end)
                return end;
            /* A node in this call: what it may send before the call
             * ends (its value follows from the end; read after the
             * snapshot, so no older than the values it let rise). */
            if (in[j] && o[j] == k)
                w = atomic_load_explicit(&ms.rec[j].reach,
                                         memory_order_acquire);
        }
        ms_keep_least(w, j, &lo, &lo2, &who);
    }
    for (int j = 0; j < ms.n; j++) {
        uint64_t ej = e[j];

        if (j == ms.me || !in[j])
            continue;
        if (o[j] != k) {
            uint64_t reach = j == who ? lo2 : lo; /* what can reach j */

            if ((int32_t)(o[j] - k) > 0)
                continue;                       /* it has left this one */
            ej = v[j] > ms.L ? v[j] - ms.L : 0; /* its own next act */
            if (reach < ej)
                ej = reach;
        }
        if (ej > t)
            t = ej;
    }
    return ms_add(t, ms.cn_price ? ms.cn_price : (uint64_t)ms.p->bar);
}

void cm5i_msync_cn_price(uint64_t price)
{
    if (cm5i_msync_on && ms.cn_begun && price > ms.cn_price)
        ms.cn_price = price;
}

/* What this node publishes: nothing it sends from now on is due before
 * it, unless something reaches it first (which its senders' values
 * cover: ms_safe takes the least over all nodes).  Its own next act is
 * at its clock when it runs, or its next packet (in a control-network
 * call no later than the call's least end) when it waits; packets in
 * flight and promised words bound it too. */
static uint64_t ms_bound(int mode, const uint64_t *v)
{
    uint64_t own = ms.v->clock, fl;

    if (ms.done)
        return MS_INF;
    if (ms.bc_own && mode != MS_CN && mode != MS_FROZEN) {
        /* In a receipt beside the clock the node sends nothing of its
         * own before the first of its messages ends (an acknowledgement,
         * the user's callback: cm5i_msync_bc_own) or a packet it holds
         * runs: its deferred work runs then, its user's work after the
         * receipt; what reaches it later its sender's value covers
         * (ms_safe). */
        uint64_t lo = cm5i_msync_bc_next();

        if (lo > own)
            own = lo;
    } else if (mode == MS_PJ) {
        /* A probe that jumps to its first poll tick at or after the next
         * packet, pj_to at most: the program runs on from there. */
        uint64_t lo = ms.nheap ? ms.heap[0].due : MS_INF;

        if (lo > ms.pj_to)
            lo = ms.pj_to;
        if (lo > own)
            own = lo;
    } else if ((mode == MS_JUMP || mode == MS_CN) && !ms_own_work()) {
        /* (its own work queued: it runs, at its clock) */
        uint64_t lo = ms.nheap ? ms.heap[0].due : MS_INF;

        if (mode == MS_CN) {
            uint64_t t = ms_cn_least(v);

            if (t < lo)
                lo = t;
        } else if (ms.irq_wait) {
            /* A program waiting for its interrupt by rule may also run
             * on by itself (its computation ends): no further than the
             * others can reach it, which it moves its clock to then
             * (cm5i_msync_irq_resume). */
            for (int j = 0; j < ms.n; j++)
                if (j != ms.me && v[j] < lo)
                    lo = v[j];
        }
        if (lo > own)
            own = lo;
    }
    own = ms_add(own, ms.L);
    /* Shared links: a node running a packet at its clock may take a
     * receipt there (cm5i_msync_link_turn), whatever it holds next: the
     * others must not pass its clock meanwhile. */
    if (ms.lk_on && ms.running && ms_add(ms.v->clock, ms.L) < own)
        own = ms_add(ms.v->clock, ms.L);
    fl = ms_in_flight(NULL);
    return fl < own ? fl : own;
}

/* The least of the other nodes' values, each the larger of its bound
 * and its reach (what may let a waiter pass it); which node holds it
 * (*who), and the least of the rest (*second). */
static uint64_t ms_least_two(int *who, uint64_t *second)
{
    uint64_t lo = MS_INF;

    *second = MS_INF;
    *who = -1;
    for (int k = 0; k < ms.n; k++) {
        uint64_t u, x;

        if (k == ms.me)
            continue;
        u = atomic_load_explicit(&ms.rec[k].bound, memory_order_acquire);
        x = atomic_load_explicit(&ms.rec[k].reach, memory_order_acquire);
        ms_keep_least(x > u ? x : u, k, &lo, second, who);
    }
    return lo;
}

static void ms_publish_mode(int mode)
{
    uint64_t b, r, lo = MS_INF, lo2 = MS_INF, v[ms.n > 0 ? ms.n : 1];
    int rose;

    if (!ms.rec)
        return;
    ms_jitter();
    if (mode == MS_CN || (mode == MS_JUMP && ms.irq_wait))
        ms_snapshot(v);
    b = ms_bound(mode, v);
    /* (outside a control-network call its value says it all) */
    r = mode == MS_CN ? ms_cn_reach() : b;
    if (b == ms.published && r == ms.reach)
        return;
    rose = r > ms.reach;
    ms.reach = r;
    atomic_store_explicit(&ms.rec[ms.me].reach, r, memory_order_release);
    atomic_store_explicit(&ms.rec[ms.me].bound, b, memory_order_release);
    atomic_fetch_add_explicit(ms.gen, 1, memory_order_acq_rel);
    if (ms.net) {
        ms_net_published(b, r);
        ms.published = b;
        return;
    }
    if (b <= ms.published) {
        ms.published = b;
        if (!rose)
            return;
    }
    ms.published = b;
    /* Wake the nodes that sleep until a value passes what they want (a
     * node in the same call reads the reach), but not one that a third
     * node still holds back for sure (its value and its reach both below
     * the want): that node wakes it when it passes.  (The count bumped
     * above orders two publishers: the later one reads the other's new
     * value, so the last to pass wakes the sleeper.) */
    for (int j = 0, who = -2; j < ms.n; j++) {
        uint64_t w;

        if (j == ms.me)
            continue;
        w = atomic_load_explicit(&ms.rec[j].want, memory_order_relaxed);
        if (!(w < b || (rose && w < r)))
            continue;
        if (who == -2) /* (read once, for the first such node) */
            lo = ms_least_two(&who, &lo2);
        if ((who == j ? lo2 : lo) < w)
            continue;
        cm5i_doorbell_ring(j);
    }
}

void cm5i_msync_publish(void)
{
    if (!cm5i_msync_on)
        return;
    ms_ready();
    ms_publish_mode(ms_mode());
}

void cm5i_msync_cn_enter(void)
{
    if (!cm5i_msync_on)
        return;
    ms_ready();
    /* (a split-phase call's test or finish enters again: no new op) */
    if (ms.cn_begun && ms.cn_ops == cm5i_cn_ops)
        return;
    ms.cn_begun = 1;
    ms.cn_ops = cm5i_cn_ops;
    ms.cn_host = cm5i_cn_host;
    ms.cn_price = 0;
    ms.cn_entry = ms.v->clock;
    ms.cn_end = 0;
    if (!ms.rec)
        return;
    /* (the entry first: a node that reads the count reads the entry) */
    if (ms.cn_host) {
        atomic_store_explicit(&ms.rec[ms.me].host_entry, ms.cn_entry,
                              memory_order_release);
        atomic_store_explicit(&ms.rec[ms.me].host_ops, cm5i_host_ops,
                              memory_order_release);
    }
    atomic_store_explicit(&ms.rec[ms.me].cn_entry, ms.cn_entry,
                          memory_order_release);
    atomic_store_explicit(&ms.rec[ms.me].cn_ops, cm5i_cn_ops,
                          memory_order_release);
    ms_net_bump();
    for (int j = 0; ms.net && j < ms.n; j++) /* (read by ms_cn_least) */
        if (j != ms.me)
            ms_net_mark(j);
}

int cm5i_msync_cn_after(uint64_t c)
{
    uint64_t v[ms.n > 0 ? ms.n : 1];

    if (!cm5i_msync_on || !ms.rec)
        return 0;
    ms_snapshot(v);
    return ms_cn_least(v) > c;
}

int cm5i_msync_net_closed(void) { return ms.closed; }

int cm5i_msync_is_done(void) { return ms.done; }

void cm5i_msync_done(void)
{
    if (!cm5i_msync_on || !ms.ready || ms.done)
        return;
    ms.done = 1;
    ms_publish_mode(MS_FROZEN);
    if (ms.net && ms.rec)
        ms_net_close();
}

/* ---- waiting for the others ---- */

/* Node j has begun a control-network call this node has not: that call
 * ends no earlier than a barrier after this node's clock (it enters it
 * at its clock or later), so j sends nothing due by c before it but what
 * its reach says.  (Its published value, which follows from the call's
 * least end, lags: read alone, a node that polls while others wait in a
 * call would move in lock step with their publications.)  Not in a
 * host/node job, whose host counts no operations. */
static int ms_cn_ahead(int j, uint64_t c)
{
    uint32_t o = atomic_load_explicit(&ms.rec[j].cn_ops, memory_order_acquire);

    if (o != cm5i_cn_ops + 1 || cm5i_ctx.host >= 0 ||
        ms_add(ms.v->clock, ms_add((uint64_t)ms.p->bar, ms.L)) <= c)
        return 0;
    return atomic_load_explicit(&ms.rec[j].reach, memory_order_acquire) > c;
}

/* Has everything due by c (or, with e, before e) come?  Anything still
 * to come to this node starts at some node: its value bounds it (a
 * chain through others only adds latencies); this node's own packets in
 * flight come back no earlier than a latency after they land. */
static int ms_safe_by(uint64_t c, const ms_ev_t *e, int cn)
{
    uint64_t self, fl, v[ms.n];

    /* The counts first: a receiver publishes its value before the count
     * that lets this node forget a packet it sent it, so a value read
     * after the count covers the packet's consequences (read before, it
     * may be older than the count, and say nothing of them). */
    fl = ms_in_flight(&self);
    if (self <= c || ms_add(fl, ms.L) <= c)
        return 0;
    ms_snapshot(v);
    for (int j = 0; j < ms.n; j++) {
        if (j == ms.me)
            continue;
        if (v[j] > c || (e && v[j] == c && (uint32_t)j > e->src))
            continue;
        if (cn && ms_cn_ahead(j, c))
            continue;
        return 0;
    }
    return 1;
}

/* ... passing a node in the next control-network operation whose reach
 * is past c (ms_cn_ahead): it sends nothing before the operation ends. */
static int ms_safe(uint64_t c, const ms_ev_t *e) { return ms_safe_by(c, e, 1); }

/* One step of a wait for the other nodes: take packets, keep the bound
 * published, back off to a sleep that a bound passing want wakes. */
static void ms_wait_step(int mode, uint64_t want, unsigned *spins)
{
    uint32_t seq;

    ms_jitter();
    /* More nodes than CPUs: no spinning (the node it waits for needs
     * this CPU), yields first (AC at d = 16, 128 KiB: 17 -> 12 s; going
     * to sleep at once, 72 s) */
    if (*spins == 0 && !cm5i_wait_spins())
        *spins = 15;
    if (++*spins < 16)
        return;
    if (*spins < 64) {
        sched_yield();
        return;
    }
    ms_set_want(want);
    if (ms.net && !cm5i_wait_doorbell()) {
        /* (nodes on several hosts: a record comes as a packet, which the
         * provider's wait or a short sleep sees) */
        struct timespec ts = {0, 100000};

        ms_publish_mode(mode);
        ms_net_flush(0);
        if (cm5i_progress_pull() == 0 && !ms_safe(want, NULL))
            nanosleep(&ts, NULL);
        return; /* (the want stays: set again, it would go again) */
    }
    seq = cm5i_doorbell_arm();
    cm5i_progress_pull(); /* (a sender that saw no sleeper delivered) */
    ms_publish_mode(mode);
    ms_net_flush(0); /* (as messages: the peer's doorbell rings with it) */
    cm5i_doorbell_sleep(seq, ms_safe(want, NULL) ? 0 : 1);
    if (!ms.net) /* (as messages the want stays: set again, it would go
                  * again) */
        ms_set_want(MS_INF);
}

/* ---- interleaved receipt ---- */

static int (*ms_notice)(const cm5i_pkt_t *pkt);
static void (*ms_after)(void);

void cm5i_msync_set_notice(int (*notice)(const cm5i_pkt_t *pkt))
{
    ms_notice = notice;
}

void cm5i_msync_set_after(void (*after)(void)) { ms_after = after; }

/* May e run now, as far as interleaved receipt goes?  A data notice runs
 * once nothing due by the node's clock (or by its due time, if later) can
 * still come, ties included: its receipt is taken with every other that
 * came by then (cm5i_msync_peek), the same ones on every run.  *want:
 * what to wait for. */
static int ms_notice_ready(const ms_ev_t *e, uint64_t *want)
{
    uint64_t c = ms.v->clock > e->due ? ms.v->clock : e->due;

    if (!ms_notice || !ms_notice(&e->pkt) || ms_safe(c, NULL))
        return 1;
    *want = c;
    return 0;
}

void cm5i_msync_peek(uint64_t c,
                     void (*fn)(const cm5i_pkt_t *pkt, uint64_t due,
                                uint32_t src, uint32_t ch, uint32_t place,
                                void *arg),
                     void *arg)
{
    for (size_t i = 0; i < ms.nheap; i++)
        if (ms.heap[i].due <= c)
            fn(&ms.heap[i].pkt, ms.heap[i].due, ms.heap[i].src, ms.heap[i].ch,
               ms.heap[i].place, arg);
}

/* Run e, then the protocol steps it queued (a go-ahead, an
 * acknowledgement: held senders), in its turn, at the clock it left:
 * run where the caller's pass ends, they would come at a clock that
 * depends on when the others' bounds passed (real time), and a node
 * whose pass never ends (three DRS_N senders that ask it again as soon
 * as it denies them) would never send them.  What it promised to send
 * goes now as well: a node waiting for this node's bound to pass its
 * clock may wait for that packet.  (A data notice's acknowledgement may
 * have been promised earlier: its receipt was taken with another's.) */
static void ms_run(ms_ev_t *e)
{
    ms_jitter();
    ms.runs++;
    if (e->due > ms.through)
        ms.through = e->due;
    ms.running++;
    cm5i_pkt_dispatch((int)e->ch, &e->pkt, e->body, e->len);
    free(e->body);
    cm5i_progress_run_deferred();
    ms.running--;
}

/* Take every packet due by t (by the clock, when to_clock: a node that
 * runs polls at its clock, which what it takes moves), each in its
 * turn, jumping the clock to it (jump), until nothing due by then can
 * still come.  Returns the packets run. */
static int ms_take_through(int mode, uint64_t t, int to_clock, int jump)
{
    unsigned spins = 0;
    int n = 0;

    for (;;) {
        uint64_t want;

        if (to_clock)
            t = ms.v->clock;
        ms_jitter();
        cm5i_progress_pull();
        ms_publish_mode(mode);
        if (ms.nheap && ms.heap[0].due <= t) {
            want = ms.heap[0].due;
            if (ms_safe(ms.heap[0].due, &ms.heap[0]) &&
                ms_notice_ready(&ms.heap[0], &want)) {
                ms_ev_t e;

                ms_pop(&e);
                if (jump && ms.v->clock < e.due)
                    ms.v->clock = e.due;
                ms_run(&e); /* (and the steps it queued) */
                if (ms_after)
                    ms_after();
                n++;
                spins = 0;
                continue;
            }
        } else if (ms_safe(t, NULL)) {
            break;
        } else {
            want = t;
        }
        ms_wait_step(mode, want, &spins);
    }
    if (ms.through < t)
        ms.through = t;
    return n;
}

/* A node that runs polls at its clock: everything due by then, in order. */
static int ms_dispatch_run(void)
{
    int n = ms_take_through(MS_RUN, 0, 1, 0);

    ms_publish_mode(MS_RUN);
    return n;
}

uint64_t cm5i_msync_runs(void) { return ms.runs; }

/* A probe in a loop of probes that has found nothing many times in a
 * row (am_model.c, model_probe): instead of its poll, up to max polls at
 * once, to the first poll tick (clock + k poll) at or after the next
 * packet due to the node, where a probe would have taken it; with none
 * due by then, max polls.  The clock is the one the loop's probes would
 * have reached, one poll at a time (the dispatch after the probe takes
 * what is due by it); only the loop's passes are fewer.  Meanwhile the
 * node's bound is its next packet's due or the jump's end, not its
 * clock plus a latency: the others run ahead (doc/model.md, "Loops of
 * probes"). */
void cm5i_msync_probe_jump(uint64_t poll, uint64_t max)
{
    uint64_t c0 = ms.v->clock, to = ms_add(c0, max * poll), x, want;
    unsigned spins = 0;

    if (!ms.rec || ms.done || ms.irq_wait || ms.bc_own || ms.pj_to ||
        ms_own_work() || poll == 0 || max < 2) {
        ms.v->clock += poll;
        return;
    }
    ms.pj_to = to;
    for (;;) {
        uint64_t d;

        cm5i_progress_pull();
        ms_publish_mode(MS_PJ);
        d = ms.nheap ? ms.heap[0].due : MS_INF;
        if (d <= to && ms_safe(d, &ms.heap[0])) {
            x = d <= c0 + poll ? c0 + poll
                               : c0 + (d - c0 + poll - 1) / poll * poll;
            break;
        }
        if (d > to && ms_safe(to, NULL)) {
            x = to;
            break;
        }
        want = d < to ? d : to;
        ms_wait_step(MS_PJ, want, &spins);
    }
    ms.pj_to = 0;
    ms.v->clock = x;
    ms_publish_mode(MS_RUN);
}

/* In a control-network call this node's bound follows the call's least
 * end, which the nodes not yet in the call raise as they go: with lo the
 * least of their values, it published lo + bar (one's own next act is
 * its value less L, the call ends a barrier later, its bound is L after
 * that), which a node running at lo - L reaches after L + bar of its
 * clock.  It wants to be woken (to publish again) when a value passes
 * lo + bar, a latency before that node would have to wait for it. */
static uint64_t ms_cn_want(const uint64_t *v)
{
    uint64_t lo = MS_INF, e, end;
    uint32_t o;

    for (int j = 0; j < ms.n; j++)
        if (j != ms.me && ms_cn_of(j, &o, &e, &end) &&
            (int32_t)(o - ms_cn_k()) < 0 && v[j] < lo)
            lo = v[j];
    return ms_add(lo, (uint64_t)ms.p->bar);
}

/* Records as messages, a program waiting for its interrupt by rule: its
 * value follows from the others' (ms_bound), so it wants their records
 * as they pass the least of them, or due if sooner. */
static uint64_t ms_irq_want(uint64_t due)
{
    for (int j = 0; j < ms.n; j++) {
        uint64_t b;

        if (j == ms.me)
            continue;
        b = atomic_load_explicit(&ms.rec[j].bound, memory_order_acquire);
        if (b < due)
            due = b;
    }
    return due;
}

/* A node in a blocking wait takes the next packet once it is safe. */
static int ms_dispatch_jump(int mode)
{
    ms_ev_t e;

    ms_jitter();
    ms_publish_mode(mode);
    /* A completion callback runs inside the wait that took the packet
     * which completed it.  That wait takes one packet a pass and looks at
     * its condition between two; a packet taken here, inside the
     * callback, would be taken or not as it happened to be known by then
     * in real time.  A callback that polls takes, as a node that runs
     * does, what is due by its clock (its reads of the clock take
     * nothing: am_model.c, model_wtime). */
    if (cm5i_depth.cb_wait && cm5i_wait_level() < cm5i_depth.cb_wait)
        return ms_dispatch_run();
    if (mode == MS_CN) {
        uint64_t v[ms.n];

        ms_snapshot(v);
        if (!ms.nheap || ms.heap[0].due > ms_cn_least(v)) {
            ms_set_want(ms_cn_want(v));
            return 0;
        }
    }
    if (!ms.nheap) {
        if (ms.net && ms.irq_wait)
            ms_set_want(ms_irq_want(MS_INF));
        return 0;
    }
    if (!ms_safe(ms.heap[0].due, &ms.heap[0])) {
        ms_set_want(ms.net && ms.irq_wait ? ms_irq_want(ms.heap[0].due)
                                          : ms.heap[0].due);
        return 0;
    }
    {
        uint64_t want;

        if (!ms_notice_ready(&ms.heap[0], &want)) {
            ms_set_want(want);
            return 0;
        }
    }
    ms_set_want(MS_INF);
    ms_pop(&e);
    if (ms.v->clock < e.due)
        ms.v->clock = e.due;
    ms_run(&e);
    if (ms_after)
        ms_after();
    /* An interrupt: the program runs on from its handler, and waits by
     * rule again only after it has computed for the floor since its
     * delivery (am_model.c, model_irq_mark). */
    if (ms.irq_wait && cm5i_am_user_pending())
        ms.irq_wait = 0;
    /* The packet may have ended the wait: the node may run on from its
     * clock (the wait's bound is published again at its next step, which
     * it takes only if it still waits). */
    ms_publish_mode(mode == MS_CN ? mode : MS_RUN);
    return 1;
}

int cm5i_msync_dispatch(void)
{
    int mode, n;

    if (!cm5i_msync_on || ms.in_dispatch || ms.done)
        return 0;
    ms_ready();
    if (!ms.rec && ms.n > 1)
        return 0;  /* (start-up: the area comes with the first waits) */
    if (!ms.rec) { /* one node: nothing can come from elsewhere */
        ms_ev_t e;

        n = 0;
        while (ms.nheap) {
            ms_pop(&e);
            if (ms.v->clock < e.due)
                ms.v->clock = e.due;
            ms_run(&e);
            if (ms_after)
                ms_after();
            n++;
        }
        return n;
    }
    mode = ms_mode();
    /* The interrupt thread takes nothing for a program that runs on
     * (not waiting by rule): what came due by its clock during its last
     * call runs at its next call, whose cost comes first, or once it
     * waits by rule.  (Taken here, the same handler would run before or
     * after that cost as the two threads happened to meet.) */
    if (mode == MS_FROZEN || (mode == MS_RUN && cm5i_irq_thread())) {
        ms_publish_mode(mode);
        return 0;
    }
    ms.in_dispatch = 1;
    /* A receipt that could not run where its notice was taken (inside a
     * handler: model_bc_run) runs now, before anything later. */
    if (ms_after && !cm5i_depth.in_handler)
        ms_after();
    n = mode == MS_RUN ? ms_dispatch_run() : ms_dispatch_jump(mode);
    ms.in_dispatch = 0;
    return n;
}

/* ---- receipt beside the clock (cm5:bc=1, am_model.c) ---- */

uint64_t cm5i_msync_horizon(void)
{
    uint64_t self, fl, h = MS_INF;

    ms_ready();
    if (!ms.rec)
        return ms.n > 1 ? 0 : MS_INF; /* (start-up), one node */
    fl = ms_in_flight(&self); /* the counts before the values: ms_safe */
    {
        uint64_t v[ms.n];

        ms_snapshot(v);
        for (int j = 0; j < ms.n; j++)
            if (j != ms.me && v[j] <= h)
                h = v[j] ? v[j] - 1 : 0;
    }
    if (self != MS_INF && self - 1 < h)
        h = self ? self - 1 : 0;
    fl = ms_add(fl, ms.L);
    if (fl != MS_INF && fl - 1 < h)
        h = fl ? fl - 1 : 0;
    return h;
}

int cm5i_msync_top(uint64_t *due)
{
    if (!ms.nheap)
        return 0;
    *due = ms.heap[0].due;
    return 1;
}

void cm5i_msync_run_top(void)
{
    ms_ev_t e;

    ms_pop(&e);
    if (ms.v->clock < e.due)
        ms.v->clock = e.due;
    ms_run(&e);
}

void cm5i_msync_bc_publish(void) { ms_publish_mode(MS_RUN); }

void cm5i_msync_bc_own(uint64_t own) { ms.bc_own = own; }

uint64_t cm5i_msync_bc_next(void)
{
    uint64_t a = ms.bc_own;

    if (ms.nheap && ms.heap[0].due < a)
        a = ms.heap[0].due;
    return a;
}

/* One step of a wait for the others to pass want, the node running at
 * its clock (a receipt beside the clock, a placement on the links). */
static void ms_run_wait(uint64_t want, unsigned *spins)
{
    cm5i_progress_pull();
    ms_publish_mode(MS_RUN);
    ms_wait_step(MS_RUN, want, spins);
}

void cm5i_msync_bc_wait(uint64_t want, unsigned *spins)
{
    ms_run_wait(want, spins);
}

/* ---- the fat tree's shared links (cm5:lk=1) ---- */

cm5i_links_t *cm5i_msync_links(void)
{
    if (!cm5i_msync_on)
        return NULL;
    ms_ready();
    return ms.lk_on ? &ms.lk : NULL;
}

void cm5i_msync_link_turn(uint64_t c)
{
    uint64_t want = ms_add(c, ms.L), last;
    unsigned spins = 0;
    uint32_t node, n;
    ms_ev_t me;

    /* Every other node: nothing it sends is due before c + L, so it
     * takes no receipt before c (what it holds, or is sent, is due
     * later; it runs at a clock past c), or it may take one at c and
     * comes after this node (ms_safe's tie, this node as the source).
     * Not passed: a node in the next control-network operation, which
     * sends nothing before the operation ends but takes receipts
     * meanwhile, at their due times.  Meanwhile this node runs at c. */
    memset(&me, 0, sizeof(me));
    me.src = (uint32_t)ms.me;
    cm5i_progress_pull();
    ms_publish_mode(MS_RUN);
    while (!ms_safe_by(want, &me, 0))
        ms_run_wait(want, &spins);
    ms_jitter();
    last = atomic_load_explicit(&ms.lkh->last_clock, memory_order_acquire);
    node = atomic_load_explicit(&ms.lkh->last_node, memory_order_acquire);
    n = atomic_load_explicit(&ms.lkh->decisions, memory_order_acquire);
    if (n && (c < last || (c == last && (uint32_t)ms.me < node)))
        ms_violation("shared links: a receipt placed out of order "
                     "(after a later one's)",
                     (int)node, c, last);
    atomic_store_explicit(&ms.lkh->last_clock, c, memory_order_relaxed);
    atomic_store_explicit(&ms.lkh->last_node, (uint32_t)ms.me,
                          memory_order_relaxed);
    atomic_store_explicit(&ms.lkh->decisions, n + 1, memory_order_release);
    ms.lk.lo = c;
}

/* ---- interrupts ---- */

int cm5i_msync_irq_begin(void)
{
    if (!cm5i_msync_on || ms.done)
        return 0;
    ms_ready();
    if (!ms.rec)
        return 0;
    ms.irq_wait = 1;
    ms_publish_mode(MS_JUMP);
    ms_jitter();
    return 1;
}

int cm5i_msync_irq_waiting(void) { return ms.irq_wait; }

void cm5i_msync_irq_resume(void)
{
    if (!ms.irq_wait)
        return;
    ms_jitter();
    ms.irq_wait = 0;
    /* It let the others pass what it published as it waited (never
     * beyond what they could send it: ms_bound): it has waited until
     * then. */
    if (ms.published != MS_INF && ms.published > ms.L &&
        ms.v->clock < ms.published - ms.L)
        ms.v->clock = ms.published - ms.L;
}

void cm5i_msync_drain(uint64_t t)
{
    if (!cm5i_msync_on || ms.done)
        return;
    ms_ready();
    if (!ms.rec || ms.in_dispatch)
        return;
    ms.in_dispatch = 1;
    ms.cn_end = t; /* (its least end is now its end) */
    ms.draining = 1;
    ms_take_through(MS_CN, t, 0, 1);
    ms.draining = 0;
    ms.in_dispatch = 0;
}
