/*
 * The event trace.  Each node records fixed-size events into one buffer
 * allocated when tracing starts: recording is an atomic increment and a
 * few stores (no malloc, no syscall, no lock; the interrupt signal
 * handler may record too).  A full buffer drops the newest events and
 * says how many.  At exit every node writes its part (binary,
 * <file>.<node>.part) before the exit barrier; after it node 0 reads the
 * parts, writes <file> as Chrome trace-event JSON and removes them.
 *
 * Why Chrome's format: it is plain JSON, written here with fprintf and
 * no library; Perfetto (ui.perfetto.dev, which runs in the browser and
 * uploads nothing) and chrome://tracing open it, and any script reads it
 * with a JSON parser.  Paraver and OTF2 need their own libraries and
 * viewers.  Node n is process n of the trace: one row per node.
 *
 * Time: every timestamp comes from trace_now(), which is cm5_wtime(), or
 * with CM5_MODEL the node's virtual clock as it stands (read without the
 * cost of a clock read, so a traced run keeps its virtual times).
 */
#include "am_trace.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_handler.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"

#define TRACE_CAP (1u << 18) /* events per node: 8 MiB, touched as used */
#define TRACE_MAGIC 0x63356d74u

enum {
    EV_SEND,
    EV_BEGIN,
    EV_END,
    EV_MSG_POST,
    EV_MSG_DONE,
    EV_WAIT,
    EV_WAITED
};

typedef struct {
    double ts;         /* seconds: virtual time's clock, or cm5_rtime() */
    uint32_t a, b;     /* handler obj:off, message slot:gen, or a wait's
                          CM5I_WAIT_* */
    int32_t peer, tag; /* the other node; CMMD tag (-1: scopy) */
    uint32_t bytes;
    uint8_t kind, ch; /* EV_*; channel, or 1 for a send */
    uint8_t pad[2];
} trace_ev_t;

/* A part file: this header, then n events. */
typedef struct {
    uint32_t magic;
    int32_t rank;
    uint64_t n, recorded; /* events in the file; events offered */
    double t0;            /* when the node started tracing */
    uint64_t req_sent, rep_sent, req_handled, rep_handled;
} trace_hdr_t;

static int trace_on; /* recording */
static const cm5i_observer_t trace_observer;

static struct {
    trace_ev_t *ev;
    uint64_t n; /* events offered (> TRACE_CAP: the rest dropped) */
    double t0;
    char *path;
    int flushed;
} tr;

/* In virtual time the clock is read as it stands: a trace must not
 * charge the program's clock reads (clk) to it. */
static double trace_now(void)
{
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        return (double)cm5i_clock->now() * 1e-9;
    return cm5_rtime();
}

static trace_ev_t *trace_next(int kind)
{
    uint64_t i = __atomic_fetch_add(&tr.n, 1, __ATOMIC_RELAXED);
    trace_ev_t *e;

    if (i >= TRACE_CAP)
        return NULL;
    e = &tr.ev[i];
    e->ts = trace_now();
    e->kind = (uint8_t)kind;
    return e;
}

/* Numbers of the user active messages sent (the interrupt signal
 * handler may send too: an atomic increment). */
static uint32_t trace_seq_next;

/* A user active message about to be sent gets its number (its packet's
 * tseq; the trace draws an arrow from its send to its handler). */
static void trace_am_send(int ch, int node, cm5i_pkt_t *pkt)
{
    (void)ch, (void)node;
    pkt->tseq = __atomic_add_fetch(&trace_seq_next, 1, __ATOMIC_RELAXED);
}

/* An active message's send and handler events keep its number in tag. */
static void trace_am_sent(int ch, int node, const cm5i_pkt_t *pkt)
{
    trace_ev_t *e = trace_next(EV_SEND);

    if (e) {
        e->ch = (uint8_t)ch;
        e->peer = node;
        e->tag = (int32_t)pkt->tseq;
        e->bytes = 4 * sizeof(uint32_t);
    }
}

static void trace_deliver(int ch, const cm5i_pkt_t *pkt)
{
    trace_ev_t *e = trace_next(EV_BEGIN);

    if (e) {
        e->ch = (uint8_t)ch;
        e->peer = pkt->src;
        e->a = pkt->obj;
        e->b = pkt->off;
        e->tag = (int32_t)pkt->tseq;
        e->bytes = 4 * sizeof(uint32_t);
    }
}

