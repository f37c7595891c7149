/*
 * Collectives: the CM-5 control network in software.
 *
 * Every collective call gets the next number in a per-node sequence (all
 * nodes call the same collectives in the same order).  Scalars travel in
 * internal active messages (a 64-bit value, the sequence number, a slot
 * and a flag) kept in a small mailbox until their step wants them; bulk
 * data travels as point-to-point messages with the runtime's own negative
 * tags, so no user receive can match them.
 *
 * Reductions combine up a binomial tree rooted at node 0 (children in a
 * fixed order) and broadcast the result down it, so every node gets the
 * very same bits.  Scans use recursive doubling on (value, segment-flag)
 * pairs, log2(P) rounds.  Allgather gathers subtree blocks up the tree,
 * then broadcasts.
 *
 * A reduction or scan of one element is a resumable state machine (its
 * mail decides how far it may go), so the same code serves the blocking
 * calls and the split-phase ones (cm5_allreduce_start, cm5_scan_start),
 * which advance whenever the node is in the runtime.
 */
#include "am_coll.h"

#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_model_calc.h"
#include "am_msg.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"

#define COLL_SLOT_BCAST 63

typedef struct coll_mail {
    uint32_t seq;
    uint32_t slot;
    uint32_t flag;
    uint64_t val;
    uint64_t vt; /* virtual time: the latest entry clock its sender knew */
    struct coll_mail *next;
} coll_mail_t;

static void coll_split_kick(uint32_t seq);

static struct {
    uint32_t seq;
    coll_mail_t *mail;
    /* Global OR: each node's latest bit, and how many are set. */
    uint8_t *gor_bits;
    int gor_count;
    int gor_mine;
} coll;

/* A reduction's or scan's cost depends on its type (doc/model.md). */
static cm5i_cn_kind_t coll_red_kind(cm5_type_t type)
{
    return type == CM5_FLOAT || type == CM5_DOUBLE ? CM5I_CN_REDUCE_FP
                                                   : CM5I_CN_REDUCE;
}

/* A blocking control-network call ends: in virtual time every clock
 * ends at the largest entry clock plus the call's cost. */
static cm5_status_t coll_model_end(cm5i_cn_kind_t kind, size_t n)
{
    CM5I_EV(cn_end, kind, n);
    return CM5_OK;
}

/* A split-phase reduction or scan carries, in its packets' stamps, the
 * latest entry clock each node knows (its own, its mail's): it ends at the
 * latest its result depends on plus the call's cost, without the closing
 * barrier of the blocking calls. */
static uint64_t coll_model_entry(void)
{
    return CM5I_UNLIKELY(cm5i_clock != NULL) ? cm5i_clock->now() : 0;
}

static void coll_model_mail(uint64_t *vt, const coll_mail_t *m)
{
    if (m && m->vt != CM5I_VT_NONE && m->vt > *vt)
        *vt = m->vt;
}

/* ---- scalar messages ---- */

static void coll_handler(int src, const uint32_t *a)
{
    coll_mail_t *m = malloc(sizeof(*m));

    (void)src;
    if (!m)
        cm5_fatal("cm5fab", "out of memory in a collective");
    m->val = (uint64_t)a[0] | (uint64_t)a[1] << 32;
    m->vt = CM5I_UNLIKELY(cm5i_clock != NULL) ? cm5i_clock->rx_word()
                                              : CM5I_VT_NONE;
    m->seq = a[2];
    m->slot = a[3] & 0xffff;
    m->flag = a[3] >> 16;
    m->next = coll.mail;
    coll.mail = m;
    coll_split_kick(m->seq);
}

/* A collective's step to node, carrying the clock's word vt (the
 * latest clock its value has seen). */
static void coll_put(int node, uint32_t seq, int slot, uint64_t val,
                     uint32_t flag, uint64_t vt)
{
    const uint32_t arg[4] = {(uint32_t)val, (uint32_t)(val >> 32), seq,
                             (uint32_t)slot | flag << 16};
    const cm5i_word_t w = {vt, 0};
    cm5_status_t st =
        cm5i_am_internal_word(CM5I_CH_REQ, node, CM5I_INT_COLL, arg,
                              CM5I_UNLIKELY(cm5i_clock != NULL) ? &w : NULL);

    if (st != CM5_OK)
        cm5_fatal("cm5fab", "collective step to node %d failed: %s", node,
                  cm5_status_string(st));
}

