/*
 * Virtual time (CM5_MODEL, doc/model.md): every node keeps a virtual
 * clock that advances by the modelled CM-5's costs instead of the host's,
 * so a 32-node job on two cores shows the CM-5's timings and contention.
 *
 * - Packets carry their sender's virtual send time (cm5i_pkt_t.vt);
 *   a user active message costs its sender os and its receiver the
 *   network's latency, its input link's serialization and orr
 *   (am_model_calc.c does the arithmetic).
 * - A CMMD message or an scopy of n bytes is modelled as its 16-byte
 *   packets: its RTS carries the time its first packet left, the
 *   receiver charges the packets when the data has landed, and its FIN
 *   tells a sender that waits for the message when the last packet left.
 * - Control-network calls cost fixed figures: they end with every clock
 *   at the largest entry clock plus the cost, the entry clocks travelling
 *   in the barrier's packets (the other calls end with an internal
 *   barrier, in this mode only).
 * - Computation between runtime calls is charged from the thread's CPU
 *   time times CM5_MODEL_CPU_SCALE; stretches shorter than
 *   CM5_MODEL_CPU_FLOOR microseconds are not: a polling loop's turns, so
 *   that how often a node polls while it waits, which depends on the
 *   host's load, changes nothing, and the runtime's callers' few
 *   instructions between calls, whose CPU time is mostly the interrupts
 *   that land in them (20-330 us each on a virtual machine).
 *
 * The model is an observer of the core that keeps the node's clock
 * (am_event.h): the core names none of this file, and when the model is
 * off each event site costs one test of a flag.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "am_barrier.h"
#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_model.h"
#include "am_model_calc.h"
#include "am_model_sync.h"
#include "am_msg.h"
#include "am_packet.h"
#include "am_wait.h"
#include "am_util.h"
#include "am_wire.h"

#define MODEL_ROUNDS 32 /* barrier rounds (am_barrier.c) */
#define MODEL_RXQ 128   /* receipts kept in the schedule */

static int model_on; /* virtual time runs */

static const cm5i_observer_t model_observer;
static const cm5i_clock_t model_clock;
static void model_reach(uint64_t vt);

static struct {
    cm5i_model_params_t p;
    cm5i_vnode_t v;
    char spec[128];
    double scale;         /* CM5_MODEL_CPU_SCALE */
    uint64_t floor_ns;    /* CM5_MODEL_CPU_FLOOR: shorter stretches are free */
    uint64_t cpu_mark;    /* thread CPU time at the last runtime exit */
    uint64_t irq_mark;    /* main thread CPU time as the program ran on */
    int irq_spun;         /* it has waited by rule since its last call */
    clockid_t main_cpu;   /* the node's main thread's CPU clock */
    uint64_t charged;     /* what the outermost runtime entry charged */
    uint64_t irq_charged; /* ... of it, charged earlier by a wait by rule */
    uint64_t rx_vt;       /* stamp of the packet being dispatched */
    uint64_t cn_entry;    /* clock at the outermost control-network entry */
    uint64_t bar_val;     /* largest entry clock the barrier knows */
    uint64_t bar_cost;    /* what the barrier under way costs */
    int bar_seeded;       /* bar_val/bar_cost set by cm5i_model_cn_end */
    uint64_t host_seed;   /* node 0: the host's entry clock, for the
                             closing barrier of a host collective */
    uint64_t cn_last;     /* the end of the last closing barrier */
    int bar_untimed;      /* the barrier under way moves a host
                             collective's data (am_host.c): no clock */
    uint64_t bar_rx[2][MODEL_ROUNDS]; /* by epoch parity and round */
    /* The receipts of messages and scopies, in virtual-time order
     * (cm5i_model_rx_insert); the input is free from rx_base on before
     * the first. */
    cm5i_rxjob_t rxq[MODEL_RXQ];
    size_t rxn;
    size_t rx_unseen; /* receipts the program has not seen complete */
    uint64_t rx_base;
    uint64_t tx_fin;    /* latest FIN of a send (the last packet left) */
    int clock_read;     /* the program read its clock since the last probe */
    uint64_t left_at;   /* the clock the last runtime call left at */
    uint64_t split_end; /* a tested barrier's end, not yet seen (or NONE) */
    /* A loop of probes (model_probe): the program's outermost calls,
     * and at the last probe: that count, the clock it left, the packets
     * run; the empty probes in a row since. */
    uint64_t calls, pj_calls, pj_clock, pj_runs;
    unsigned pj_empty;
} model;

