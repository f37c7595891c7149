/*
 * libFuzzer target: what received packets can do to a node.
 *
 * The packet path (am/am_packet.c, am_flow.c, am_progress.c, am_barrier.c,
 * am_poll.c, with am_guard.c, am_event.c, am_model*.c and am_handler.c) is
 * linked from libcm5am_fuzz.a, the library's objects built for the
 * fuzzer; the fabric, the waits and the rest of the runtime are not in it:
 * their symbols are defined here instead (link-time substitution), and
 * the handler decoder is wrapped (ld --wrap).  The node is node 1 of a
 * 4-node job with 8 credits.  An input is a script of operations (see
 * fuzz_step): deliver a packet, run progress (whose poll hands over the
 * next packets of the input), enter or leave a control-network call, park
 * a channel, enter a handler, flush credits, send.  User handlers are
 * resolved by the real am_handler.c but never called: a stub runs
 * instead, and may reply.
 *
 * Besides the sanitizers, each step checks that a packet the node drops
 * (shorter than 56 bytes, a body of the wrong length, another job's key,
 * a source outside the job, an unknown type) changes nothing but the
 * drop count (the modules' state digests, the parked packets, the
 * handlers run), and that every handler the decoder accepts is
 * executable code of a loaded object.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am_barrier.h"
#include "am_config.h"
#include "am_ctx.h"
#include "am_flow.h"
#include "am_guard.h"
#include "am_handler.h"
#include "am_irq.h"
#include "am_packet.h"
#include "am_poll.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

/* ld --wrap: the library's calls of the decoder come here. */
void *__real_cm5i_handler_decode(cm5i_href_t ref);
void *__real_cm5i_handler_decode_raw(cm5i_href_t ref);
void *__wrap_cm5i_handler_decode(cm5i_href_t ref);
void *__wrap_cm5i_handler_decode_raw(cm5i_href_t ref);

#define NODES 4
#define CREDITS 8
#define RANK 1
#define KEY 0x5eed5eed5eed5eedull

static jmp_buf fuzz_out; /* cm5_fatal and endless waits land here */
static const uint8_t *in, *in_end;
static uint64_t user_calls, internal_calls, sends, rx_calls;
static int cn_held; /* in a control-network call */

/* ---- stubs of the rest of the runtime --------------------------------- */

cm5i_ctx_t cm5i_ctx;

void cm5_fatal(const char *call, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap); /* the arguments must fit */
    va_end(ap);
    (void)call;
    longjmp(fuzz_out, 1);
}

void cm5i_log(int level, const char *subsys, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    (void)level, (void)subsys;
}

const char *cm5_bootstrap(void) { return "single"; }
int cm5_interrupts_enabled(void) { return 0; }
const char *cm5_status_string(cm5_status_t st) { return st ? "error" : "ok"; }
double cm5_rtime(void) { return 0; }
void cm5i_doorbell_ring(int node) { (void)node; }
void cm5i_doorbell_wake(int node) { (void)node; }
void cm5i_exit_hook(void) { cm5i_ctx.exit_hooked = 1; }
cm5_doorbell_job_t *cm5i_wait_job(void) { return NULL; }
int cm5i_fab_via_ring(const cm5i_fab_t *fab, int node)
{
    (void)fab, (void)node;
    return 0;
}
int cm5i_fab_lost_node(const cm5i_fab_t *fab)
{
    (void)fab;
    return -1;
}
void cm5i_irq_deliver(void) { cm5i_irq_pending = 0; }
void cm5i_irq_acquire(void) {}
void cm5i_irq_leave(void) { cm5i_irq_pending = 0; }
void cm5i_lazy_init(void) { cm5i_ctx.ready = 1; }
const char *cm5i_config_str(const char *name)
{
    (void)name;
    return "8";
}
void cm5i_config_error(const char *fmt, ...) { (void)fmt; }
size_t cm5i_fab_rx_loss_window(const cm5i_fab_t *fab)
{
    (void)fab;
    return 0;
}
const char *cm5i_fab_provider(const cm5i_fab_t *fab)
{
    (void)fab;
    return "x";
}
void cm5i_waiter_init(cm5i_waiter_t *w) { memset(w, 0, sizeof(*w)); }
void cm5i_waiter_start(cm5i_waiter_t *w, int what)
{
    memset(w, 0, sizeof(*w));
    w->what = what;
}
void cm5i_waiter_end(cm5i_waiter_t *w) { w->begun = 0; }
void cm5i_wait_watch(const _Atomic uint32_t *word, uint32_t val)
{
    (void)word, (void)val;
}
void cm5i_wait_unwatch(void) {}
uint64_t cm5i_traffic_tx, cm5i_traffic_rx;
/* The modules' counts, summed by the oracle as cm5_stats sums them. */
static const cm5_stats_t *parts[16];
static int nparts;
void cm5i_stats_part(const cm5_stats_t *part)
{
    for (int i = 0; i < nparts; i++)
        if (parts[i] == part)
            return;
    if (nparts == (int)(sizeof(parts) / sizeof(*parts)))
        abort();
    parts[nparts++] = part;
}