static coll_mail_t *coll_find(uint32_t seq, int slot)
{
    for (coll_mail_t **p = &coll.mail; *p; p = &(*p)->next) {
        coll_mail_t *m = *p;

        if (m->seq == seq && m->slot == (uint32_t)slot) {
            *p = m->next;
            return m;
        }
    }
    return NULL;
}

static uint64_t coll_get(uint32_t seq, int slot, uint32_t *flag, int kind)
{
    cm5i_waiter_t w;
    coll_mail_t *m;
    uint64_t v;

    cm5i_waiter_start(&w, kind);
    while (!(m = coll_find(seq, slot)))
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    v = m->val;
    if (flag)
        *flag = m->flag;
    free(m);
    return v;
}

/* ---- arithmetic ---- */

size_t cm5_type_size(cm5_type_t t)
{
    switch (t) {
    case CM5_INT32:
    case CM5_UINT32:
    case CM5_FLOAT:
        return 4;
    case CM5_INT64:
    case CM5_UINT64:
    case CM5_DOUBLE:
        return 8;
    }
    return 0;
}

int cm5i_coll_valid(cm5_type_t t, cm5_op_t op)
{
    int fp = t == CM5_FLOAT || t == CM5_DOUBLE;

    if (cm5_type_size(t) == 0 || op < CM5_OP_ADD || op > CM5_OP_XOR)
        return 0;
    return !(fp && op >= CM5_OP_AND);
}

#define COLL_ARITH(T, a, b, op)                                                \
    do {                                                                       \
        T x_, y_;                                                              \
        memcpy(&x_, a, sizeof(T));                                             \
        memcpy(&y_, b, sizeof(T));                                             \
        x_ = op == CM5_OP_ADD   ? (T)(x_ + y_)                                 \
             : op == CM5_OP_MAX ? (x_ > y_ ? x_ : y_)                          \
                                : (x_ < y_ ? x_ : y_);                         \
        memcpy(a, &x_, sizeof(T));                                             \
    } while (0)

#define COLL_BITS(T, a, b, op)                                                 \
    do {                                                                       \
        T x_, y_;                                                              \
        memcpy(&x_, a, sizeof(T));                                             \
        memcpy(&y_, b, sizeof(T));                                             \
        x_ = op == CM5_OP_AND   ? (x_ & y_)                                    \
             : op == CM5_OP_IOR ? (x_ | y_)                                    \
                                : (x_ ^ y_);                                   \
        memcpy(a, &x_, sizeof(T));                                             \
    } while (0)

/* a = a op b, for one element. */
void cm5i_coll_combine(void *a, const void *b, cm5_type_t t, cm5_op_t op)
{
    if (op >= CM5_OP_AND) {
        if (cm5_type_size(t) == 4)
            COLL_BITS(uint32_t, a, b, op);
        else
            COLL_BITS(uint64_t, a, b, op);
        return;
    }
    switch (t) {
    case CM5_INT32:
        COLL_ARITH(int32_t, a, b, op);
        break;
    case CM5_UINT32:
        COLL_ARITH(uint32_t, a, b, op);
        break;
    case CM5_INT64:
        COLL_ARITH(int64_t, a, b, op);
        break;
    case CM5_UINT64:
        COLL_ARITH(uint64_t, a, b, op);
        break;
    case CM5_FLOAT:
        COLL_ARITH(float, a, b, op);
        break;
    case CM5_DOUBLE:
        COLL_ARITH(double, a, b, op);
        break;
    }
}

/* The identity of op for type t (what an exclusive scan starts from). */
static void coll_identity(void *out, cm5_type_t t, cm5_op_t op)
{
    static const int32_t i32[] = {0, INT32_MIN, INT32_MAX};
    static const uint32_t u32[] = {0, 0, UINT32_MAX};
    static const int64_t i64[] = {0, INT64_MIN, INT64_MAX};
    static const uint64_t u64[] = {0, 0, UINT64_MAX};
    static const float f[] = {0.0f, -FLT_MAX, FLT_MAX};
    static const double d[] = {0.0, -DBL_MAX, DBL_MAX};
    size_t sz = cm5_type_size(t);

    if (op >= CM5_OP_AND) { /* and: all ones; ior, xor: zero */
        memset(out, op == CM5_OP_AND ? 0xff : 0, sz);
        return;
    }
    switch (t) {
    case CM5_INT32:
        memcpy(out, &i32[op], sz);
        break;
    case CM5_UINT32:
        memcpy(out, &u32[op], sz);
        break;
    case CM5_INT64:
        memcpy(out, &i64[op], sz);
        break;
    case CM5_UINT64:
        memcpy(out, &u64[op], sz);
        break;
    case CM5_FLOAT:
        memcpy(out, &f[op], sz);
        break;
    case CM5_DOUBLE:
        memcpy(out, &d[op], sz);
        break;
    }
}