static uint64_t model_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The main thread's, read from the interrupt thread. */
static uint64_t model_main_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(model.main_cpu, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Interleaved receipt (doc/model.md): the receipts a busy node takes
 * together, the one whose notice runs first, then in the order of their
 * notices. */
typedef struct {
    cm5i_take_job_t j;
    uint64_t due;
    uint32_t src, ch, place;
    void *ref; /* the message (am_msg.c) */
} model_batch_t;

static struct {
    model_batch_t *v;
    size_t n, cap;
    uint64_t mx; /* a CMMD message's mx on the receiving side, now */
} batch;

static int model_notice(const cm5i_pkt_t *pkt)
{
    return cm5i_msg_notice(pkt, NULL, NULL, NULL, NULL);
}

static void model_bc_run(void);
static void model_bc_free(void);

cm5_status_t cm5i_model_setup(void)
{
    const char *spec = cm5i_config_str(CM5_ENV_MODEL);
    const char *scale = cm5i_config_str(CM5_ENV_MODEL_CPU_SCALE);
    const char *floor_us = cm5i_config_str(CM5_ENV_MODEL_CPU_FLOOR);
    const char *sync = cm5i_config_str(CM5_ENV_MODEL_SYNC);
    char err[160];
    int want;
    double f;
    int on;

    memset(&model, 0, sizeof(model));
    model_on = 0;
    if (cm5i_model_parse(spec, &on, &model.p, err, sizeof(err)) < 0) {
        cm5i_log(CM5I_LOG_ERROR, "model", "%s=%s: %s", CM5_ENV_MODEL, spec,
                 err);
        return CM5_ERR_INVALID;
    }
    if (cm5i_model_number(scale, &model.scale) < 0) {
        cm5i_log(CM5I_LOG_ERROR, "model",
                 "%s=%s: not a number >= 0 (0: computation is free)",
                 CM5_ENV_MODEL_CPU_SCALE, scale);
        return CM5_ERR_INVALID;
    }
    if (cm5i_model_number(floor_us, &f) < 0) {
        cm5i_log(CM5I_LOG_ERROR, "model",
                 "%s=%s: not a number of microseconds >= 0",
                 CM5_ENV_MODEL_CPU_FLOOR, floor_us);
        return CM5_ERR_INVALID;
    }
    model.floor_ns = (uint64_t)(f * 1000 + 0.5);
    if (strcmp(sync, "auto") == 0)
        want = -1;
    else if (strcmp(sync, "on") == 0)
        want = 1;
    else if (strcmp(sync, "off") == 0)
        want = 0;
    else if (strcmp(sync, "net") == 0)
        want = 2; /* on, the records as messages even on one host */
    else {
        cm5i_log(CM5I_LOG_ERROR, "model",
                 "%s=%s: expected auto, on, net or off", CM5_ENV_MODEL_SYNC,
                 sync);
        return CM5_ERR_INVALID;
    }
    if (!on)
        return CM5_OK;
    if (cm5i_msync_setup(&model.p, &model.v, want) < 0)
        return CM5_ERR_INVALID;
    if (model.p.lk && !cm5i_msync_on) {
        cm5i_log(CM5I_LOG_ERROR, "model",
                 "%s=%s: shared links (lk=1) need the nodes synchronised "
                 "(%s=on)",
                 CM5_ENV_MODEL, spec, CM5_ENV_MODEL_SYNC);
        return CM5_ERR_INVALID;
    }
    if (cm5i_msync_on) {
        cm5i_clock_orders = 1;
        /* interleaved receipt (doc/model.md; cm5:il=0); beside the
         * clock (bc=1) a notice needs no wait for the others: they join */
        if (model.p.il && !model.p.bc)
            cm5i_msync_set_notice(model_notice);
        if (model.p.bc)
            cm5i_msync_set_after(model_bc_run);
        cm5i_wait_prefer_doorbell();
        cm5i_wait_sleep_cap(1);
    }
    snprintf(model.spec, sizeof(model.spec), "%s", spec);
    model.bar_cost = (uint64_t)model.p.bar;
    model.split_end = CM5I_VT_NONE;
    model.cpu_mark = model_cpu_ns();
    if (pthread_getcpuclockid(pthread_self(), &model.main_cpu))
        model.main_cpu = CLOCK_THREAD_CPUTIME_ID;
    model.irq_mark = model.cpu_mark;
    model_on = 1;
    cm5i_observe(&model_observer, &model_clock);
    return CM5_OK;
}

void cm5i_model_started(void)
{
    if (!model_on)
        return;
    model.cpu_mark = model_cpu_ns();
    model.irq_mark = model.cpu_mark;
}

void cm5i_model_teardown(void)
{
    cm5i_msync_set_notice(NULL);
    cm5i_msync_set_after(NULL);
    cm5i_msync_teardown();
    free(batch.v);
    memset(&batch, 0, sizeof(batch));
    model_bc_free();
    cm5i_clock_orders = 0;
    cm5i_unobserve(&model_observer);
    model_on = 0;
    memset(&model, 0, sizeof(model));
}

const char *cm5_model(void)
{
    cm5i_ensure_init();
    return model_on ? model.spec : NULL;
}

/* ---- computation ---- */

/* The computation from cpu_mark to now (the main thread's CPU time),
 * when it passes the floor: charged to the clock.  Returns the charge. */
static uint64_t model_charge(uint64_t now)
{
    uint64_t d = now - model.cpu_mark, c = 0;

    /* The runtime's start-up (libfabric's, the exchange) is not the
     * program's computation: the CM-5's partition was up before main. */
    if (!cm5i_ctx.ready) {
        model.cpu_mark = now;
        return 0;
    }

    if (d >= model.floor_ns) {
        c = (uint64_t)((double)d * model.scale + 0.5);
        model.v.clock += c;
    }
    model.cpu_mark = now;
    return c;
}

static void model_call_enter(void)
{
    model.calls++;
    if (CM5I_UNLIKELY(cm5i_msync_on)) {
        cm5i_msync_irq_resume();
        __atomic_store_n(&model.irq_spun, 0, __ATOMIC_RELAXED);
    }
    /* (what a wait for an interrupt charged of the same stretch) */
    model.charged = model.irq_charged;
    model.irq_charged = 0;
    if (model.scale != 0)
        model.charged += model_charge(model_cpu_ns());
}

static void model_call_leave(void)
{
    if (cm5i_msync_on && model.v.clock != model.left_at) {
        model.left_at = model.v.clock;
        cm5i_msync_publish(); /* it runs on from there */
    }
    if (model.scale != 0)
        model.cpu_mark = model_cpu_ns();
}

/* ---- interrupts, synchronised ---- */

/* How long the program computes outside the runtime before it counts as
 * waiting for an interrupt (a shorter stretch is free and its end
 * decides, as at any runtime call).  After a runtime call: the floor, at
 * least MODEL_IRQ_FIRST_NS -- a wait by rule lets the others pass the
 * node by what they reach meanwhile in real time, which its clock takes
 * when it runs on, so a computation must not be taken for one:
 * cm5sched's stretches between calls, under 100 us of CPU on an idle
 * host, read up to 10 ms under load (doc/model.md, "Interrupts").  Once
 * it has waited by rule and a handler interrupted it (it spins on what
 * its handlers set, with no call): the floor, at least 100 us. */
#define MODEL_IRQ_FIRST_NS 50000000ull
static uint64_t model_irq_floor(void)
{
    uint64_t least = __atomic_load_n(&model.irq_spun, __ATOMIC_RELAXED)
                         ? 100000
                         : MODEL_IRQ_FIRST_NS;

    return model.floor_ns > least ? model.floor_ns : least;
}

/* The interrupt thread, owning the runtime while the program is outside
 * it (cm5i_clock_t.irq_idle): once the program has computed for the
 * floor since it ran on (model_irq_mark), it waits by rule, its
 * computation so far charged. */
static int model_irq_idle(void)
{
    uint64_t now;

    if (!model_on || !cm5i_msync_on)
        return 0;
    if (cm5i_msync_irq_waiting())
        return 1;
    /* An interrupt not yet delivered (the signal refused inside the C
     * library, asked again later): the program has not run on from it. */
    if (cm5i_am_user_pending())
        return 0;
    now = model_main_cpu_ns();
    if (now - model.irq_mark < model_irq_floor())
        return 0;
    /* What it computed is charged as at a runtime call (the interrupt
     * thread reads the main thread's CPU clock). */
    if (model.scale != 0)
        model.irq_charged += model_charge(now);
    if (!cm5i_msync_irq_begin())
        return 0;
    __atomic_store_n(&model.irq_spun, 1, __ATOMIC_RELAXED);
    return 1;
}

static int model_irq_watch_ms(void)
{
    uint64_t ms = model_irq_floor() / 1000000;

    return ms < 1 ? 1 : (int)ms;
}

static void model_irq_mark(void)
{
    if (model_on)
        model.irq_mark = model_main_cpu_ns();
}

static double model_wtime(void)
{
    CM5I_GUARD(); /* charges the computation since the last call */

    model.v.clock += (uint64_t)model.p.clk;
    model.clock_read = 1;
    /* Synchronised, interrupts on: what came due by the clock interrupts
     * the program here, as it would have on the CM-5 (a loop that reads
     * its clock makes no other call: lesson 5 of the course); not a
     * handler, nor a completion callback, which runs as one. */
    if (cm5i_msync_on && cm5i_irq_active && !cm5i_depth.in_handler &&
        !cm5i_depth.cn_hold && !cm5i_depth.cb_wait)
        cm5i_msync_dispatch();
    return (double)model.v.clock * 1e-9;
}

/* The computation since the last runtime call costs s (cm5_compute):
 * what the entry charged for it is taken back.  (Called from a handler
 * or a nested call, it only adds s.) */
static void model_compute(double s)
{
    CM5I_GUARD();

    if (cm5i_rt_depth == 1 && !cm5i_depth.in_handler)
        model.v.clock -= model.charged;
    model.charged = 0;
    model.v.clock += (uint64_t)(s * 1e9 + 0.5);
}

/* Synchronised, probes in a row that found nothing before a probe may
 * take several polls at once (doc/model.md, "Loops of probes"). */
#define MODEL_PJ_AFTER 64

static int model_probe(void)
{
    int r = model.clock_read;

    if (cm5i_msync_on) { /* a poll costs its time; the loop spins on it */
        uint64_t runs = cm5i_msync_runs();

        /* Empty: nothing between it and the last probe -- no other call
         * of the program's, no packet run, the clock where that probe's
         * turn left it (a computation charged, a clock read, a send all
         * move it). */
        if (!cm5i_probe_cn && model.calls == model.pj_calls + 1 &&
            model.v.clock == model.pj_clock && runs == model.pj_runs &&
            !cm5i_depth.in_handler && !cm5i_depth.cn_hold)
            model.pj_empty++;
        else
            model.pj_empty = 0;
        if (model.pj_empty >= MODEL_PJ_AFTER && model.p.pj > 1)
            cm5i_msync_probe_jump((uint64_t)model.p.poll, (uint64_t)model.p.pj);
        else
            model.v.clock += (uint64_t)model.p.poll;
        model.pj_calls = model.calls;
        model.pj_runs = runs;
        model.pj_clock = model.v.clock; /* (what its turn runs moves the
                                         * count of packets run) */
        return 1;
    }
    model.clock_read = 0;
    return r;
}

/* ---- packets ---- */

static void model_send(int ch, int node, cm5i_pkt_t *pkt)
{
    int user = pkt->type == CM5I_PKT_USER || pkt->type == CM5I_PKT_RPC;
    int promised = 0;

    (void)ch;
    if (pkt->type == CM5I_PKT_BARRIER) { /* the entry clocks seen so far */
        pkt->vt = model.bar_val;
    } else if (pkt->raw & CM5I_RAW_WORD) {
        /* (the word its send call gave it: cm5i_word_t) */
        promised =
            (pkt->raw & CM5I_RAW_KEPT) || pkt->type == CM5I_PKT_EAGER ||
            pkt->type == CM5I_PKT_CMA ||
            (pkt->type == CM5I_PKT_INTERNAL &&
             (pkt->obj == CM5I_INT_MSG_RTS || pkt->obj == CM5I_INT_SCOPY));
    } else if (!cm5i_depth.cn_hold && user)
        pkt->vt = cm5i_model_send(&model.p, &model.v, 1);
    else
        pkt->vt = CM5I_VT_NONE;
    if (!cm5i_msync_on)
        return;
    /* Synchronised, every packet the model orders carries a word: a
     * handler's sent inside a control-network call, a message's
     * clear-to-send; the control network's own stay unordered (none). */
    if (pkt->vt == CM5I_VT_NONE && cm5i_msync_orderable(pkt) &&
        (user || !cm5i_depth.cn_hold))
        pkt->vt =
            pkt->type == CM5I_PKT_INTERNAL && (pkt->obj == CM5I_INT_MSG_ACK ||
                                               pkt->obj == CM5I_INT_MSG_FIN)
                ? model.v.clock + (uint64_t)model.p.L
                : model.v.clock;
    cm5i_msync_sent(node, pkt, promised);
}

static void model_barrier_rx(uint32_t epoch, uint32_t round, uint64_t vt);

static void model_arrive(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch;
    model.rx_vt = pkt->vt;
    if (pkt->type == CM5I_PKT_BARRIER)
        model_barrier_rx(pkt->seq, pkt->arg[0], pkt->vt);
}

/* Charged when its handler runs: a packet held by a control-network call
 * or parked by a one-channel poll is taken after it, as on the CM-5. */
static void model_deliver(int ch, const cm5i_pkt_t *pkt)
{
    (void)ch;
    if (pkt->vt == CM5I_VT_NONE)
        return;
    cm5i_model_recv(&model.p, &model.v,
                    cm5i_model_level(pkt->src, cm5i_ctx.rank), pkt->vt, 1, 0);
    /* While interrupts are on, a CM-5 node took each arriving active
     * message as an interrupt (doc/model.md, "DRS_N's costs").
     * Synchronised only: the handler then runs in turn, so the charge is
     * the same on every run. */
    if (model.p.irq && cm5i_msync_on && cm5_interrupts_enabled() &&
        (pkt->type == CM5I_PKT_USER || pkt->type == CM5I_PKT_RPC))
        model.v.clock += (uint64_t)model.p.irq;
}

static uint64_t model_rx_word(void) { return model.rx_vt; }

/* ---- messages and scopy ---- */

/* A CMMD message's extra cost when its node has messages the other way
 * open (0: a send while a receive is posted; 1: a receipt while a send
 * is open): doc/model.md, "Both ways".  Synchronised only: without, a
 * receipt lands in real-time order, before or after its node's send
 * completes. */
static uint64_t model_mx(int receipt)
{
    if (model.p.mx == 0 || !cm5i_msync_on ||
        cm5i_msg_open(receipt ? 1 : 0) == 0)
        return 0;
    return (uint64_t)model.p.mx;
}

static uint64_t model_bulk_send(size_t len, int cmmd)
{
    uint64_t d0;

    if (cm5i_depth.cn_hold)
        return CM5I_VT_NONE; /* the control network's own */
    /* Synchronised (held senders), only the announcement leaves now, and
     * later than that if queued (an scopy's is its data's notice, which
     * the lane sends: model_push); the data when the node's processor
     * pushes it. */
    if (cm5i_msync_on && !cmmd)
        return model.v.clock;
    if (cmmd)
        model.v.clock += (uint64_t)model.p.ms + model_mx(0);
    d0 = cm5i_model_send(&model.p, &model.v,
                         cm5i_msync_on ? 1 : cm5i_model_packets(len));
    if (cm5i_msync_on)
        cm5i_msync_promise(d0 + (uint64_t)model.p.L);
    return d0;
}

/* Synchronised: the node's processor pushes len bytes' packets (held
 * senders, doc/model.md). */
static uint64_t model_push(size_t len, int phase)
{
    if (phase == 0) {
        cm5i_msync_promise(model.v.clock + (uint64_t)model.p.L);
        return model.v.clock;
    }
    model.v.clock += cm5i_model_packets(len) * (uint64_t)model.p.os;
    return model.v.clock;
}

/* The fat tree's shared links, when the receipts under way place their
 * packets there (cm5:lk=1; not the control network's own messages). */
static cm5i_links_t *model_links(void)
{
    return cm5i_depth.cn_hold ? NULL : cm5i_msync_links();
}

static void model_batch_job(int src, size_t len, int cmmd, cm5i_take_job_t *j)
{
    cm5i_links_t *lk = model_links();

    j->npk = cm5i_model_packets(len);
    j->q = cm5i_model_take_q(&model.p, cm5i_model_level(src, cm5i_ctx.rank));
    j->extra = cmmd ? (uint64_t)model.p.mr + batch.mx : 0;
    j->np = lk ? cm5i_links_path(lk, src, cm5i_ctx.rank, j->path) : 0;
}

/* Shared links (cm5:lk=1): a receipt whose packets cross a link of the
 * fat tree places them there in its turn (cm5i_msync_link_turn) at c, the
 * later of the node's clock and its notice's due time, before which none
 * of its packets is taken (the node's clock may be behind in a
 * control-network call, which takes packets without moving it; what the
 * node published is no later than the notice's due time plus L): the
 * links, or NULL when none of jobs[0..n) crosses one. */
static cm5i_links_t *model_links_turn(const cm5i_take_job_t *jobs, size_t n,
                                      uint64_t c)
{
    cm5i_links_t *lk = model_links();
    size_t k = 0;

    while (lk && k < n && jobs[k].np == 0)
        k++;
    if (!lk || k == n)
        return NULL;
    cm5i_msync_link_turn(c);
    return lk;
}

static void model_links_check(const cm5i_links_t *lk)
{
    if (lk && lk->overflow)
        cm5_fatal("cm5fab",
                  "virtual time: a receipt's packets reach more than %llu "
                  "ms past its start on the fat tree's links (their "
                  "calendar, cm5:lkb=%llu us: a longer bucket reaches "
                  "further; lk=0 shares no links)",
                  (unsigned long long)(lk->R * lk->B / 1000000),
                  (unsigned long long)(lk->B / 1000));
}

static void model_batch_add(const cm5i_pkt_t *pkt, uint64_t due, uint32_t src,
                            uint32_t ch, uint32_t place, void *arg)
{
    model_batch_t *b;
    int s, cmmd;
    size_t len;
    void *ref;

    (void)arg;
    if (!cm5i_msg_notice(pkt, &s, &len, &cmmd, &ref))
        return;
    if (batch.n == batch.cap)
        batch.v = cm5i_msync_grow(batch.v, &batch.cap, 16, sizeof(*batch.v));
    b = &batch.v[batch.n++];
    memset(b, 0, sizeof(*b));
    model_batch_job(s, len, cmmd, &b->j);
    b->due = due;
    b->src = src;
    b->ch = ch;
    b->place = place;
    b->ref = ref;
}

static int model_batch_cmp(const void *pa, const void *pb)
{
    const model_batch_t *a = pa, *b = pb;

    if (a->due != b->due)
        return a->due < b->due ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->ch != b->ch)
        return a->ch < b->ch ? -1 : 1;
    return (int32_t)(a->place - b->place) < 0 ? -1 : 1;
}

