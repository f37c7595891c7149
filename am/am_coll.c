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
 */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "am_internal.h"

#define COLL_SLOT_BCAST 63

typedef struct coll_mail {
    uint32_t seq;
    uint32_t slot;
    uint32_t flag;
    uint64_t val;
    struct coll_mail *next;
} coll_mail_t;

static struct {
    uint32_t seq;
    coll_mail_t *mail;
    /* Global OR: each node's latest bit, and how many are set. */
    uint8_t *gor_bits;
    int gor_count;
    int gor_mine;
} coll;

/* ---- scalar messages ---- */

static void coll_handler(int src, const uint32_t *a)
{
    coll_mail_t *m = malloc(sizeof(*m));

    (void)src;
    if (!m)
        cm5_fatal("cm5fab", "out of memory in a collective");
    m->val = (uint64_t)a[0] | (uint64_t)a[1] << 32;
    m->seq = a[2];
    m->slot = a[3] & 0xffff;
    m->flag = a[3] >> 16;
    m->next = coll.mail;
    coll.mail = m;
}

static void coll_put(int node, uint32_t seq, int slot, uint64_t val,
                     uint32_t flag)
{
    const uint32_t arg[4] = {(uint32_t)val, (uint32_t)(val >> 32), seq,
                             (uint32_t)slot | flag << 16};
    cm5_status_t st = cm5i_am_internal(CM5I_CH_REQ, node, CM5I_INT_COLL, arg);

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

static uint64_t coll_get(uint32_t seq, int slot, uint32_t *flag)
{
    cm5i_waiter_t w;
    coll_mail_t *m;
    uint64_t v;

    cm5i_waiter_init(&w);
    while (!(m = coll_find(seq, slot)))
        cm5i_wait_step(&w, CM5I_CH_ALL);
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

#define COLL_ARITH(T, a, b, op)                                               \
    do {                                                                      \
        T x_, y_;                                                             \
        memcpy(&x_, a, sizeof(T));                                            \
        memcpy(&y_, b, sizeof(T));                                            \
        x_ = op == CM5_OP_ADD ? (T)(x_ + y_)                                  \
             : op == CM5_OP_MAX ? (x_ > y_ ? x_ : y_)                         \
                                : (x_ < y_ ? x_ : y_);                        \
        memcpy(a, &x_, sizeof(T));                                            \
    } while (0)

#define COLL_BITS(T, a, b, op)                                                \
    do {                                                                      \
        T x_, y_;                                                             \
        memcpy(&x_, a, sizeof(T));                                            \
        memcpy(&y_, b, sizeof(T));                                            \
        x_ = op == CM5_OP_AND ? (x_ & y_)                                     \
             : op == CM5_OP_IOR ? (x_ | y_)                                   \
                                : (x_ ^ y_);                                  \
        memcpy(a, &x_, sizeof(T));                                            \
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
    case CM5_INT32: COLL_ARITH(int32_t, a, b, op); break;
    case CM5_UINT32: COLL_ARITH(uint32_t, a, b, op); break;
    case CM5_INT64: COLL_ARITH(int64_t, a, b, op); break;
    case CM5_UINT64: COLL_ARITH(uint64_t, a, b, op); break;
    case CM5_FLOAT: COLL_ARITH(float, a, b, op); break;
    case CM5_DOUBLE: COLL_ARITH(double, a, b, op); break;
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
    case CM5_INT32: memcpy(out, &i32[op], sz); break;
    case CM5_UINT32: memcpy(out, &u32[op], sz); break;
    case CM5_INT64: memcpy(out, &i64[op], sz); break;
    case CM5_UINT64: memcpy(out, &u64[op], sz); break;
    case CM5_FLOAT: memcpy(out, &f[op], sz); break;
    case CM5_DOUBLE: memcpy(out, &d[op], sz); break;
    }
}

static uint64_t coll_pack(const void *v, size_t sz)
{
    uint64_t x = 0;

    memcpy(&x, v, sz);
    return x;
}

/* ---- bulk steps over internal messages ---- */

static int coll_tag(uint32_t seq)
{
    return -2 - (int)(seq & 0x3fffffff);
}

static void coll_xfer(int send, int node, uint32_t seq, void *buf,
                      size_t len)
{
    cm5_msg_h m;
    cm5_status_t st =
        send ? cm5i_msg_send(node, coll_tag(seq), buf, len, 0, NULL, NULL, &m)
             : cm5i_msg_recv(node, coll_tag(seq), buf, len, NULL, NULL, &m);

    if (st == CM5_OK)
        st = cm5_msg_wait(m);
    if (st == CM5_ERR_INVALID)
        cm5_fatal("cm5fab", "collective data from node %d is longer than "
                  "this node's buffer of %zu bytes (nodes disagree on the "
                  "length)", node, len);
    if (st != CM5_OK)
        cm5_fatal("cm5fab", "collective transfer with node %d failed: %s",
                  node, cm5_status_string(st));
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
    return cm5i_ctx.in_handler || cm5i_ctx.rank >= cm5i_ctx.size
               ? CM5_ERR_STATE
               : CM5_OK;
}

cm5_status_t cm5_allreduce(void *values, int count, cm5_type_t type,
                           cm5_op_t op)
{
    CM5I_GUARD();
    size_t sz = cm5_type_size(type), len;
    int me, size, low;
    uint32_t seq;
    char *tmp;

    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (!cm5i_coll_valid(type, op) || count < 0 || (count && !values))
        return CM5_ERR_INVALID;
    me = cm5i_ctx.rank;
    size = cm5i_ctx.size;
    low = coll_low(me, size);
    seq = ++coll.seq;
    len = sz * (size_t)count;
    if (count == 1) { /* one value: active messages only */
        for (int m = 1; m < low && me + m < size; m <<= 1) {
            uint64_t v = coll_get(seq, __builtin_ctz((unsigned)m), NULL);

            cm5i_coll_combine(values, &v, type, op);
        }
        if (me != 0) {
            uint64_t v;

            coll_put(me - low, seq, __builtin_ctz((unsigned)low),
                     coll_pack(values, sz), 0);
            v = coll_get(seq, COLL_SLOT_BCAST, NULL);
            memcpy(values, &v, sz);
        }
        for (int m = low >> 1; m >= 1; m >>= 1)
            if (me + m < size)
                coll_put(me + m, seq, COLL_SLOT_BCAST,
                         coll_pack(values, sz), 0);
        return CM5_OK;
    }
    tmp = malloc(len ? len : 1);
    if (!tmp)
        return CM5_ERR_NO_MEMORY;
    for (int m = 1; m < low && me + m < size; m <<= 1) {
        coll_xfer(0, me + m, seq, tmp, len);
        for (int k = 0; k < count; k++)
            cm5i_coll_combine((char *)values + k * sz, tmp + k * sz, type,
                              op);
    }
    if (me != 0)
        coll_xfer(1, me - low, seq, values, len);
    free(tmp);
    coll_bcast_tree(seq, values, len);
    return CM5_OK;
}

cm5_status_t cm5_bcast(void *buf, size_t len, int root)
{
    CM5I_GUARD();
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
    return CM5_OK;
}

cm5_status_t cm5_allgather(const void *mine, size_t len, void *all)
{
    CM5I_GUARD();
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
    return CM5_OK;
}

/* Segmented scan by recursive doubling on pairs (acc, f): after round r
 * a node's acc combines the values of the 2^(r+1) positions ending at its
 * own, cut at the start of its segment, and f says whether that window
 * reached a segment start.  An exclusive scan then shifts the inclusive
 * results one position along. */
#define COLL_SLOT_SHIFT 62

cm5_status_t cm5_scan(void *value, cm5_type_t type, cm5_op_t op,
                      unsigned flags, int start)
{
    CM5I_GUARD();
    size_t sz = cm5_type_size(type);
    int size, pos, down = (flags & CM5_SCAN_DOWNWARD) != 0;
    uint64_t acc;
    uint32_t seq, f;

    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (!cm5i_coll_valid(type, op) || !value)
        return CM5_ERR_INVALID;
    size = cm5i_ctx.size;
    pos = down ? size - 1 - cm5i_ctx.rank : cm5i_ctx.rank;
#define COLL_NODE(p) (down ? size - 1 - (p) : (p))
    seq = ++coll.seq;
    acc = coll_pack(value, sz);
    f = start != 0;
    for (int r = 0; (1 << r) < size; r++) {
        int d = 1 << r;
        uint32_t lf = 0;
        uint64_t left;

        if (pos + d < size)
            coll_put(COLL_NODE(pos + d), seq, r, acc, f);
        if (pos - d < 0)
            continue;
        left = coll_get(seq, r, &lf);
        if (!f) {
            cm5i_coll_combine(&left, &acc, type, op);
            acc = left;
        }
        f |= lf;
    }
    if (flags & CM5_SCAN_EXCLUSIVE) {
        uint64_t mine = acc;

        if (pos + 1 < size)
            coll_put(COLL_NODE(pos + 1), seq, COLL_SLOT_SHIFT, mine, 0);
        if (pos > 0)
            acc = coll_get(seq, COLL_SLOT_SHIFT, NULL);
        if (pos == 0 || start)
            coll_identity(&acc, type, op);
    }
#undef COLL_NODE
    memcpy(value, &acc, sz);
    return CM5_OK;
}

cm5_status_t cm5_ordered(void (*fn)(void *arg), void *arg)
{
    uint32_t seq;

    CM5I_GUARD();
    if (coll_enter() != CM5_OK)
        return CM5_ERR_STATE;
    seq = ++coll.seq;
    if (cm5i_ctx.rank > 0)
        coll_get(seq, 0, NULL);
    fn(arg);
    if (cm5i_ctx.rank + 1 < cm5i_ctx.size)
        coll_put(cm5i_ctx.rank + 1, seq, 0, 0, 0);
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
    if (!cm5i_ctx.in_handler)
        cm5i_progress(CM5I_CH_ALL);
    return coll.gor_count > 0;
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