static uint64_t coll_pack(const void *v, size_t sz)
{
    uint64_t x = 0;

    memcpy(&x, v, sz);
    return x;
}

/* ---- bulk steps over internal messages ---- */

static int coll_tag(uint32_t seq) { return -2 - (int)(seq & 0x3fffffff); }

static void coll_xfer(int send, int node, uint32_t seq, void *buf, size_t len)
{
    cm5_msg_h m;
    cm5_status_t st =
        send ? cm5i_msg_send(node, coll_tag(seq), buf, len, 0, NULL, NULL, &m)
             : cm5i_msg_recv(node, coll_tag(seq), buf, len, NULL, NULL, &m);

    if (st == CM5_OK)
        st = cm5_msg_wait(m);
    if (st == CM5_ERR_INVALID)
        cm5_fatal("cm5fab",
                  "collective data from node %d is longer than "
                  "this node's buffer of %zu bytes (nodes disagree on the "
                  "length)",
                  node, len);
    if (st != CM5_OK)
        cm5_fatal("cm5fab", "collective transfer with node %d failed: %s", node,
                  cm5_status_string(st));
    cm5_msg_free(m);
}

/* Binomial tree rooted at 0: node i's parent clears its lowest set bit;
 * its children are i + m for m = 1, 2, 4, ... below its lowest bit. */
static int coll_low(int i, int size)
{
    int m = 1;

    while (m < size && !(i & m))
        m <<= 1;
    return m; /* >= size for node 0 */
}

static void coll_bcast_tree(uint32_t seq, void *buf, size_t len)
{
    int me = cm5i_ctx.rank, size = cm5i_ctx.size, low = coll_low(me, size);

    if (me != 0)
        coll_xfer(0, me - low, seq, buf, len);
    for (int m = low >> 1; m >= 1; m >>= 1)
        if (me + m < size)
            coll_xfer(1, me + m, seq, buf, len);
}

static cm5_status_t coll_enter(void)
{
    cm5i_ensure_init();
    return cm5i_depth.in_handler || cm5i_ctx.rank >= cm5i_ctx.size
               ? CM5_ERR_STATE
               : CM5_OK;
}

/* ---- one-element reduction: a resumable state machine ---- */

typedef struct {
    uint32_t seq;
    cm5_type_t type;
    cm5_op_t op;
    uint64_t acc;
    int child; /* the next child (offset 1, 2, 4, ...) whose value we need */
    int up;    /* our subtree's value went to the parent */
    int done;
    uint64_t vt; /* the latest entry clock known (virtual time) */
} coll_red_t;

static void red_begin(coll_red_t *r, const void *value, cm5_type_t type,
                      cm5_op_t op)
{
    *r = (coll_red_t){.seq = ++coll.seq,
                      .type = type,
                      .op = op,
                      .child = 1,
                      .vt = coll_model_entry()};
    r->acc = coll_pack(value, cm5_type_size(type));
}

/* Go as far as the mail allows: combine the children's values in a fixed
 * order, send the subtree's value up, take the result from the parent
 * and pass it down.  1 once done. */
static int red_advance(coll_red_t *r)
{
    int me = cm5i_ctx.rank, size = cm5i_ctx.size, low = coll_low(me, size);
    coll_mail_t *m;

    if (r->done)
        return 1;
    for (; r->child < low && me + r->child < size; r->child <<= 1) {
        if (!(m = coll_find(r->seq, __builtin_ctz((unsigned)r->child))))
            return 0;
        cm5i_coll_combine(&r->acc, &m->val, r->type, r->op);
        coll_model_mail(&r->vt, m);
        free(m);
    }
    if (me != 0) {
        if (!r->up) {
            r->up = 1;
            coll_put(me - low, r->seq, __builtin_ctz((unsigned)low), r->acc, 0,
                     r->vt);
        }
        if (!(m = coll_find(r->seq, COLL_SLOT_BCAST)))
            return 0;
        r->acc = m->val;
        coll_model_mail(&r->vt, m);
        free(m);
    }
    for (int d = low >> 1; d >= 1; d >>= 1)
        if (me + d < size) {
            coll_put(me + d, r->seq, COLL_SLOT_BCAST, r->acc, 0, r->vt);
        }
    r->done = 1;
    return 1;
}