/* Receipt beside the clock (cm5:bc=1, doc/model.md): a receipt under
 * way, its messages' packets taken one of each in turn, in the order
 * they joined; a packet at a time, the node takes between two what came
 * due by then (an announcement answered, a notice whose receipt joins). */
typedef struct {
    cm5i_take_job_t j;
    uint64_t rem; /* packets left */
    uint64_t arr; /* when its first packet came (its notice's start + L) */
    void *ref;    /* the message */
} model_bc_job_t;

static struct {
    model_bc_job_t *v;
    size_t n, cap, next; /* next: the job whose packet is next */
    int active;          /* running (model_bc_run) */
    uint64_t x0;         /* when the first of them could begin */
    uint64_t y;          /* where it would be had nothing else run */
} bc;

/* The receipt under way, its next packet taken at x: tell the
 * synchronisation when its first message can end at the earliest (the
 * start of its last packet: its acknowledgement is L later, its user's
 * callback runs then).  Taken a packet of each in turn from bc.next on,
 * job k's last packet comes after r_k - 1 of its own and, of each
 * other's, min(r_i, r_k) from those before it in the turn and
 * min(r_i, r_k - 1) from those after; a message that joins later or a
 * job's extra only puts it later. */
static void model_bc_reown(uint64_t x)
{
    uint64_t first = UINT64_MAX;

    for (size_t k = 0; k < bc.n; k++) {
        size_t pk = (k + bc.n - bc.next) % bc.n;
        uint64_t rk = bc.v[k].rem, t = x + (rk - 1) * bc.v[k].j.q;

        for (size_t i = 0; i < bc.n; i++) {
            size_t pi = (i + bc.n - bc.next) % bc.n;
            uint64_t c = pi < pk ? rk : rk - 1;

            if (i == k)
                continue;
            if (c > bc.v[i].rem)
                c = bc.v[i].rem;
            t += c * bc.v[i].j.q;
        }
        if (t < first)
            first = t;
    }
    cm5i_msync_bc_own(bc.n ? first : 0);
}