static void trace_delivered(int ch)
{
    trace_ev_t *e = trace_next(EV_END);

    if (e)
        e->ch = (uint8_t)ch;
}

/* A CMMD message (tag >= 0) or scopy (tag -1) is posted or done; the
 * runtime's own messages (other tags) are not recorded. */
static void trace_bulk(int end, const cm5i_ev_bulk_t *b)
{
    trace_ev_t *e;

    if (b->tag < -1 || !(e = trace_next(end ? EV_MSG_DONE : EV_MSG_POST)))
        return;
    e->ch = (uint8_t)b->is_send;
    e->peer = b->node;
    e->tag = b->tag;
    e->bytes = b->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)b->bytes;
    e->a = b->slot;
    e->b = b->gen;
}

static void trace_bulk_start(const cm5i_ev_bulk_t *b) { trace_bulk(0, b); }

static void trace_bulk_end(const cm5i_ev_bulk_t *b) { trace_bulk(1, b); }

/* A blocking wait of the runtime: a slice (category "wait") around what
 * it serves meanwhile. */
static void trace_wait(int kind, int what)
{
    trace_ev_t *e = trace_next(kind);

    if (e)
        e->a = (uint32_t)what;
}

static void trace_wait_begin(int what) { trace_wait(EV_WAIT, what); }

static void trace_wait_end(int what) { trace_wait(EV_WAITED, what); }

static const cm5i_observer_t trace_observer = {
    .am_send = trace_am_send,
    .am_sent = trace_am_sent,
    .deliver = trace_deliver,
    .delivered = trace_delivered,
    .bulk_start = trace_bulk_start,
    .bulk_end = trace_bulk_end,
    .wait_begin = trace_wait_begin,
    .wait_end = trace_wait_end,
};

static cm5_status_t trace_open(const char *path)
{
    if (!tr.ev) {
        tr.ev = calloc(TRACE_CAP, sizeof(*tr.ev));
        if (!tr.ev) {
            cm5i_log(CM5I_LOG_ERROR, "trace", "no memory for %u events",
                     TRACE_CAP);
            return CM5_ERR_NO_MEMORY;
        }
        tr.t0 = trace_now();
    }
    free(tr.path);
    tr.path = strdup(path);
    if (!tr.path)
        return CM5_ERR_NO_MEMORY;
    tr.flushed = 0;
    trace_on = 1;
    cm5i_observe(&trace_observer, NULL);
    return CM5_OK;
}

cm5_status_t cm5i_trace_setup(void)
{
    const char *path = cm5i_config_str(CM5_ENV_TRACE);

    return path && *path ? trace_open(path) : CM5_OK;
}

cm5_status_t cm5_trace_start(const char *path)
{
    CM5I_GUARD();
    cm5i_ensure_init();
    if (!path || !*path)
        return CM5_ERR_INVALID;
    return trace_open(path);
}

static void trace_part_name(char *buf, size_t len, int rank)
{
    snprintf(buf, len, "%s.%d.part", tr.path, rank);
}

void cm5i_trace_flush(void)
{
    uint64_t n = tr.n < TRACE_CAP ? tr.n : TRACE_CAP;
    trace_hdr_t h = {.magic = TRACE_MAGIC,
                     .rank = cm5i_ctx.rank,
                     .n = n,
                     .recorded = tr.n,
                     .t0 = tr.t0};
    char name[4096];
    cm5_stats_t st;
    FILE *f;

    if (!trace_on || tr.flushed)
        return;
    trace_on = 0;
    cm5i_unobserve(&trace_observer);
    tr.flushed = 1;
    cm5_stats(&st);
    h.req_sent = st.requests_sent;
    h.rep_sent = st.replies_sent;
    h.req_handled = st.requests_handled;
    h.rep_handled = st.replies_handled;
    if (tr.n > n)
        cm5i_log(CM5I_LOG_WARN, "trace",
                 "%llu events dropped: the buffer holds %u; the trace has "
                 "the first ones",
                 (unsigned long long)(tr.n - n), TRACE_CAP);
    trace_part_name(name, sizeof(name), cm5i_ctx.rank);
    f = fopen(name, "wb");
    if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
        fwrite(tr.ev, sizeof(*tr.ev), n, f) != n || fclose(f) != 0) {
        cm5i_log(CM5I_LOG_ERROR, "trace", "cannot write %s: %m", name);
        if (f)
            fclose(f);
    }
}