cm5_status_t cm5_allreduce(void *values, int count, cm5_type_t type,
                           cm5_op_t op)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    size_t sz = cm5_type_size(type), len;
    int me, size, low;
    uint32_t seq;
    char *tmp;

    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (!cm5i_coll_valid(type, op) || count < 0 || (count && !values))
        return CM5_ERR_INVALID;
    if (count == 1) { /* one value: active messages only */
        coll_red_t r;
        cm5i_waiter_t w;

        red_begin(&r, values, type, op);
        cm5i_waiter_start(&w, CM5I_WAIT_REDUCE);
        while (!red_advance(&r))
            cm5i_wait_step(&w, CM5I_CH_ALL);
        cm5i_waiter_end(&w);
        memcpy(values, &r.acc, sz);
        return coll_model_end(coll_red_kind(type), 1);
    }
    me = cm5i_ctx.rank;
    size = cm5i_ctx.size;
    low = coll_low(me, size);
    seq = ++coll.seq;
    len = sz * (size_t)count;
    tmp = malloc(len ? len : 1);
    if (!tmp)
        return CM5_ERR_NO_MEMORY;
    for (int m = 1; m < low && me + m < size; m <<= 1) {
        coll_xfer(0, me + m, seq, tmp, len);
        for (int k = 0; k < count; k++)
            cm5i_coll_combine((char *)values + k * sz, tmp + k * sz, type, op);
    }
    if (me != 0)
        coll_xfer(1, me - low, seq, values, len);
    free(tmp);
    coll_bcast_tree(seq, values, len);
    return coll_model_end(coll_red_kind(type), (size_t)count);
}

cm5_status_t cm5_bcast(void *buf, size_t len, int root)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    uint32_t seq;

    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if ((root < 0 && root != CM5_ANY_NODE) || root >= cm5i_ctx.size)
        return CM5_ERR_RANGE;
    if (len && !buf)
        return CM5_ERR_INVALID;
    seq = ++coll.seq;
    /* The tree is rooted at node 0: another root hands it the data (node 0
     * may not know which node that is: CM5_ANY_NODE). */
    if (root != 0 && cm5i_ctx.rank == root)
        coll_xfer(1, 0, seq, buf, len);
    if (root != 0 && cm5i_ctx.rank == 0)
        coll_xfer(0, root, seq, buf, len);
    coll_bcast_tree(seq, buf, len);
    return coll_model_end(CM5I_CN_BCAST, len);
}

cm5_status_t cm5_allgather(const void *mine, size_t len, void *all)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    int me, size, low;
    uint32_t seq;

    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (len && (!mine || !all))
        return CM5_ERR_INVALID;
    me = cm5i_ctx.rank;
    size = cm5i_ctx.size;
    low = coll_low(me, size);
    seq = ++coll.seq;
    /* Subtree of node i: nodes i .. i+low-1, a contiguous block. */
    memmove((char *)all + (size_t)me * len, mine, len);
    for (int m = 1; m < low && me + m < size; m <<= 1) {
        int n = size - (me + m) < m ? size - (me + m) : m;

        coll_xfer(0, me + m, seq, (char *)all + (size_t)(me + m) * len,
                  (size_t)n * len);
    }
    if (me != 0) {
        int n = size - me < low ? size - me : low;

        coll_xfer(1, me - low, seq, (char *)all + (size_t)me * len,
                  (size_t)n * len);
    }
    coll_bcast_tree(seq, all, (size_t)size * len);
    return coll_model_end(CM5I_CN_BCAST, (size_t)size * len);
}

/* Segmented scan by recursive doubling on pairs (acc, f): after round r
 * a node's acc combines the values of the 2^(r+1) positions ending at its
 * own, cut at the start of its segment, and f says whether that window
 * reached a segment start.  An exclusive scan then shifts the inclusive
 * results one position along.  With CM5_SCAN_SEGMENT_END a node first
 * learns from the previous position whether it begins a segment. */
#define COLL_SLOT_SHIFT 62
#define COLL_SLOT_SEGEND 61
#define COLL_SCAN_FLAGS                                                        \
    (CM5_SCAN_DOWNWARD | CM5_SCAN_EXCLUSIVE | CM5_SCAN_SEGMENT_END)