static void model_bc_add(int src, uint64_t arr, size_t len, int cmmd, void *ref)
{
    model_bc_job_t *b;

    if (bc.n == bc.cap)
        bc.v = cm5i_msync_grow(bc.v, &bc.cap, 16, sizeof(*bc.v));
    b = &bc.v[bc.n++];
    memset(b, 0, sizeof(*b));
    batch.mx = model_mx(1);
    model_batch_job(src, len, cmmd, &b->j);
    b->rem = b->j.npk ? b->j.npk : 1;
    b->arr = arr;
    b->ref = ref;
}

/* The next packet, taken from x on (bc.y moves with it): its job's last one
 * ends the job, which is acknowledged with the time it was taken plus L (the
 * node published no more than that: a latency past its clock, which is at most
 * x); the acknowledgement is promised now, sent by its message. */
static int model_bc_packet(uint64_t *x)
{
    model_bc_job_t *b = &bc.v[bc.next];
    uint64_t t = *x, sq = cm5i_model_switch_q(&model.p, bc.n);
    uint64_t q = b->j.q > sq ? b->j.q : sq; /* (switching between them) */

    *x += q;
    bc.y += q;
    if (--b->rem) {
        bc.next = (bc.next + 1) % bc.n;
        return 0;
    }
    *x += b->j.extra;
    bc.y += b->j.extra;
    b->j.ack = t + (uint64_t)model.p.L;
    b->j.end = *x;
    cm5i_msync_promise(b->j.ack);
    cm5i_msg_took(b->ref, b->j.ack, b->j.end);
    memmove(b, b + 1, (bc.n - bc.next - 1) * sizeof(*b));
    bc.n--;
    if (bc.next >= bc.n)
        bc.next = 0;
    return 1;
}

