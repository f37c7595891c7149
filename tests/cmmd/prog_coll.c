/*
 * prog_coll: the CMMD control network, written as legacy code would
 * against <cm/cmmd.h>.  Every node knows every node's (deterministic)
 * inputs, computes the expected results itself and compares.  Prints
 * "prog_coll: node I of N ok" at the end.
 *
 *   reduce     CMMD_reduce_{int,uint,lint,luint,float,double} with every
 *              combiner that applies; the result's bits are the same on
 *              every node (checked with CMMD_concat_with_nodes)
 *   reduce_v   CMMD_reduce_v on int, unsigned, long, float, double vectors
 *   scan       CMMD_scan_* up/down, inclusive/exclusive, segment modes
 *              none, start_bit and segment_bit
 *   bc         CMMD_bc_to_nodes from several roots, CMMD_receive_bc_from_node
 *   concat     CMMD_concat_with_nodes
 *   barrier    CMMD_sync_with_nodes and the split-phase form: nobody gets
 *              past (or sees CMMD_sync_done) before everybody has started,
 *              on the machine-wide monotonic clock
 *   global or  CMMD_set_global_or / CMMD_get_global_or
 *   CMCN_*, CMUTIL_*  the same results as their CMMD_ twins
 */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

enum { OP_ADD, OP_MAX, OP_MIN, OP_AND, OP_IOR, OP_XOR };

static const struct {
    CMMD_combiner_t c;
    int op;
    const char *name;
} combiners[] = {
    {CMMD_combiner_add, OP_ADD, "add"},   {CMMD_combiner_uadd, OP_ADD, "uadd"},
    {CMMD_combiner_fadd, OP_ADD, "fadd"}, {CMMD_combiner_dadd, OP_ADD, "dadd"},
    {CMMD_combiner_max, OP_MAX, "max"},   {CMMD_combiner_umax, OP_MAX, "umax"},
    {CMMD_combiner_fmax, OP_MAX, "fmax"}, {CMMD_combiner_dmax, OP_MAX, "dmax"},
    {CMMD_combiner_min, OP_MIN, "min"},   {CMMD_combiner_umin, OP_MIN, "umin"},
    {CMMD_combiner_fmin, OP_MIN, "fmin"}, {CMMD_combiner_dmin, OP_MIN, "dmin"},
    {CMMD_combiner_and, OP_AND, "and"},   {CMMD_combiner_ior, OP_IOR, "ior"},
    {CMMD_combiner_xor, OP_XOR, "xor"},
};
#define NCOMB ((int)(sizeof(combiners) / sizeof(*combiners)))

/* ---- values and the expected combinations, per type ---- */

/* Node i's input number k; arithmetic inputs are small enough (and, for
 * floating point, exact halves) that any order of combination gives the
 * same bits. */
static int v_int(int i, int k, int op)
{
    uint32_t h = t_hash((uint32_t)i, (uint32_t)k);

    return op >= OP_AND ? (int)h : (int)(h % 20001) - 10000;
}
static unsigned v_uint(int i, int k, int op)
{
    uint32_t h = t_hash((uint32_t)i, (uint32_t)k + 77);

    return op >= OP_AND ? h : op == OP_ADD ? h : 0x7ffffff0u + h % 32;
}
static long v_lint(int i, int k, int op)
{
    uint64_t h = t_hash64((uint32_t)i, (uint32_t)k);

    return op >= OP_AND ? (long)h : ((long)(h % 20001) - 10000) * 4294967311L;
}
static unsigned long v_luint(int i, int k, int op)
{
    uint64_t h = t_hash64((uint32_t)i, (uint32_t)k + 99);

    return op == OP_MAX || op == OP_MIN ? 0x7ffffffffffffff0UL + h % 32
                                        : (unsigned long)h;
}
static float v_float(int i, int k)
{
    return (float)((int)(t_hash((uint32_t)i, (uint32_t)k + 5) % 4001) - 2000) *
           0.5f;
}
static double v_double(int i, int k)
{
    return (double)((long)(t_hash64((uint32_t)i, (uint32_t)k + 7) % 400000001) -
                    200000000) *
           0.25;
}

#define COMBINE(T, a, b, op)                                                   \
    ((op) == OP_ADD   ? (T)((a) + (b))                                         \
     : (op) == OP_MAX ? ((a) > (b) ? (a) : (b))                                \
     : (op) == OP_MIN ? ((a) < (b) ? (a) : (b))                                \
     : (op) == OP_AND ? (T)((a) & (b))                                         \
     : (op) == OP_IOR ? (T)((a) | (b))                                         \
                      : (T)((a) ^ (b)))