/* ---- node 0: the merge ---- */

/* The handler's name, if the dynamic symbol table has it (programs
 * linked with -rdynamic); otherwise what kind of handler it is. */
static const char *trace_handler_name(const trace_ev_t *e)
{
    cm5i_href_t ref = {.obj = e->a, .off = e->b};
    void *fp = cm5i_handler_decode(ref);
    Dl_info info;

    if (fp && dladdr(fp, &info) && info.dli_sname && info.dli_saddr == fp &&
        strspn(info.dli_sname,
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
               "RSTUVWXYZ0123456789_.") == strlen(info.dli_sname))
        return info.dli_sname;
    return e->ch == CM5I_CH_REQ ? "request handler" : "reply handler";
}

static const char *trace_msg_name(const trace_ev_t *e)
{
    if (e->tag == -1)
        return e->ch ? "scopy out" : "scopy in";
    return e->ch ? "send" : "receive";
}

/* One event as a JSON object, ending with ",\n". */
static void trace_json_ev(FILE *o, int r, double t0, const trace_ev_t *e)
{
    double us = (e->ts - t0) * 1e6;
    unsigned long long id = (unsigned long long)r << 48 |
                            (unsigned long long)(e->b & 0xffff) << 32 | e->a;

    /* An arrow (flow event) from a send to its handler: the id names the
     * sending node and its message number. */
    unsigned long long flow = (unsigned long long)(uint32_t)e->tag;

    switch (e->kind) {
    case EV_SEND:
        /* A slice of no length, so the arrow has a slice to start from. */
        fprintf(o,
                "{\"name\":\"%s\",\"cat\":\"am\",\"ph\":\"X\","
                "\"dur\":0,\"ts\":%.3f,\"pid\":%d,\"tid\":1,\"args\":{"
                "\"to\":%d,\"bytes\":%u,\"seq\":%llu}},\n",
                e->ch == CM5I_CH_REQ ? "request" : "reply", us, r, e->peer,
                e->bytes, flow);
        if (flow)
            fprintf(o,
                    "{\"name\":\"am\",\"cat\":\"am\",\"ph\":\"s\","
                    "\"id\":%llu,\"ts\":%.3f,\"pid\":%d,\"tid\":1},\n",
                    (unsigned long long)r << 32 | flow, us, r);
        break;
    case EV_BEGIN:
        fprintf(o,
                "{\"name\":\"%s\",\"cat\":\"am\",\"ph\":\"B\",\"ts\":%.3f,"
                "\"pid\":%d,\"tid\":1,\"args\":{\"from\":%d,\"bytes\":%u,"
                "\"channel\":\"%s\",\"seq\":%llu}},\n",
                trace_handler_name(e), us, r, e->peer, e->bytes,
                e->ch == CM5I_CH_REQ ? "request" : "reply", flow);
        if (flow)
            fprintf(o,
                    "{\"name\":\"am\",\"cat\":\"am\",\"ph\":\"f\","
                    "\"bp\":\"e\",\"id\":%llu,\"ts\":%.3f,\"pid\":%d,"
                    "\"tid\":1},\n",
                    (unsigned long long)(uint32_t)e->peer << 32 | flow, us, r);
        break;
    case EV_END:
    case EV_WAITED:
        fprintf(o, "{\"ph\":\"E\",\"ts\":%.3f,\"pid\":%d,\"tid\":1},\n", us, r);
        break;
    case EV_WAIT:
        fprintf(o,
                "{\"name\":\"%s\",\"cat\":\"wait\",\"ph\":\"B\",\"ts\":%.3f,"
                "\"pid\":%d,\"tid\":1},\n",
                cm5i_wait_name((int)e->a), us, r);
        break;
    default:
        fprintf(o,
                "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\","
                "\"id\":\"0x%llx\",\"ts\":%.3f,\"pid\":%d,\"tid\":1,"
                "\"args\":{\"peer\":%d,\"bytes\":%u,\"tag\":%d}},\n",
                trace_msg_name(e), e->tag == -1 ? "scopy" : "cmmd",
                e->kind == EV_MSG_POST ? "b" : "e", id, us, r, e->peer,
                e->bytes, e->tag);
    }
}