static void model_bc_free(void)
{
    free(bc.v);
    memset(&bc, 0, sizeof(bc));
}

/* A data notice's turn: its receipt joins the one under way, or begins
 * one, which runs once the notice's own work is done (model_bc_run).
 * Its words come when it ends (cm5i_msg_took). */
static uint64_t model_bc_take(int src, uint64_t start, size_t len, int cmmd,
                              void *ref, uint64_t *end)
{
    uint64_t due = start + (uint64_t)model.p.L;

    if (!bc.n) {
        bc.next = 0;
        bc.x0 = model.v.clock > due ? model.v.clock : due;
    }
    model_bc_add(src, due, len, cmmd, ref);
    if (bc.active) /* (else model_bc_run computes it as it begins) */
        model_bc_reown(model.v.clock);
    *end = CM5I_VT_NONE;
    return CM5I_VT_NONE;
}

/* What the others must pass before a receipt's next packet, taken at x,
 * which came at need (<= x): need itself if sooner than x; else the
 * node's next act (the first end of a message, or the packet it holds
 * first), if later than x. */
static uint64_t model_bc_goal(uint64_t x, uint64_t need)
{
    uint64_t a = cm5i_msync_bc_next();

    if (need < x)
        return need;
    return a > x ? a : x;
}

/* When the next packet of the receipt came to the node's input: no
 * sooner than its sender's data could (from its notice's start, a
 * packet every q), and as the receipt takes them, since the network
 * holds the rest back: where the receipt would be had the node run
 * nothing else between its packets (bc.y; what it ran pushed its clock
 * on, not the packets' places). */