#define FCOMBINE(a, b, op)                                                     \
    ((op) == OP_ADD   ? (a) + (b)                                              \
     : (op) == OP_MAX ? ((a) > (b) ? (a) : (b))                                \
                      : ((a) < (b) ? (a) : (b)))

/* Unsigned arithmetic in the signed types: wrap-around as the hardware. */
static int add_int(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
static long add_lint(long a, long b)
{
    return (long)((unsigned long)a + (unsigned long)b);
}
static int comb_int(int a, int b, int op)
{
    return op == OP_ADD ? add_int(a, b) : COMBINE(int, a, b, op);
}
static long comb_lint(long a, long b, int op)
{
    return op == OP_ADD ? add_lint(a, b) : COMBINE(long, a, b, op);
}

/* Every node has the same bits as this one. */
static void same_everywhere(const void *mine, int len, const char *what)
{
    char *all = t_malloc((size_t)len * (size_t)t_nodes);

    CMMD_concat_with_nodes((void *)mine, all, len);
    for (int n = 0; n < t_nodes; n++)
        T_CHECK(memcmp(all + (size_t)n * (size_t)len, mine, (size_t)len) == 0,
                "%s: node %d got other bits than node %d", what, n, t_self);
    free(all);
}

/* ---- reductions ---- */

static void test_reduce(void)
{
    char what[128];

    for (int c = 0; c < NCOMB; c++) {
        int op = combiners[c].op, k = c;
        int ri, ei = v_int(0, k, op);
        unsigned ru, eu = v_uint(0, k, op);
        long rl, el = v_lint(0, k, op);
        unsigned long rlu, elu = v_luint(0, k, op);

        for (int n = 1; n < t_nodes; n++) {
            ei = comb_int(ei, v_int(n, k, op), op);
            eu = COMBINE(unsigned, eu, v_uint(n, k, op), op);
            el = comb_lint(el, v_lint(n, k, op), op);
            elu = COMBINE(unsigned long, elu, v_luint(n, k, op), op);
        }
        snprintf(what, sizeof(what), "CMMD_reduce_int(%s)", combiners[c].name);
        ri = CMMD_reduce_int(v_int(t_self, k, op), combiners[c].c);
        T_CHECK(ri == ei, "%s is %d, expected %d", what, ri, ei);
        same_everywhere(&ri, sizeof(ri), what);
        ru = CMMD_reduce_uint(v_uint(t_self, k, op), combiners[c].c);
        T_CHECK(ru == eu, "CMMD_reduce_uint(%s) is %u, expected %u",
                combiners[c].name, ru, eu);
        same_everywhere(&ru, sizeof(ru), "CMMD_reduce_uint");
        rl = CMMD_reduce_lint(v_lint(t_self, k, op), combiners[c].c);
        T_CHECK(rl == el, "CMMD_reduce_lint(%s) is %ld, expected %ld",
                combiners[c].name, rl, el);
        same_everywhere(&rl, sizeof(rl), "CMMD_reduce_lint");
        rlu = CMMD_reduce_luint(v_luint(t_self, k, op), combiners[c].c);
        T_CHECK(rlu == elu, "CMMD_reduce_luint(%s) is %lu, expected %lu",
                combiners[c].name, rlu, elu);
        same_everywhere(&rlu, sizeof(rlu), "CMMD_reduce_luint");
        if (op >= OP_AND)
            continue;
        {
            float rf, ef = v_float(0, k);
            double rd, ed = v_double(0, k);

            for (int n = 1; n < t_nodes; n++) {
                ef = FCOMBINE(ef, v_float(n, k), op);
                ed = FCOMBINE(ed, v_double(n, k), op);
            }
            rf = CMMD_reduce_float(v_float(t_self, k), combiners[c].c);
            T_CHECK(rf == ef, "CMMD_reduce_float(%s) is %.9g, expected %.9g",
                    combiners[c].name, rf, ef);
            same_everywhere(&rf, sizeof(rf), "CMMD_reduce_float");
            rd = CMMD_reduce_double(v_double(t_self, k), combiners[c].c);
            T_CHECK(rd == ed,
                    "CMMD_reduce_double(%s) is %.17g, expected "
                    "%.17g",
                    combiners[c].name, rd, ed);
            same_everywhere(&rd, sizeof(rd), "CMMD_reduce_double");
        }
    }
    /* Inexact sums: the order of combination shows in the last bits, and
     * every node must still get the very same bits. */
    {
        double d = CMMD_reduce_double(1.0 / (t_self + 3), CMMD_combiner_dadd);
        float f =
            CMMD_reduce_float(1.0f / (float)(t_self + 3), CMMD_combiner_fadd);
        double ed = 0;

        for (int n = 0; n < t_nodes; n++)
            ed += 1.0 / (n + 3);
        T_CHECK((d > ed ? d - ed : ed - d) <= 1e-12 * ed,
                "CMMD_reduce_double(dadd) of "
                "1/(i+3) is %.17g, expected about %.17g",
                d, ed);
        T_CHECK((f > ed ? f - ed : ed - f) <= 1e-5 * ed,
                "CMMD_reduce_float(fadd) of "
                "1/(i+3) is %.9g, expected about %.9g",
                f, ed);
        same_everywhere(&d, sizeof(d), "CMMD_reduce_double(dadd) of 1/(i+3)");
        same_everywhere(&f, sizeof(f), "CMMD_reduce_float(fadd) of 1/(i+3)");
    }
}

/* The CMCN_ names: the same results. */
static void test_cmcn_reduce(void)
{
    int k = 3;

    T_EQ(CMCN_reduce_int(v_int(t_self, k, OP_ADD), CMMD_combiner_add),
         CMMD_reduce_int(v_int(t_self, k, OP_ADD), CMMD_combiner_add),
         "CMCN_reduce_int vs CMMD_reduce_int");
    T_CHECK(CMCN_reduce_uint(v_uint(t_self, k, OP_MAX), CMMD_combiner_umax) ==
                CMMD_reduce_uint(v_uint(t_self, k, OP_MAX), CMMD_combiner_umax),
            "CMCN_reduce_uint differs from CMMD_reduce_uint");
    T_CHECK(CMCN_reduce_lint(v_lint(t_self, k, OP_XOR), CMMD_combiner_xor) ==
                CMMD_reduce_lint(v_lint(t_self, k, OP_XOR), CMMD_combiner_xor),
            "CMCN_reduce_lint differs from CMMD_reduce_lint");
    T_CHECK(
        CMCN_reduce_luint(v_luint(t_self, k, OP_MIN), CMMD_combiner_min) ==
            CMMD_reduce_luint(v_luint(t_self, k, OP_MIN), CMMD_combiner_min),
        "CMCN_reduce_luint differs from CMMD_reduce_luint");
    T_CHECK(CMCN_reduce_float(v_float(t_self, k), CMMD_combiner_fmax) ==
                CMMD_reduce_float(v_float(t_self, k), CMMD_combiner_fmax),
            "CMCN_reduce_float differs from CMMD_reduce_float");
    T_CHECK(CMCN_reduce_double(v_double(t_self, k), CMMD_combiner_dadd) ==
                CMMD_reduce_double(v_double(t_self, k), CMMD_combiner_dadd),
            "CMCN_reduce_double differs from CMMD_reduce_double");
}

/* ---- reduce_v ---- */

#define VCOUNT 1000

static void rv_int(CMMD_combiner_t c, int op, int count, int inplace,
                   const char *name)
{
    int32_t *src = t_malloc(sizeof(int32_t) * (size_t)count + 1);
    int32_t *dst = inplace ? src : t_malloc(sizeof(int32_t) * (size_t)count);
    int uns = c == CMMD_combiner_uadd || c == CMMD_combiner_umax ||
              c == CMMD_combiner_umin;

    for (int e = 0; e < count; e++)
        src[e] = uns ? (int32_t)v_uint(t_self, 1000 + e, op)
                     : v_int(t_self, 1000 + e, op);
    CMMD_reduce_v(dst, src, c, 4, count);
    for (int e = 0; e < count; e++) {
        int32_t want =
            uns ? (int32_t)v_uint(0, 1000 + e, op) : v_int(0, 1000 + e, op);

        for (int n = 1; n < t_nodes; n++) {
            if (uns)
                want = (int32_t)COMBINE(uint32_t, (uint32_t)want,
                                        v_uint(n, 1000 + e, op), op);
            else
                want = comb_int(want, v_int(n, 1000 + e, op), op);
        }
        T_CHECK(dst[e] == want,
                "CMMD_reduce_v(%s, 4 bytes, count %d%s) "
                "element %d is %d, expected %d",
                name, count, inplace ? ", in place" : "", e, dst[e], want);
        if (!inplace)
            T_CHECK(src[e] == (uns ? (int32_t)v_uint(t_self, 1000 + e, op)
                                   : v_int(t_self, 1000 + e, op)),
                    "CMMD_reduce_v changed its source (element %d)", e);
    }
    if (!inplace)
        free(dst);
    free(src);
}

static void rv_long(CMMD_combiner_t c, int op, int count, int inplace,
                    const char *name)
{
    int64_t *src = t_malloc(sizeof(int64_t) * (size_t)count + 1);
    int64_t *dst = inplace ? src : t_malloc(sizeof(int64_t) * (size_t)count);
    int uns = c == CMMD_combiner_uadd || c == CMMD_combiner_umax ||
              c == CMMD_combiner_umin || op >= OP_AND;

    for (int e = 0; e < count; e++)
        src[e] = uns ? (int64_t)v_luint(t_self, 2000 + e, op)
                     : v_lint(t_self, 2000 + e, op);
    CMMD_reduce_v(dst, src, c, 8, count);
    for (int e = 0; e < count; e++) {
        int64_t want =
            uns ? (int64_t)v_luint(0, 2000 + e, op) : v_lint(0, 2000 + e, op);

        for (int n = 1; n < t_nodes; n++) {
            if (uns)
                want = (int64_t)COMBINE(uint64_t, (uint64_t)want,
                                        v_luint(n, 2000 + e, op), op);
            else
                want = comb_lint(want, v_lint(n, 2000 + e, op), op);
        }
        T_CHECK(dst[e] == want,
                "CMMD_reduce_v(%s, 8 bytes, count %d%s) "
                "element %d is %lld, expected %lld",
                name, count, inplace ? ", in place" : "", e, (long long)dst[e],
                (long long)want);
    }
    if (!inplace)
        free(dst);
    free(src);
}

static void rv_fp(CMMD_combiner_t c, int op, int size, int count,
                  const char *name)
{
    char *src = t_malloc((size_t)size * (size_t)count + 1);
    char *dst = t_malloc((size_t)size * (size_t)count + 1);

    for (int e = 0; e < count; e++) {
        float f = v_float(t_self, 3000 + e);
        double d = v_double(t_self, 3000 + e);

        memcpy(src + (size_t)e * (size_t)size,
               size == 4 ? (void *)&f : (void *)&d, (size_t)size);
    }
    CMMD_reduce_v(dst, src, c, size, count);
    for (int e = 0; e < count; e++) {
        float ef = v_float(0, 3000 + e), gf;
        double ed = v_double(0, 3000 + e), gd;

        for (int n = 1; n < t_nodes; n++) {
            ef = FCOMBINE(ef, v_float(n, 3000 + e), op);
            ed = FCOMBINE(ed, v_double(n, 3000 + e), op);
        }
        if (size == 4) {
            memcpy(&gf, dst + (size_t)e * 4, 4);
            T_CHECK(gf == ef,
                    "CMMD_reduce_v(%s, float) element %d is %.9g, "
                    "expected %.9g",
                    name, e, gf, ef);
        } else {
            memcpy(&gd, dst + (size_t)e * 8, 8);
            T_CHECK(gd == ed,
                    "CMMD_reduce_v(%s, double) element %d is "
                    "%.17g, expected %.17g",
                    name, e, gd, ed);
        }
    }
    free(src);
    free(dst);
}

static void test_reduce_v(void)
{
    static const struct {
        CMMD_combiner_t c;
        int op;
        const char *name;
    } ic[] = {{CMMD_combiner_add, OP_ADD, "add"},
              {CMMD_combiner_max, OP_MAX, "max"},
              {CMMD_combiner_min, OP_MIN, "min"},
              {CMMD_combiner_uadd, OP_ADD, "uadd"},
              {CMMD_combiner_umax, OP_MAX, "umax"},
              {CMMD_combiner_umin, OP_MIN, "umin"},
              {CMMD_combiner_and, OP_AND, "and"},
              {CMMD_combiner_ior, OP_IOR, "ior"},
              {CMMD_combiner_xor, OP_XOR, "xor"}};

    for (size_t i = 0; i < sizeof(ic) / sizeof(*ic); i++) {
        rv_int(ic[i].c, ic[i].op, VCOUNT, 0, ic[i].name);
        rv_long(ic[i].c, ic[i].op, VCOUNT, (int)(i & 1), ic[i].name);
    }
    rv_int(CMMD_combiner_max, OP_MAX, 1, 1, "max");
    rv_int(CMMD_combiner_add, OP_ADD, 3, 1, "add");
    rv_int(CMMD_combiner_add, OP_ADD, 0, 0, "add");
    rv_fp(CMMD_combiner_fadd, OP_ADD, 4, VCOUNT, "fadd");
    rv_fp(CMMD_combiner_fmax, OP_MAX, 4, VCOUNT, "fmax");
    rv_fp(CMMD_combiner_fmin, OP_MIN, 4, 1, "fmin");
    rv_fp(CMMD_combiner_dadd, OP_ADD, 8, VCOUNT, "dadd");
    rv_fp(CMMD_combiner_dmax, OP_MAX, 8, 1, "dmax");
    rv_fp(CMMD_combiner_dmin, OP_MIN, 8, VCOUNT, "dmin");
    {
        int32_t a[5], b[5];

        for (int e = 0; e < 5; e++)
            a[e] = t_self * 10 + e;
        CMCN_reduce_v(b, a, CMMD_combiner_add, 4, 5);
        for (int e = 0; e < 5; e++)
            T_EQ(b[e], 10 * t_nodes * (t_nodes - 1) / 2 + e * t_nodes,
                 "CMCN_reduce_v element");
    }
}

/* ---- scans ---- */

enum { T_INT, T_UINT, T_LINT, T_LUINT, T_FLOAT, T_DOUBLE };
static const char *tnames[] = {"int",   "uint",  "lint",
                               "luint", "float", "double"};

typedef union {
    int i;
    unsigned u;
    long l;
    unsigned long lu;
    float f;
    double d;
} val_t;

static val_t sval(int type, int node, int k, int op)
{
    val_t v;

    memset(&v, 0, sizeof(v));
    switch (type) {
    case T_INT:
        v.i = v_int(node, k, op);
        break;
    case T_UINT:
        v.u = v_uint(node, k, op);
        break;
    case T_LINT:
        v.l = v_lint(node, k, op);
        break;
    case T_LUINT:
        v.lu = v_luint(node, k, op);
        break;
    case T_FLOAT:
        v.f = v_float(node, k);
        break;
    default:
        v.d = v_double(node, k);
        break;
    }
    return v;
}

static val_t scomb(int type, val_t a, val_t b, int op)
{
    switch (type) {
    case T_INT:
        a.i = comb_int(a.i, b.i, op);
        break;
    case T_UINT:
        a.u = COMBINE(unsigned, a.u, b.u, op);
        break;
    case T_LINT:
        a.l = comb_lint(a.l, b.l, op);
        break;
    case T_LUINT:
        a.lu = COMBINE(unsigned long, a.lu, b.lu, op);
        break;
    case T_FLOAT:
        a.f = FCOMBINE(a.f, b.f, op);
        break;
    default:
        a.d = FCOMBINE(a.d, b.d, op);
        break;
    }
    return a;
}

/* What an exclusive scan gives the first node of a segment. */
static val_t sidentity(int type, int op)
{
    val_t v;

    memset(&v, 0, sizeof(v));
    if (op == OP_AND) {
        memset(&v, 0xff, sizeof(v));
        return v;
    }
    if (op != OP_MAX && op != OP_MIN)
        return v;
    switch (type) {
    case T_INT:
        v.i = op == OP_MAX ? INT_MIN : INT_MAX;
        break;
    case T_UINT:
        v.u = op == OP_MAX ? 0 : UINT_MAX;
        break;
    case T_LINT:
        v.l = op == OP_MAX ? LONG_MIN : LONG_MAX;
        break;
    case T_LUINT:
        v.lu = op == OP_MAX ? 0 : ULONG_MAX;
        break;
    case T_FLOAT:
        v.f = op == OP_MAX ? -FLT_MAX : FLT_MAX;
        break;
    default:
        v.d = op == OP_MAX ? -DBL_MAX : DBL_MAX;
        break;
    }
    return v;
}

static int sbit_of(int node, int k)
{
    return t_hash((uint32_t)node, (uint32_t)k + 555) % 3 == 0;
}

/* The expected scan result of node self, by walking the nodes in scan
 * order. */
static val_t scan_expect(int type, int op, int down, int smode, int excl, int k)
{
    val_t acc, prev_incl;
    int have = 0;

    memset(&acc, 0, sizeof(acc));
    prev_incl = acc;
    for (int p = 0; p < t_nodes; p++) {
        int node = down ? t_nodes - 1 - p : p;
        int prevnode = down ? node + 1 : node - 1;
        int start = p == 0 || (smode == CMMD_start_bit && sbit_of(node, k)) ||
                    (smode == CMMD_segment_bit && sbit_of(prevnode, k));
        val_t v = sval(type, node, k, op);

        prev_incl = acc;
        acc = start || !have ? v : scomb(type, acc, v, op);
        have = 1;
        if (node == t_self) {
            if (!excl)
                return acc;
            return start ? sidentity(type, op) : prev_incl;
        }
    }
    return acc; /* not reached */
}

static int val_eq(int type, val_t a, val_t b)
{
    switch (type) {
    case T_INT:
        return a.i == b.i;
    case T_UINT:
        return a.u == b.u;
    case T_LINT:
        return a.l == b.l;
    case T_LUINT:
        return a.lu == b.lu;
    case T_FLOAT:
        return memcmp(&a.f, &b.f, sizeof(float)) == 0;
    default:
        return memcmp(&a.d, &b.d, sizeof(double)) == 0;
    }
}

static void val_str(int type, val_t v, char *s, size_t n)
{
    switch (type) {
    case T_INT:
        snprintf(s, n, "%d", v.i);
        break;
    case T_UINT:
        snprintf(s, n, "%u", v.u);
        break;
    case T_LINT:
        snprintf(s, n, "%ld", v.l);
        break;
    case T_LUINT:
        snprintf(s, n, "%lu", v.lu);
        break;
    case T_FLOAT:
        snprintf(s, n, "%.9g", v.f);
        break;
    default:
        snprintf(s, n, "%.17g", v.d);
        break;
    }
}

static val_t do_scan(int cmcn, int type, val_t v, CMMD_combiner_t c, int dir,
                     int smode, int sbit, int inc)
{
    CMMD_scan_direction_t d = (CMMD_scan_direction_t)dir;
    CMMD_segment_mode_t s = (CMMD_segment_mode_t)smode;
    CMMD_scan_inclusion_t i = (CMMD_scan_inclusion_t)inc;

    switch (type) {
    case T_INT:
        v.i = cmcn ? CMCN_scan_int(v.i, c, d, s, sbit, i)
                   : CMMD_scan_int(v.i, c, d, s, sbit, i);
        break;
    case T_UINT:
        v.u = cmcn ? CMCN_scan_uint(v.u, c, d, s, sbit, i)
                   : CMMD_scan_uint(v.u, c, d, s, sbit, i);
        break;
    case T_LINT:
        v.l = cmcn ? CMCN_scan_lint(v.l, c, d, s, sbit, i)
                   : CMMD_scan_lint(v.l, c, d, s, sbit, i);
        break;
    case T_LUINT:
        v.lu = cmcn ? CMCN_scan_luint(v.lu, c, d, s, sbit, i)
                    : CMMD_scan_luint(v.lu, c, d, s, sbit, i);
        break;
    case T_FLOAT:
        v.f = cmcn ? CMCN_scan_float(v.f, c, d, s, sbit, i)
                   : CMMD_scan_float(v.f, c, d, s, sbit, i);
        break;
    default:
        v.d = cmcn ? CMCN_scan_double(v.d, c, d, s, sbit, i)
                   : CMMD_scan_double(v.d, c, d, s, sbit, i);
        break;
    }
    return v;
}

static void test_scan(void)
{
    static const char *smodes[] = {"none", "start_bit", "segment_bit"};
    int k = 0;

    for (int type = T_INT; type <= T_DOUBLE; type++) {
        int nops = type >= T_FLOAT ? 3 : 6;

        for (int op = 0; op < nops; op++) {
            for (int cfg = 0; cfg < 12; cfg++, k++) {
                int dir = cfg & 1, inc = (cfg >> 1) & 1, smode = cfg >> 2;
                /* Cycle through the aliases of the operation. */
                CMMD_combiner_t c = op >= OP_AND ? combiners[12 + op - OP_AND].c
                                                 : combiners[op * 4 + k % 4].c;
                int cmcn = k % 7 == 0;
                val_t got, want;
                char g[64], w[64];

                got = do_scan(cmcn, type, sval(type, t_self, k, op), c, dir,
                              smode, sbit_of(t_self, k), inc);
                want = scan_expect(type, op, dir, smode, inc, k);
                val_str(type, got, g, sizeof(g));
                val_str(type, want, w, sizeof(w));
                T_CHECK(val_eq(type, got, want),
                        "%s_scan_%s(combiner %d, %s, %s, %s) is %s, "
                        "expected %s (scan %d)",
                        cmcn ? "CMCN" : "CMMD", tnames[type], (int)c,
                        dir ? "downward" : "upward", smodes[smode],
                        inc ? "exclusive" : "inclusive", g, w, k);
            }
        }
    }
}

/* ---- broadcast, concat ---- */

static void test_bc(void)
{
    static const int sizes[] = {0, 4, 1000, T_MIB};
    int roots[4] = {0, t_nodes - 1, t_nodes / 2, 1 % t_nodes};

    for (int r = 0; r < 4; r++) {
        for (int s = 0; s < 4; s++) {
            int size = sizes[s], root = roots[r];
            char *buf = t_malloc((size_t)size + 16);
            int cmcn = (r + s) % 5 == 0;

            if (t_self == root)
                t_fill(buf, (size_t)size, 5000 + (uint32_t)(r * 4 + s));
            else
                memset(buf, 0xA5, (size_t)size);
            memset(buf + size, 0x3C, 16);
            if (t_self == root) {
                if (cmcn)
                    CMCN_bc_to_nodes(buf, size);
                else
                    CMMD_bc_to_nodes(buf, size);
            } else {
                if (cmcn)
                    CMCN_receive_bc_from_node(buf, size);
                else
                    CMMD_receive_bc_from_node(buf, size);
            }
            T_PATTERN(buf, (size_t)size, 5000 + (uint32_t)(r * 4 + s),
                      "%d-byte broadcast from node %d", size, root);
            for (int i = 0; i < 16; i++)
                T_CHECK(buf[size + i] == 0x3C,
                        "a %d-byte broadcast wrote "
                        "past its buffer",
                        size);
            free(buf);
        }
    }
}

static void test_concat(void)
{
    static const int lens[] = {1, 8, 4096};

    for (int l = 0; l < 3; l++) {
        int len = lens[l];
        char *mine = t_malloc((size_t)len);
        char *all = t_malloc((size_t)len * (size_t)t_nodes + 16);

        t_fill(mine, (size_t)len, 6000 + (uint32_t)(t_self * 8 + l));
        memset(all, 0, (size_t)len * (size_t)t_nodes + 16);
        if (l == 1)
            CMCN_concat_with_nodes(mine, all, len);
        else
            CMMD_concat_with_nodes(mine, all, len);
        for (int n = 0; n < t_nodes; n++)
            T_PATTERN(all + (size_t)n * (size_t)len, (size_t)len,
                      6000 + (uint32_t)(n * 8 + l),
                      "element of node %d in a concatenation of %d-byte "
                      "elements",
                      n, len);
        for (int i = 0; i < 16; i++)
            T_CHECK(all[(size_t)len * (size_t)t_nodes + (size_t)i] == 0,
                    "CMMD_concat_with_nodes wrote past N elements");
        free(mine);
        free(all);
    }
}

/* ---- barriers ---- */

static double *times_of_all(double t)
{
    static double all[1024];

    CMMD_concat_with_nodes(&t, all, (int)sizeof(double));
    return all;
}

static double max_of(const double *a)
{
    double m = a[0];

    for (int n = 1; n < t_nodes; n++)
        m = a[n] > m ? a[n] : m;
    return m;
}

static void test_barrier(void)
{
    double enter, leave, *all;

    /* Nodes enter at different times; nobody may leave before the last
     * has entered. */
    t_sleep(0.002 * (t_nodes - 1 - t_self));
    enter = t_now();
    if (t_self % 2)
        CMCN_sync_with_nodes();
    else
        CMMD_sync_with_nodes();
    leave = t_now();
    all = times_of_all(enter);
    T_CHECK(leave >= max_of(all),
            "CMMD_sync_with_nodes returned %.6f s "
            "before the last node entered it",
            max_of(all) - leave);
}

/* Sleepers are woken: with PROG_COLL_WAKE set (and CM5_SLEEP_MS=1000,
 * so that a node nobody wakes sleeps up to a second), the last node
 * enters 0.1 s late, when the others sleep in the barrier (odd trials:
 * in a loop of CMMD_sync_done after CMMD_sync_with_nodes_start, whose
 * probes sleep too); each time they must all leave within 0.5 s of its
 * entry. */
static void test_barrier_wake(void)
{
    double enter = 0, leave, *all, late_enter;

    if (!getenv("PROG_COLL_WAKE"))
        return;
    for (int trial = 0; trial < 6; trial++) {
        CMMD_sync_with_nodes();
        if (t_self == t_nodes - 1) {
            t_sleep(0.1);
            enter = t_now();
        }
        if (trial % 2) {
            CMMD_sync_with_nodes_start();
            while (!CMMD_sync_done())
                ;
            CMMD_sync_with_nodes_finish();
        } else {
            CMMD_sync_with_nodes();
        }
        leave = t_now();
        all = times_of_all(t_self == t_nodes - 1 ? enter : leave);
        late_enter = all[t_nodes - 1];
        all = times_of_all(leave);
        T_CHECK(max_of(all) - late_enter < 0.5,
                "trial %d: a node left the barrier %.3f s after the last "
                "node entered it (a sleeper nobody woke?)",
                trial, max_of(all) - late_enter);
    }
}

/* Split phase: the last node starts late; the others must see
 * CMMD_sync_done() false until it has started. */
static void test_split(void)
{
    int late = t_nodes - 1, saw_false = 0, cmcn = t_nodes % 2;
    double start, first_true = 0, finish, *all, t0;

    CMMD_sync_with_nodes();
    if (t_self == late && t_nodes > 1)
        t_sleep(0.6);
    start = t_now();
    if (cmcn)
        CMCN_sync_with_nodes_start();
    else
        CMMD_sync_with_nodes_start();
    t0 = t_now();
    while (t_now() - t0 < 20) {
        int done = cmcn ? CMCN_sync_done() : CMMD_sync_done();

        if (done) {
            first_true = t_now();
            break;
        }
        saw_false = 1;
        t_sleep(0.0005);
    }
    T_CHECK(first_true > 0, "CMMD_sync_done() still false 20 s after "
                            "CMMD_sync_with_nodes_start()");
    if (cmcn)
        CMCN_sync_with_nodes_finish();
    else
        CMMD_sync_with_nodes_finish();
    finish = t_now();
    T_CHECK(CMMD_sync_done(), "CMMD_sync_done() false after "
                              "CMMD_sync_with_nodes_finish()");
    all = times_of_all(start);
    T_CHECK(first_true >= max_of(all),
            "CMMD_sync_done() became true %.6f s before the last node "
            "called CMMD_sync_with_nodes_start()",
            max_of(all) - first_true);
    T_CHECK(finish >= max_of(all), "CMMD_sync_with_nodes_finish returned "
                                   "before the last node started");
    if (t_self != late)
        T_CHECK(saw_false,
                "CMMD_sync_done() was never false although node "
                "%d started 0.6 s late",
                late);
}

/* ---- global OR ---- */

static void wait_gor(int want, int cmcn, const char *why)
{
    double t0 = t_now();

    while ((cmcn ? CMCN_get_global_or() : CMMD_get_global_or()) != want) {
        T_CHECK(t_now() - t0 < 20,
                "CMMD_get_global_or() still %d 20 s "
                "after %s",
                !want, why);
        t_sleep(0.0002);
    }
}

static void test_global_or(void)
{
    int setter = t_nodes - 1, other = t_nodes / 2;
    double t_set = 0, t_seen, *all;

    T_EQ(CMMD_get_global_or(), 0, "CMMD_get_global_or() before any set");
    CMMD_sync_with_nodes();
    if (t_self == setter) {
        t_set = t_now();
        CMMD_set_global_or(1);
    }
    wait_gor(1, 0, "the last node set 1");
    t_seen = t_now();
    all = times_of_all(t_set);
    T_CHECK(t_seen >= all[setter], "the global OR was 1 before any node "
                                   "set it");
    CMMD_sync_with_nodes();
    if (t_self == setter)
        CMCN_set_global_or(0);
    wait_gor(0, 1, "the last node cleared its bit");
    CMMD_sync_with_nodes();
    /* Two set, one clears: still 1; both clear: 0. */
    if (t_self == setter || t_self == other)
        CMMD_set_global_or(1);
    wait_gor(1, 0, "two nodes set 1");
    CMMD_sync_with_nodes();
    if (t_self == setter && setter != other)
        CMMD_set_global_or(0);
    CMMD_sync_with_nodes();
    if (setter != other) {
        double t0 = t_now();

        while (t_now() - t0 < 0.05)
            T_EQ(CMMD_get_global_or(), 1,
                 "CMMD_get_global_or() while node "
                 "still has its bit set");
    }
    CMMD_sync_with_nodes();
    if (t_self == other)
        CMMD_set_global_or(0);
    wait_gor(0, 0, "every node cleared its bit");
    CMMD_sync_with_nodes();
}

/* ---- CMUTIL timers are the CMMD timers ---- */

static void test_cmutil(void)
{
    double e, b;

    CMUTIL_node_timer_clear(7);
    CMMD_node_timer_start(7);
    t_compute(0.01);
    CMUTIL_node_timer_stop(7);
    e = CMMD_node_timer_elapsed(7);
    b = CMMD_node_timer_busy(7);
    T_CHECK(e >= 0.01 && e < 5,
            "elapsed %.6f s of a timer started with "
            "CMMD_ and stopped with CMUTIL_",
            e);
    T_CHECK(CMUTIL_node_timer_elapsed(7) == e, "CMUTIL_node_timer_elapsed "
                                               "differs from CMMD's");
    T_CHECK(CMUTIL_node_timer_busy(7) == b, "CMUTIL_node_timer_busy differs");
    T_CHECK(CMUTIL_node_timer_idle(7) == CMMD_node_timer_idle(7),
            "CMUTIL_node_timer_idle differs");
    CMUTIL_node_timer_start(8);
    CMUTIL_node_timer_stop(8);
    CMMD_node_timer_clear(7);
    T_CHECK(CMUTIL_node_timer_elapsed(7) == 0, "CMMD_node_timer_clear did "
                                               "not clear the CMUTIL timer");
}

int main(void)
{
    t_init("prog_coll");
    T_CHECK(t_nodes <= 1024, "too many nodes for this test");
    test_barrier();
    test_barrier_wake();
    test_reduce();
    test_cmcn_reduce();
    test_reduce_v();
    test_scan();
    test_bc();
    test_concat();
    test_split();
    test_global_or();
    test_cmutil();
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}