static uint64_t stats_sum(size_t off)
{
    uint64_t n = 0;

    for (int i = 0; i < nparts; i++)
        n += *(const uint64_t *)((const char *)parts[i] + off);
    return n;
}
#define STAT(field) stats_sum(offsetof(cm5_stats_t, field))

static int next_byte(void) { return in < in_end ? *in++ : -1; }

/* The next packet of the input, with this job's key unless the first
 * byte's low bit asks for the input's own (so that the fuzzer need not
 * guess a 64-bit key, and still tries others). */
static int next_packet(cm5i_pkt_t *pkt)
{
    int k = next_byte();
    size_t n = (size_t)(in_end - in);

    if (k < 0)
        return 0;
    memset(pkt, 0, sizeof(*pkt));
    memcpy(pkt, in, n < sizeof(*pkt) ? n : sizeof(*pkt));
    in += n < sizeof(*pkt) ? n : sizeof(*pkt);
    if (!(k & 1))
        pkt->key = KEY;
    return 1;
}

static void rx_checked(int ch, const void *buf, size_t len);

int cm5i_fab_poll(cm5i_fab_t *fab, int ch, cm5i_fab_rx_func_t cb, void *arg)
{
    int n = next_byte(), got = 0;
    cm5i_pkt_t pkt;

    (void)fab, (void)cb, (void)arg;
    for (n = n < 0 ? 0 : n % 4; n > 0 && next_packet(&pkt); n--, got++)
        rx_checked(ch, &pkt, sizeof(pkt));
    return got;
}

cm5_status_t cm5i_fab_send(cm5i_fab_t *fab, int ch, int node, const void *buf,
                           size_t len)
{
    (void)fab, (void)ch, (void)buf;
    if (node < 0 || node >= NODES || len != sizeof(cm5i_pkt_t))
        abort();
    sends++;
    return next_byte() == 0xa5 ? CM5_ERR_AGAIN : CM5_OK;
}

/* A wait makes progress with what the input still holds; one that would
 * wait past its end would wait for ever here. */
void cm5i_wait_step(cm5i_waiter_t *w, int chmask)
{
    (void)w;
    if (in >= in_end)
        longjmp(fuzz_out, 2);
    cm5i_progress(chmask);
}

/* A probe (cm5_barrier_test, ...) is one pass; it never waits here. */
void cm5i_probe_progress(void) { cm5i_progress(CM5I_CH_ALL); }
int cm5i_probe_cn;
void cm5i_probe_progress_cn(void) { cm5i_progress(CM5I_CH_ALL); }

/* ---- handlers ---------------------------------------------------------- */

static void fuzz_user(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    (void)a2, (void)a3;
    user_calls++;
    /* A request handler may reply (and wait for a credit to do it). */
    if ((a0 & 3) == 1 && cm5i_depth.in_req_handler)
        cm5_am_reply((int)(a1 % NODES), fuzz_user, a0 >> 2, 0, 0, 0);
}

static void fuzz_internal(int src, const uint32_t *arg)
{
    (void)arg;
    if (src < 0 || src >= NODES)
        abort();
    internal_calls++;
}

/* Code the real decoder accepts must be executable code of an object. */
static void *fuzz_accept(void *fp)
{
    Dl_info info;

    if (!fp)
        return NULL;
    if (!dladdr(fp, &info) || !info.dli_fbase)
        abort();
    return (void *)fuzz_user;
}

void *__wrap_cm5i_handler_decode(cm5i_href_t ref)
{
    return fuzz_accept(__real_cm5i_handler_decode(ref));
}

void *__wrap_cm5i_handler_decode_raw(cm5i_href_t ref)
{
    return fuzz_accept(__real_cm5i_handler_decode_raw(ref));
}

/* ---- the node ---------------------------------------------------------- */