static uint64_t model_bc_arrival(void)
{
    const model_bc_job_t *b = &bc.v[bc.next];
    uint64_t tot = b->j.npk ? b->j.npk : 1;
    uint64_t a = b->arr + (tot - b->rem) * b->j.q;

    return a > bc.y ? a : bc.y;
}

/* After a packet's turn: the receipt under way runs to its end, a packet
 * at a time, taking between two what came due by then (which may join
 * it), each packet once nothing that came before it can still come.
 * The node's input is in order of arrival: a packet that came at a,
 * taken at x > a (the processor was busy), goes before what came after
 * a (before x), and needs only what is due before a to be in. */
static void model_bc_run(void)
{
    uint64_t x, h = 0, top;
    unsigned spins = 0;

    /* (Not inside a handler, where its acknowledgements could not be
     * sent and its wait for the others might not end: the next dispatch
     * outside runs it.) */
    if (!bc.n || bc.active || cm5i_depth.in_handler)
        return;
    bc.active = 1;
    x = model.v.clock > bc.x0 ? model.v.clock : bc.x0;
    bc.y = x;
    model_bc_reown(x);
    while (bc.n) {
        uint64_t a = model_bc_arrival(), need = a < x ? a : x;

        model.v.clock = x;
        if (h < need)
            h = cm5i_msync_horizon();
        if (h < need) { /* something due before the packet may still come */
            /* What it does before its next act (a message ends, a
             * packet it holds runs) the others do not see (its bound
             * stays): it waits until they pass that act, then runs to
             * it at once, rather than a packet at a time.  (A packet
             * that came before x needs only what came before it.) */
            uint64_t goal = model_bc_goal(x, need), g;

            do {
                cm5i_msync_bc_wait(goal, &spins);
                h = cm5i_msync_horizon();
                g = model_bc_goal(x, need); /* (a packet came) */
                if (g < goal)
                    goal = g;
            } while (h < goal);
        }
        spins = 0;
        if (cm5i_msync_top(&top) && top <= x && (a >= x || top < a)) {
            cm5i_msync_run_top(); /* between two packets */
            if (model.v.clock > x) {
                x = model.v.clock;
                model_bc_reown(x); /* (its messages end later) */
            }
            h = 0; /* what it sent comes back: ask again */
            continue;
        }
        if (model_bc_packet(&x)) {
            model_bc_reown(x);
            cm5i_progress_run_deferred(); /* its acknowledgement */
            h = 0;
        }
        model.v.clock = x;
        cm5i_msync_bc_publish(); /* the others wait for it to move */
    }
    model.v.clock = x;
    bc.active = 0;
    cm5i_msync_bc_own(0);
}

/* Synchronised: the node's processor takes a receipt whose data's
 * notice (word start) it takes now: alone when it was idle, else, for a
 * data notice (others), with every other whose notice came while it was
 * busy (the synchronisation waited until they all had:
 * cm5i_msync_set_notice), their packets interleaved (doc/model.md,
 * "Interleaved receipt"); an scopy's announcement, whose turn did not
 * wait for them, alone. */
static uint64_t model_bulk_take(int src, uint64_t start, size_t len, int cmmd,
                                int others, void *ref, uint64_t *end)
{
    uint64_t left, ack, due = start + (uint64_t)model.p.L;
    uint64_t c = model.v.clock > due ? model.v.clock : due;
    cm5i_take_job_t *jobs;
    cm5i_links_t *lk;

    if (cm5i_msync_on && others && model.p.bc && !cm5i_depth.cn_hold)
        return model_bc_take(src, start, len, cmmd, ref, end);

    batch.n = 0;
    batch.mx = model_mx(1);
    if (cm5i_msync_on && others && model.p.il)
        cm5i_msync_peek(c, model_batch_add, NULL);
    if (batch.n == 0) {
        cm5i_take_job_t j;

        model_batch_job(src, len, cmmd, &j);
        lk = model_links_turn(&j, 1, c);
        *end = cm5i_model_take_lk(
            &model.p, &model.v, cm5i_model_level(src, cm5i_ctx.rank), lk,
            j.path, j.np, start, cm5i_model_packets(len),
            cmmd ? (uint64_t)model.p.mr + batch.mx : 0, &left, &ack);
        model_links_check(lk);
        cm5i_msync_promise(ack);
        return ack;
    }
    qsort(batch.v, batch.n, sizeof(*batch.v), model_batch_cmp);
    jobs = malloc((batch.n + 1) * sizeof(*jobs));
    if (!jobs)
        cm5_fatal("cm5fab", "virtual time: out of memory");
    model_batch_job(src, len, cmmd, &jobs[0]);
    for (size_t k = 0; k < batch.n; k++)
        jobs[k + 1] = batch.v[k].j;
    lk = model_links_turn(jobs, batch.n + 1, c);
    cm5i_model_take_batch_lk(&model.p, &model.v, c, lk, jobs, batch.n + 1);
    model_links_check(lk);
    for (size_t k = 0; k < batch.n; k++) {
        cm5i_msync_promise(jobs[k + 1].ack);
        cm5i_msg_took(batch.v[k].ref, jobs[k + 1].ack, jobs[k + 1].end);
    }
    cm5i_msync_promise(jobs[0].ack);
    *end = jobs[0].end;
    ack = jobs[0].ack;
    free(jobs);
    batch.n = 0;
    return ack;
}

/* The schedule is full: forget its older half (later receipts that
 * would have come before them are served after them). */