typedef struct {
    uint32_t seq;
    cm5_type_t type;
    cm5_op_t op;
    unsigned flags;
    uint64_t acc;
    uint32_t f; /* the window so far reached a segment start */
    int first;  /* this node begins a segment */
    int bit;    /* the caller's start argument */
    int pos, rounds;
    int stage; /* -1 segment ends, 0..rounds-1, rounds: shift */
    int sent;  /* this stage's message is out */
    int done;
    uint64_t vt; /* the latest entry clock known (virtual time) */
} coll_scan_t;

static void scan_begin(coll_scan_t *c, const void *value, cm5_type_t type,
                       cm5_op_t op, unsigned flags, int start)
{
    int size = cm5i_ctx.size, down = (flags & CM5_SCAN_DOWNWARD) != 0;

    *c = (coll_scan_t){.seq = ++coll.seq,
                       .type = type,
                       .op = op,
                       .flags = flags,
                       .bit = start != 0,
                       .vt = coll_model_entry()};
    c->acc = coll_pack(value, cm5_type_size(type));
    c->pos = down ? size - 1 - cm5i_ctx.rank : cm5i_ctx.rank;
    while ((1 << c->rounds) < size)
        c->rounds++;
    c->stage = flags & CM5_SCAN_SEGMENT_END ? -1 : 0;
    c->first = flags & CM5_SCAN_SEGMENT_END ? 0 : c->bit;
    c->f = (uint32_t)c->first;
}

/* The node at scan position p. */
static int scan_node(const coll_scan_t *c, int p)
{
    return c->flags & CM5_SCAN_DOWNWARD ? cm5i_ctx.size - 1 - p : p;
}

/* This stage's exchange: send val (once) to position pos + d and take the
 * mail from pos - d.  NULL while that has not come (or there is none:
 * *none is set). */
static coll_mail_t *scan_step(coll_scan_t *c, int slot, int d, uint64_t val,
                              uint32_t flag, int *none)
{
    coll_mail_t *m;

    if (!c->sent) {
        c->sent = 1; /* (before the send, which may wait and nest) */
        if (c->pos + d < cm5i_ctx.size) {
            coll_put(scan_node(c, c->pos + d), c->seq, slot, val, flag, c->vt);
        }
    }
    *none = c->pos - d < 0;
    m = *none ? NULL : coll_find(c->seq, slot);
    coll_model_mail(&c->vt, m);
    return m;
}

/* CM5_SCAN_SEGMENT_END: learn from the previous position whether this
 * node begins a segment.  1 once known. */
static int scan_segend(coll_scan_t *c)
{
    coll_mail_t *m;
    int none;

    if (c->stage >= 0)
        return 1;
    m = scan_step(c, COLL_SLOT_SEGEND, 1, (uint64_t)c->bit, 0, &none);
    if (!m && !none)
        return 0;
    c->first = m && m->val != 0;
    c->f = (uint32_t)c->first;
    free(m);
    c->stage = 0;
    c->sent = 0;
    return 1;
}

static int scan_advance(coll_scan_t *c)
{
    coll_mail_t *m;
    int none;

    if (c->done)
        return 1;
    if (!scan_segend(c))
        return 0;
    for (; c->stage < c->rounds; c->stage++, c->sent = 0) {
        m = scan_step(c, c->stage, 1 << c->stage, c->acc, c->f, &none);
        if (!m && !none)
            return 0;
        if (m && !c->f) {
            cm5i_coll_combine(&m->val, &c->acc, c->type, c->op);
            c->acc = m->val;
        }
        c->f |= m ? m->flag : 0;
        free(m);
    }
    if (c->flags & CM5_SCAN_EXCLUSIVE) {
        m = scan_step(c, COLL_SLOT_SHIFT, 1, c->acc, 0, &none);
        if (!m && !none)
            return 0;
        c->acc = m ? m->val : 0;
        free(m);
        if (none || c->first)
            coll_identity(&c->acc, c->type, c->op);
    }
    c->done = 1;
    return 1;
}

static cm5_status_t scan_check(const void *value, cm5_type_t type, cm5_op_t op,
                               unsigned flags)
{
    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (!cm5i_coll_valid(type, op) || !value || (flags & ~COLL_SCAN_FLAGS))
        return CM5_ERR_INVALID;
    return CM5_OK;
}

cm5_status_t cm5_scan(void *value, cm5_type_t type, cm5_op_t op, unsigned flags,
                      int start)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    cm5_status_t st = scan_check(value, type, op, flags);
    coll_scan_t c;
    cm5i_waiter_t w;

    if (st != CM5_OK)
        return st;
    scan_begin(&c, value, type, op, flags, start);
    cm5i_waiter_start(&w, CM5I_WAIT_SCAN);
    while (!scan_advance(&c))
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    memcpy(value, &c.acc, cm5_type_size(type));
    return coll_model_end(coll_red_kind(type), 1);
}