static void node_reset(void)
{
    memset(&cm5i_ctx, 0, sizeof(cm5i_ctx));
    cm5i_ctx.ready = 1;
    cm5i_ctx.rank = RANK;
    cm5i_ctx.size = cm5i_ctx.nep = cm5i_ctx.boot.size = NODES;
    cm5i_ctx.host = cm5i_ctx.boot.host = -1;
    cm5i_ctx.key = KEY;
    /* The modules' own setup, as ctx_start runs it (CREDITS: the
     * cm5i_config_str stub). */
    cm5i_flow_config();
    if (cm5i_flow_setup() != CM5_OK || cm5i_poll_setup() != CM5_OK ||
        cm5i_pkt_setup() != CM5_OK || cm5i_barrier_setup() != CM5_OK)
        abort();
    for (int i = 1; i <= CM5I_INT_SCOPY; i++)
        cm5i_am_register_internal(i, fuzz_internal);
    cm5i_rt_depth = 0;
    cm5i_irq_pending = 0;
    cn_held = 0;
}

/* What a dropped packet must leave alone: the credits held and owed,
 * the flush queue, the queued RPCs, the held packets, the barrier
 * signals (the modules' digests), the parked packets, the handlers run. */
typedef struct {
    uint64_t digest;
    uint32_t parked[CM5I_NCH];
    uint64_t handled;
} node_view_t;

static void node_view(node_view_t *v)
{
    memset(v, 0, sizeof(*v));
    v->digest = cm5i_barrier_digest(
        cm5i_pkt_digest(cm5i_flow_digest(CM5I_DIGEST_INIT)));
    memcpy(v->parked, cm5i_parked, sizeof(v->parked));
    v->handled = user_calls + internal_calls + STAT(internal_handled);
}

static void rx_checked(int ch, const void *buf, size_t len)
{
    uint64_t dropped = STAT(foreign_dropped);
    node_view_t before, after;

    uint64_t calls = ++rx_calls;

    node_view(&before);
    cm5i_pkt_rx(NULL, ch, buf, len);
    /* (A handler it ran may have received, and dropped, others.) */
    if (STAT(foreign_dropped) == dropped || rx_calls != calls)
        return;
    node_view(&after);
    if (memcmp(&before, &after, sizeof(before)) != 0)
        abort(); /* a dropped packet changed the node */
}

static void fuzz_step(int op)
{
    int ch = (op >> 3) & 1;
    cm5i_pkt_t pkt;

    switch (op & 7) {
    case 0: /* one packet; bit 4: of a length the input chooses */
        if (op & 0x10) {
            uint8_t raw[64] = {0};
            int len = next_byte();
            size_t n = (size_t)(in_end - in);

            if (len < 0)
                return;
            len %= (int)sizeof(raw);
            memcpy(raw, in, n < (size_t)len ? n : (size_t)len);
            in += n < (size_t)len ? n : (size_t)len;
            if (!(op & 0x20) && len >= 8)
                memcpy(raw, &(uint64_t){KEY}, 8);
            rx_checked(ch, raw, (size_t)len);
        } else if (next_packet(&pkt)) {
            rx_checked(ch, &pkt, sizeof(pkt));
        }
        break;
    case 1:
        cm5i_progress((op >> 3) & CM5I_CH_ALL);
        break;
    case 2: /* a control-network call starts or ends */
        if (!cn_held)
            cn_held = cm5i_cn_enter(1);
        else
            cm5i_cn_leave(&cn_held), cn_held = 0;
        break;
    case 3:
        cm5i_park_mask = (op >> 3) & CM5I_CH_ALL;
        break;
    case 4: /* a request handler runs (and drains replies) */
        cm5i_depth.in_handler++;
        cm5i_depth.in_req_handler = 1;
        cm5i_progress(CM5I_CH_BIT(CM5I_CH_REP));
        cm5i_depth.in_req_handler = 0;
        cm5i_depth.in_handler--;
        break;
    case 5:
        cm5i_flow_flush(CM5I_CH_ALL);
        break;
    case 6:
        if (cm5i_parked[ch] && !cm5i_depth.cn_hold)
            cm5i_park_drain(ch);
        break;
    case 7:
        cm5_am_request((op >> 3) % NODES, fuzz_user, 0, 0, 0, 0);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int op;

    node_reset();
    in = data;
    in_end = data + size;
    if (setjmp(fuzz_out) == 0)
        while ((op = next_byte()) >= 0)
            fuzz_step(op);
    /* The modules' teardown, as finalize runs it. */
    cm5i_barrier_teardown();
    cm5i_pkt_teardown();
    cm5i_poll_teardown();
    cm5i_flow_teardown();
    cm5i_progress_teardown();
    return 0;
}