static void model_rx_trim(void)
{
    size_t half = MODEL_RXQ / 2;

    for (size_t i = 0; i < half; i++)
        model.rx_unseen -= !model.rxq[i].seen;
    model.rx_base = model.rxq[half - 1].end;
    memmove(model.rxq, model.rxq + half,
            (model.rxn - half) * sizeof(*model.rxq));
    model.rxn -= half;
}

/* A message's data has landed: its receipt joins the node's schedule, in
 * virtual-time order, on the receiving side only (a CMMD message's data
 * leaves after the rendezvous with the receive posted at post); the node's own
 * clock meets it when the program sees the message complete
 * (cm5i_model_msg_seen), or now when its completion runs user code (join:
 * a callback, an rport's handler).  *end: when the node has it. */
static uint64_t model_bulk_landed(int src, uint64_t d0, uint64_t post,
                                  size_t len, int cmmd, int join, uint64_t *end)
{
    cm5i_rxjob_t j;
    size_t at;

    *end = CM5I_VT_NONE;
    if (d0 == CM5I_VT_NONE)
        return CM5I_VT_NONE;
    /* Synchronised, the node answers the announcement when it takes it,
     * at its clock: the data cannot leave before (and the answer's word,
     * when the data has left, is then never before this node's bound). */
    if (cm5i_msync_on && post < model.v.clock)
        post = model.v.clock;
    if (model.rxn == MODEL_RXQ)
        model_rx_trim();
    cm5i_model_rx_job(&model.p, cm5i_model_level(src, cm5i_ctx.rank), d0,
                      cmmd ? cm5i_model_rendezvous(&model.p, d0, post) : d0,
                      cm5i_model_packets(len),
                      cmmd ? model.p.mr + (int64_t)model_mx(1) : 0, src, &j);
    j.seen = join;
    model.rx_unseen += !join;
    at = cm5i_model_rx_insert(model.rxq, model.rxn++, model.rx_base, &j);
    *end = model.rxq[at].end;
    if (join)
        model_reach(*end);
    /* Synchronised, the acknowledgement's word is when it is due at the
     * sender, never before this node's bound: an scopy's sender, which
     * no rendezvous holds, learns that its data left when the receiver
     * has taken it (doc/model.md, "Synchronisation"). */
    if (cm5i_msync_on && model.rxq[at].left < model.v.clock + model.p.L)
        return model.v.clock + (uint64_t)model.p.L;
    return model.rxq[at].left;
}

/* The schedule is complete (no receive is posted) and the program has
 * seen every receipt in it: its clock reaches the last, and the schedule
 * closes.  (What the program saw earlier may have ended later since:
 * a receipt that landed after it, in real time, came first in virtual
 * time; the final schedule is the same on every run.) */
static void model_rx_close(void)
{
    if (model.rxn) {
        model.rx_base = model.rxq[model.rxn - 1].end;
        model.rxn = 0;
    }
    model.rx_unseen = 0;
    model_reach(model.rx_base);
}

/* The program sees a received message complete: its clock reaches the
 * receipt's end as the schedule has it now (end: as it had it when the
 * message landed, if the receipt has left the schedule); none: no other
 * receive is posted. */
static void model_bulk_seen(int src, uint64_t d0, uint64_t end, int none)
{
    for (size_t i = model.rxn; i-- > 0;)
        if (model.rxq[i].d0 == d0 && model.rxq[i].src == src) {
            end = model.rxq[i].end;
            if (!model.rxq[i].seen) {
                model.rxq[i].seen = 1;
                model.rx_unseen--;
            }
            break;
        }
    model_reach(end);
    if (none && model.rx_unseen == 0)
        model_rx_close();
}

static void model_bulk_fin(uint64_t vt)
{
    if (vt != CM5I_VT_NONE && vt > model.tx_fin)
        model.tx_fin = vt;
}

/* The program sees that none of its receives (sends) is left: its clock
 * reaches the end of every receipt (the last FIN); the schedule is
 * complete and closes. */
static void model_bulk_all_seen(int sends)
{
    if (sends)
        model_reach(model.tx_fin);
    else
        model_rx_close();
}

static void model_reach(uint64_t vt)
{
    if (vt != CM5I_VT_NONE && vt > model.v.clock)
        model.v.clock = vt;
}

/* ---- control network ---- */

static uint64_t model_now(void) { return model.v.clock; }

static uint64_t model_cn_price(cm5i_cn_kind_t kind, size_t n)
{
    return cm5i_model_cn_cost(&model.p, kind, n);
}

static void model_cn_enter(void)
{
    model.cn_entry = model.v.clock;
    cm5i_msync_cn_enter();
}

static void model_cn_end(cm5i_cn_kind_t kind, size_t n)
{
    uint64_t cost = cm5i_model_cn_cost(&model.p, kind, n);

    if (cm5i_depth.cn_hold != 1 || cm5i_ctx.finalizing)
        return; /* inside another control-network call */
    if (cm5i_barrier_open() || cm5i_depth.in_handler) {
        /* (a split-phase barrier is open: no clocks to compare) */
        model.cn_last = model.cn_entry + cost;
        if (model.host_seed + cost > model.cn_last)
            model.cn_last = model.host_seed + cost;
        model.host_seed = 0;
        if (model.cn_last > model.v.clock)
            model.v.clock = model.cn_last;
        return;
    }
    model.bar_val = model.cn_entry;
    if (model.host_seed > model.bar_val)
        model.bar_val = model.host_seed;
    model.host_seed = 0;
    model.bar_cost = cost;
    model.bar_seeded = 1;
    if (cm5_barrier() != CM5_OK)
        cm5_fatal("cm5fab", "virtual time: the closing barrier failed");
}

static void model_barrier_start(void)
{
    /* The nodes' barrier inside a host collective is a step of it, not
     * its end (host_close closes it, with a seeded barrier). */
    model.bar_untimed = !model.bar_seeded && cm5i_host_moving;
    if (!model.bar_seeded) {
        model.bar_val = model.v.clock;
        model.bar_cost = (uint64_t)model.p.bar;
    }
    model.bar_seeded = 0;
}