/* ---- split-phase reduction and scan ----
 * One of each may be outstanding per node (the CM-5's CMMD_reduce_done
 * and CMMD_scan_done take no argument: one each).  Besides start, test
 * and finish, a step's arriving mail queues deferred work that advances
 * them from any wait of the runtime, so a node blocked in another call
 * still passes values on as the CM-5's control network did by itself. */

static struct {
    coll_red_t red;
    coll_scan_t scan;
    int red_on, scan_on; /* started, result not yet taken */
    int busy, again;     /* an advance runs (sends may wait): no nesting */
    int queued;
    cm5i_deferred_t work;
} split;

static void split_advance(void)
{
    if (split.busy) {
        split.again = 1;
        return;
    }
    split.busy = 1;
    do {
        split.again = 0;
        if (split.red_on)
            red_advance(&split.red);
        if (split.scan_on)
            scan_advance(&split.scan);
    } while (split.again);
    split.busy = 0;
}

static void split_run(cm5i_deferred_t *self)
{
    (void)self;
    split.queued = 0;
    split_advance();
}

/* Mail of seq came (in a handler): advance outside handlers. */
static void coll_split_kick(uint32_t seq)
{
    if (split.queued || !((split.red_on && split.red.seq == seq) ||
                          (split.scan_on && split.scan.seq == seq)))
        return;
    split.queued = 1;
    split.work.run = split_run;
    cm5i_defer(&split.work);
}

/* The program sees a split-phase call done: its clock reaches the
 * call's end (virtual time). */
static void split_model_done(uint64_t vt, cm5_type_t type)
{
    if (CM5I_UNLIKELY(cm5i_clock != NULL))
        cm5i_clock->reach(vt + cm5i_clock->cn_price(coll_red_kind(type), 1));
}

/* Synchronised virtual time, a reduction's test at clock c: done once
 * its end is at or before c; while its end is unknown (values still to
 * come) it takes packets until the end is known or cannot be by c (the
 * least end of the call, from every node's entry or bound).  A scan's
 * end depends on some nodes only: its test answers when its values are
 * in. */
static int split_test_turn(const int *done, const uint64_t *vt, cm5_type_t type,
                           int scan)
{
    for (unsigned spins = 0;;) {
        int r = -1;

        if (*done)
            r = cm5i_clock->cn_turn(
                1, *vt + cm5i_clock->cn_price(coll_red_kind(type), 1));
        else if (!scan)
            r = cm5i_clock->cn_turn(0, 0);
        if (r >= 0)
            return r;
        cm5i_progress_pull_step(&spins);
        split_advance();
    }
}

static int split_test(int on, const int *done, const uint64_t *vt,
                      cm5_type_t type, int scan)
{
    if (!on)
        return 1;
    if (!cm5i_depth.in_handler) {
        cm5i_probe_progress_cn();
        split_advance();
    }
    if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->cn_turn &&
        !cm5i_depth.in_handler)
        return split_test_turn(done, vt, type, scan);
    if (*done)
        split_model_done(*vt, type);
    return *done;
}

static cm5_status_t split_finish(int *on, const int *done, const uint64_t *vt,
                                 cm5_type_t type)
{
    cm5i_waiter_t w;

    if (!*on || cm5i_depth.in_handler)
        return CM5_ERR_STATE;
    cm5i_waiter_start(&w, CM5I_WAIT_SPLIT);
    for (split_advance(); !*done; split_advance())
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    *on = 0;
    split_model_done(*vt, type);
    return CM5_OK;
}

cm5_status_t cm5_allreduce_start(const void *value, cm5_type_t type,
                                 cm5_op_t op)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    if (coll_enter() != CM5_OK || split.red_on)
        return CM5_ERR_STATE;
    if (!cm5i_coll_valid(type, op) || !value)
        return CM5_ERR_INVALID;
    red_begin(&split.red, value, type, op);
    split.red_on = 1;
    split_advance();
    return CM5_OK;
}

int cm5_allreduce_test(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    return split_test(split.red_on, &split.red.done, &split.red.vt,
                      split.red.type, 0);
}