static FILE *trace_part_open(int r, trace_hdr_t *h)
{
    char name[4096];
    FILE *f;

    trace_part_name(name, sizeof(name), r);
    f = fopen(name, "rb");
    if (!f) {
        cm5i_log(CM5I_LOG_WARN, "trace", "no part from node %d (%s: %m)", r,
                 name);
        return NULL;
    }
    if (fread(h, sizeof(*h), 1, f) != 1 || h->magic != TRACE_MAGIC ||
        h->rank != r) {
        cm5i_log(CM5I_LOG_WARN, "trace", "%s is not node %d's part", name, r);
        fclose(f);
        return NULL;
    }
    return f;
}

static void trace_remove_parts(void)
{
    char name[4096];

    for (int r = 0; r < cm5i_ctx.nep; r++) {
        trace_part_name(name, sizeof(name), r);
        unlink(name);
    }
}

/* The earliest start of any node: time 0 of the trace. */
static double trace_origin(void)
{
    double t0 = tr.t0;
    trace_hdr_t h;
    FILE *f;

    for (int r = 0; r < cm5i_ctx.nep; r++)
        if ((f = trace_part_open(r, &h))) {
            if (h.t0 < t0)
                t0 = h.t0;
            fclose(f);
        }
    return t0;
}

static void trace_json_node(FILE *o, int r, double t0, uint64_t *dropped)
{
    trace_hdr_t h;
    trace_ev_t e;
    FILE *f = trace_part_open(r, &h);

    fprintf(o,
            "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"name\":\"%s %d\"}},\n",
            r, r == cm5i_ctx.host ? "host" : "node", r);
    fprintf(o,
            "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"sort_index\":%d}},\n",
            r, r);
    if (!f)
        return;
    for (uint64_t i = 0; i < h.n && fread(&e, sizeof(e), 1, f) == 1; i++)
        trace_json_ev(o, r, t0, &e);
    fclose(f);
    *dropped += h.recorded - h.n;
}

/* Per node: cm5_stats' counters and the events recorded, so a reader can
 * check that every message is in the trace. */
static void trace_json_stats(FILE *o)
{
    const char *sep = "";
    trace_hdr_t h;
    FILE *f;

    for (int r = 0; r < cm5i_ctx.nep; r++) {
        if (!(f = trace_part_open(r, &h)))
            continue;
        fclose(f);
        fprintf(o,
                "%s{\"node\":%d,\"requests_sent\":%llu,\"replies_sent\":"
                "%llu,\"requests_handled\":%llu,\"replies_handled\":%llu,"
                "\"events\":%llu,\"dropped\":%llu}",
                sep, r, (unsigned long long)h.req_sent,
                (unsigned long long)h.rep_sent,
                (unsigned long long)h.req_handled,
                (unsigned long long)h.rep_handled, (unsigned long long)h.n,
                (unsigned long long)(h.recorded - h.n));
        sep = ",\n";
    }
}

static void trace_merge(void)
{
    double t0 = trace_origin();
    uint64_t dropped = 0;
    FILE *o = fopen(tr.path, "w");

    if (!o) {
        cm5i_log(CM5I_LOG_ERROR, "trace", "cannot write %s: %m", tr.path);
        return;
    }
    fprintf(o, "{\"traceEvents\":[\n");
    for (int r = 0; r < cm5i_ctx.nep; r++)
        trace_json_node(o, r, t0, &dropped);
    fprintf(o,
            "{\"name\":\"trace\",\"ph\":\"i\",\"s\":\"g\",\"ts\":0,"
            "\"pid\":0,\"tid\":1}\n],\n\"displayTimeUnit\":\"ns\",\n"
            "\"cm5fab\":{\"nodes\":%d,\"clock\":\"cm5_wtime\","
            "\"dropped\":%llu,\n\"stats\":[\n",
            cm5i_ctx.size, (unsigned long long)dropped);
    trace_json_stats(o);
    fprintf(o, "]}}\n");
    if (fclose(o) != 0)
        cm5i_log(CM5I_LOG_ERROR, "trace", "cannot write %s: %m", tr.path);
    else if (dropped)
        cm5i_log(CM5I_LOG_WARN, "trace", "%s: %llu events dropped in all",
                 tr.path, (unsigned long long)dropped);
}

void cm5i_trace_teardown(void)
{
    trace_on = 0;
    cm5i_unobserve(&trace_observer);
    if (tr.flushed && cm5i_ctx.rank == 0) {
        trace_merge();
        trace_remove_parts();
    }
    free(tr.ev);
    free(tr.path);
    memset(&tr, 0, sizeof(tr));
    trace_seq_next = 0;
}