static void model_barrier_rx(uint32_t epoch, uint32_t round, uint64_t vt)
{
    uint64_t *s;

    if (round >= MODEL_ROUNDS || vt == CM5I_VT_NONE)
        return;
    s = &model.bar_rx[epoch & 1][round];
    if (vt > *s)
        *s = vt;
}

static void model_barrier_round(uint32_t epoch, int round)
{
    uint64_t *s = &model.bar_rx[epoch & 1][round];

    if (*s > model.bar_val)
        model.bar_val = *s;
    *s = 0;
}

static void model_barrier_done(void)
{
    uint64_t end = model.bar_val + model.bar_cost;

    if (cm5i_msync_on && cm5i_msync_is_done())
        return; /* (records as messages: the barrier after the last) */
    if (model.bar_untimed) {
        model.bar_untimed = 0;
        return;
    }
    model.cn_last = end;

    /* Synchronised, a split-phase barrier that a test saw end is seen
     * in its turn (model_split_turn). */
    if (cm5i_msync_on && !cm5i_barrier_waits && !cm5i_ctx.finalizing) {
        model.split_end = end;
        return;
    }
    /* Synchronised, what came during the call runs first, in its turn,
     * from the clock the node waited at, as what it took before the
     * call ended did. */
    if (cm5i_msync_on)
        cm5i_msync_drain(end);
    if (end > model.v.clock)
        model.v.clock = end;
    /* Past the exit barrier the node sends nothing (with a host program,
     * past the exit's host collective: model_host_close). */
    if (cm5i_msync_on && cm5i_ctx.finalizing && cm5i_ctx.host < 0)
        cm5i_msync_done();
}

/* ---- host collectives (am_host.c) ----
 * A host collective is one control-network operation of the nodes and
 * the host (doc/model.md, "The host program"): it ends, for each of them,
 * at the latest of their entry clocks plus its price.  The host tells
 * node 0 its entry, node 0 seeds the nodes' closing barrier with it and
 * tells the host the end. */

static uint64_t model_host_entry(cm5i_cn_kind_t kind, size_t n)
{
    cm5i_msync_cn_price(cm5i_model_cn_cost(&model.p, kind, n));
    return model.cn_entry;
}

static void model_host_seed(uint64_t w)
{
    if (w != CM5I_VT_NONE)
        model.host_seed = w;
}

static uint64_t model_cn_last(void) { return model.cn_last; }

static void model_host_close(uint64_t end)
{
    if (cm5i_ctx.finalizing) {
        if (cm5i_msync_on)
            cm5i_msync_done(); /* past the exit barrier: nothing more */
        return;
    }
    cm5i_msync_host_end(end);
    if (cm5i_ctx.rank != cm5i_ctx.host)
        return; /* (the nodes' closing barrier brought them there) */
    /* What came during the call runs first, in its turn (as the nodes'
     * closing barrier does, model_barrier_done). */
    if (cm5i_msync_on)
        cm5i_msync_drain(end);
    if (end != CM5I_VT_NONE && end > model.v.clock)
        model.v.clock = end;
}

static int model_split_turn(int done)
{
    uint64_t end = model.split_end;

    if (!cm5i_msync_on)
        return done != 0;
    if (done == 2) { /* cm5_barrier_finish */
        if (end != CM5I_VT_NONE) {
            cm5i_msync_drain(end);
            model_reach(end);
            model.split_end = CM5I_VT_NONE;
        }
        return 1;
    }
    if (done) {
        if (end != CM5I_VT_NONE && end > model.v.clock)
            return 0;
        model.split_end = CM5I_VT_NONE;
        return 1;
    }
    return cm5i_msync_cn_after(model.v.clock) ? 0 : -1;
}

static int model_cn_turn(int known, uint64_t end)
{
    if (known)
        return end <= model.v.clock;
    return cm5i_msync_cn_after(model.v.clock) ? 0 : -1;
}

/* ---- the observer ---- */

static const cm5i_observer_t model_observer = {
    .call_enter = model_call_enter,
    .call_leave = model_call_leave,
    .send = model_send,
    .arrive = model_arrive,
    .deliver = model_deliver,
    .probe = model_probe,
    .cn_enter = model_cn_enter,
    .cn_end = model_cn_end,
    .barrier_start = model_barrier_start,
    .barrier_round = model_barrier_round,
    .barrier_done = model_barrier_done,
};

static const cm5i_clock_t model_clock = {
    .now = model_now,
    .rx_word = model_rx_word,
    .reach = model_reach,
    .cn_price = model_cn_price,
    .bulk_send = model_bulk_send,
    .bulk_landed = model_bulk_landed,
    .bulk_seen = model_bulk_seen,
    .bulk_fin = model_bulk_fin,
    .bulk_all_seen = model_bulk_all_seen,
    .push = model_push,
    .bulk_take = model_bulk_take,
    .take = cm5i_msync_take,
    .dispatch = cm5i_msync_dispatch,
    .split_turn = model_split_turn,
    .cn_turn = model_cn_turn,
    .irq_idle = model_irq_idle,
    .irq_watch_ms = model_irq_watch_ms,
    .irq_mark = model_irq_mark,
    .host_entry = model_host_entry,
    .host_seed = model_host_seed,
    .cn_last = model_cn_last,
    .host_close = model_host_close,
};

/* The program's clock: virtual time's when the model runs, else the
 * real one. */
double cm5_wtime(void)
{
    if (CM5I_UNLIKELY(model_on))
        return model_wtime();
    return cm5_rtime();
}

cm5_status_t cm5_compute(double seconds)
{
    if (!(seconds >= 0) || !isfinite(seconds))
        return CM5_ERR_INVALID;
    if (CM5I_UNLIKELY(model_on))
        model_compute(seconds);
    return CM5_OK;
}