cm5_status_t cm5_allreduce_finish(void *value)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    cm5_status_t st;

    if (!value)
        return CM5_ERR_INVALID;
    st = split_finish(&split.red_on, &split.red.done, &split.red.vt,
                      split.red.type);
    if (st == CM5_OK)
        memcpy(value, &split.red.acc, cm5_type_size(split.red.type));
    return st;
}

cm5_status_t cm5_scan_start(const void *value, cm5_type_t type, cm5_op_t op,
                            unsigned flags, int start)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    cm5_status_t st = scan_check(value, type, op, flags);

    if (st != CM5_OK)
        return st;
    if (split.scan_on)
        return CM5_ERR_STATE;
    scan_begin(&split.scan, value, type, op, flags, start);
    split.scan_on = 1;
    split_advance();
    return CM5_OK;
}

int cm5_scan_test(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    return split_test(split.scan_on, &split.scan.done, &split.scan.vt,
                      split.scan.type, 1);
}

cm5_status_t cm5_scan_finish(void *value)
{
    CM5I_GUARD();
    CM5I_CN_HOLD();
    cm5_status_t st;

    if (!value)
        return CM5_ERR_INVALID;
    st = split_finish(&split.scan_on, &split.scan.done, &split.scan.vt,
                      split.scan.type);
    if (st == CM5_OK)
        memcpy(value, &split.scan.acc, cm5_type_size(split.scan.type));
    return st;
}

/* ---- vector scan: the same rounds over bulk messages ---- */

/* Receive len bytes from node from (if >= 0) while sending len bytes to
 * node to (if >= 0): neither waits for the other's partner. */
static void coll_swap(int to, int from, uint32_t seq, const void *sbuf,
                      void *rbuf, size_t len)
{
    cm5_msg_h rm = NULL, sm = NULL;
    cm5_status_t st = CM5_OK;

    if (from >= 0)
        st = cm5i_msg_recv(from, coll_tag(seq), rbuf, len, NULL, NULL, &rm);
    if (st == CM5_OK && to >= 0)
        st = cm5i_msg_send(to, coll_tag(seq), sbuf, len, 0, NULL, NULL, &sm);
    if (st == CM5_OK && rm)
        st = cm5_msg_wait(rm);
    if (st == CM5_OK && sm)
        st = cm5_msg_wait(sm);
    if (st != CM5_OK)
        cm5_fatal("cm5fab",
                  "vector scan step with nodes %d and %d failed "
                  "(nodes disagree on the length?): %s",
                  to, from, cm5_status_string(st));
    if (rm)
        cm5_msg_free(rm);
    if (sm)
        cm5_msg_free(sm);
}

/* One round: out = (values, f); in from pos - d; combine. */
static void scan_v_round(coll_scan_t *c, char *values, int count, char *out,
                         char *in, int d)
{
    size_t sz = cm5_type_size(c->type), len = sz * (size_t)count;
    int to = c->pos + d < cm5i_ctx.size ? scan_node(c, c->pos + d) : -1;
    int from = c->pos - d >= 0 ? scan_node(c, c->pos - d) : -1;
    uint32_t lf;

    memcpy(out, values, len);
    memcpy(out + len, &c->f, sizeof(c->f));
    coll_swap(to, from, c->seq, out, in, len + sizeof(c->f));
    if (from < 0)
        return;
    memcpy(&lf, in + len, sizeof(lf));
    if (!c->f) {
        for (int k = 0; k < count; k++)
            cm5i_coll_combine(in + k * sz, values + k * sz, c->type, c->op);
        memcpy(values, in, len);
    }
    c->f |= lf;
}

/* Exclusive: every position takes the previous one's inclusive result. */
static void scan_v_shift(coll_scan_t *c, char *values, int count, char *out,
                         char *in)
{
    size_t sz = cm5_type_size(c->type), len = sz * (size_t)count;
    int to = c->pos + 1 < cm5i_ctx.size ? scan_node(c, c->pos + 1) : -1;
    int from = c->pos > 0 ? scan_node(c, c->pos - 1) : -1;

    memcpy(out, values, len);
    coll_swap(to, from, c->seq, out, in, len);
    if (from >= 0)
        memcpy(values, in, len);
    if (from < 0 || c->first)
        for (int k = 0; k < count; k++)
            coll_identity(values + k * sz, c->type, c->op);
}

cm5_status_t cm5_scan_v(void *values, int count, cm5_type_t type, cm5_op_t op,
                        unsigned flags, int start)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_OP();
    size_t sz = cm5_type_size(type), len;
    cm5_status_t st;
    coll_scan_t c;
    cm5i_waiter_t w;
    char *out, *in;

    if (count < 0)
        return CM5_ERR_INVALID;
    st = scan_check(count ? values : &sz, type, op, flags);
    if (st != CM5_OK)
        return st;
    len = sz * (size_t)count;
    scan_begin(&c, &sz, type, op, flags, start); /* (c.acc is unused) */
    cm5i_waiter_start(&w, CM5I_WAIT_SEGSCAN);
    while (!scan_segend(&c)) /* segment ends travel as scalars */
        cm5i_wait_step(&w, CM5I_CH_ALL);
    cm5i_waiter_end(&w);
    out = malloc(len + sizeof(c.f));
    in = malloc(len + sizeof(c.f));
    if (!out || !in) {
        free(out);
        free(in);
        return CM5_ERR_NO_MEMORY;
    }
    for (int r = 0; r < c.rounds; r++)
        scan_v_round(&c, values, count, out, in, 1 << r);
    if (flags & CM5_SCAN_EXCLUSIVE) /* (round 0 is done: one tag will do) */
        scan_v_shift(&c, values, count, out, in);
    free(out);
    free(in);
    return coll_model_end(coll_red_kind(type), (size_t)count);
}

cm5_status_t cm5_ordered(void (*fn)(void *arg), void *arg)
{
    uint32_t seq;

    CM5I_GUARD();
    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    /* Synchronised virtual time: the turns pass in real time, which no
     * clock orders, so a node waiting for its turn takes no packet and
     * may send at its clock when it comes; a node before it in the
     * chain could then wait forever for that clock to move.  A barrier
     * first (one that serves handlers, and costs bar) brings every node
     * into the call: then the turns depend on nothing but each other. */
    if (CM5I_UNLIKELY(cm5i_clock_orders)) {
        cm5_status_t st;

        cm5i_depth.cn_serve++;
        st = cm5_barrier();
        cm5i_depth.cn_serve--;
        if (st != CM5_OK)
            return st;
    }
    seq = ++coll.seq;
    if (cm5i_ctx.rank > 0)
        coll_get(seq, 0, NULL, CM5I_WAIT_ORDERED);
    fn(arg);
    if (cm5i_ctx.rank + 1 < cm5i_ctx.size)
        coll_put(cm5i_ctx.rank + 1, seq, 0, 0, 0, CM5I_VT_NONE);
    return CM5_OK;
}

/* ---- the asynchronous global OR ---- */

static void coll_gor_handler(int src, const uint32_t *a)
{
    int bit = a[0] != 0;

    if (coll.gor_bits[src] != bit) {
        coll.gor_count += bit ? 1 : -1;
        coll.gor_bits[src] = (uint8_t)bit;
    }
}

void cm5_global_or_set(int bit)
{
    CM5I_GUARD();
    const uint32_t arg[4] = {bit != 0, 0, 0, 0};

    cm5i_ensure_init();
    if (coll.gor_mine == (bit != 0))
        return;
    coll.gor_mine = bit != 0;
    /* The nodes of the partition and the host program, if any. */
    for (int n = 0; n < cm5i_ctx.nep; n++) {
        if (n == cm5i_ctx.rank) {
            coll_gor_handler(n, arg);
            continue;
        }
        if (!cm5i_node_ok(n))
            continue;
        if (cm5i_am_internal(CM5I_CH_REQ, n, CM5I_INT_GOR, arg) != CM5_OK)
            cm5_fatal("cm5_global_or_set", "cannot reach node %d", n);
    }
}

int cm5_global_or_get(void)
{
    CM5I_GUARD();
    cm5i_ensure_init();
    if (!cm5i_depth.in_handler)
        cm5i_probe_progress_cn();
    return coll.gor_count > 0;
}

/* Free what collectives hold (finalize, or a start that failed). */
void cm5i_coll_teardown(void)
{
    while (coll.mail) {
        coll_mail_t *m = coll.mail;

        coll.mail = m->next;
        free(m);
    }
    free(coll.gor_bits);
    coll.gor_bits = NULL;
    coll.gor_count = coll.gor_mine = 0;
}

cm5_status_t cm5i_coll_setup(void)
{
    coll.gor_bits = calloc((size_t)cm5i_ctx.nep, 1);
    if (!coll.gor_bits)
        return CM5_ERR_NO_MEMORY;
    cm5i_am_register_internal(CM5I_INT_COLL, coll_handler);
    cm5i_am_register_internal(CM5I_INT_GOR, coll_gor_handler);
    return CM5_OK;
}
