/*
 * prog_cn: the control-network extras of <cm/cmmd/cn.h> and the CMUTIL_
 * names of <cm/cmmd/util.h>, written as legacy code would.  Every node
 * knows every node's (deterministic) inputs, computes the expected
 * results itself and compares them exactly.  Prints "prog_cn: node I of N
 * ok" at the end.
 *
 *   split      CMMD_ and CMCN_ {reduce,scan}_{int,uint,lint,luint,double,
 *              float}_{start,finish} with every combiner that applies,
 *              scans up/down, inclusive/exclusive, segment modes none,
 *              start_bit, segment_bit; computing and polling between
 *              start and finish
 *   late       one node starts late: the others see _done == 0 until it
 *              has started (it starts only once they all reported seeing
 *              0, then sleeps 0.2 s more), then 1, and the right result
 *   both       a reduction and a scan outstanding at once, finished in
 *              the other order, a blocking reduction in between
 *   am         active messages sent and handled while one is outstanding
 *   irq        node 0 (the tree's root) computes with interrupts on, no
 *              library call, until all the others have their result
 *   blocked    every node but the last waits in CMMD_receive_block for
 *              the next node, which sends only once it has finished: the
 *              operation must advance in nodes blocked in another call
 *   segmented  CMMD_segmented_reduce_uint, every combiner, segments of
 *              different lengths (random, all ones, none)
 *   scan_v     CMMD_scan_v (int, unsigned, long, float, double; in place
 *              and not) and CMMD_scan_double_v over 0, 1, 7 and 1000
 *              elements, every direction, segment mode and inclusion
 *   cmutil     the CMUTIL_ names give what their CMMD_ twins give;
 *              CMUTIL_warning prints one line (the script counts them);
 *              CMUTIL_resize_partition halves the partition
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

typedef struct {
    CMMD_combiner_t c;
    int op;
} comb_t;

static const comb_t c_int[] = {
    {CMMD_combiner_add, OP_ADD}, {CMMD_combiner_max, OP_MAX},
    {CMMD_combiner_min, OP_MIN}, {CMMD_combiner_and, OP_AND},
    {CMMD_combiner_ior, OP_IOR}, {CMMD_combiner_xor, OP_XOR}};
static const comb_t c_uint[] = {
    {CMMD_combiner_uadd, OP_ADD}, {CMMD_combiner_umax, OP_MAX},
    {CMMD_combiner_umin, OP_MIN}, {CMMD_combiner_and, OP_AND},
    {CMMD_combiner_ior, OP_IOR},  {CMMD_combiner_xor, OP_XOR}};
static const comb_t c_double[] = {{CMMD_combiner_dadd, OP_ADD},
                                  {CMMD_combiner_dmax, OP_MAX},
                                  {CMMD_combiner_dmin, OP_MIN}};
static const comb_t c_float[] = {{CMMD_combiner_fadd, OP_ADD},
                                 {CMMD_combiner_fmax, OP_MAX},
                                 {CMMD_combiner_fmin, OP_MIN}};
#define N(a) ((int)(sizeof(a) / sizeof(*(a))))

/* The segment bit of node i in test k: segments of different lengths. */
static int sbit(int k, int i)
{
    return t_hash((uint32_t)k ^ 0xb17u, (uint32_t)i) % 3 == 0;
}

/* ---- per type: inputs, combination, identity, expected results ----
 * Arithmetic inputs are small (floating point: exact halves), so any
 * order of combination gives the same bits. */
#define ARITH(op, a, b)                                                        \
    ((op) == OP_ADD   ? (a) + (b)                                              \
     : (op) == OP_MAX ? ((a) > (b) ? (a) : (b))                                \
                      : ((a) < (b) ? (a) : (b)))
#define BITS(op, a, b)                                                         \
    ((op) == OP_AND ? (a) & (b) : (op) == OP_IOR ? (a) | (b) : (a) ^ (b))

#define DEF_INT(name, T, AVAL, MINV, MAXV)                                     \
    static T val_##name(int i, int k, int op)                                  \
    {                                                                          \
        uint64_t h = t_hash64((uint32_t)i, (uint32_t)k);                       \
        return op >= OP_AND ? (T)h : (T)(AVAL);                                \
    }                                                                          \
    static T comb_##name(T a, T b, int op)                                     \
    {                                                                          \
        return op >= OP_AND ? (T)BITS(op, a, b) : (T)ARITH(op, a, b);          \
    }                                                                          \
    static T ident_##name(int op)                                              \
    {                                                                          \
        static const T id[] = {0, MINV, MAXV, (T) ~(T)0, 0, 0};                \
        return id[op];                                                         \
    }
#define DEF_FP(name, T, AVAL, MAXV)                                            \
    static T val_##name(int i, int k, int op)                                  \
    {                                                                          \
        uint64_t h = t_hash64((uint32_t)i, (uint32_t)k);                       \
        (void)op;                                                              \
        return (T)(AVAL);                                                      \
    }                                                                          \
    static T comb_##name(T a, T b, int op) { return (T)ARITH(op, a, b); }      \
    static T ident_##name(int op)                                              \
    {                                                                          \
        static const T id[] = {0, -MAXV, MAXV};                                \
        return id[op];                                                         \
    }

DEF_INT(int, int, (int)(h % 20001) - 10000, INT_MIN, INT_MAX)
DEF_INT(uint, unsigned, h % 100000, 0, UINT_MAX)
DEF_INT(lint, long, ((long)(h % 20001) - 10000) * 4294967296L + (long)(h >> 44),
        LONG_MIN, LONG_MAX)
DEF_INT(luint, unsigned long, h >> 3, 0, ULONG_MAX)
DEF_FP(double, double, ((double)(h % 20001) - 10000) * 0.5, DBL_MAX)
DEF_FP(float, float, ((float)(h % 2001) - 1000) * 0.5f, FLT_MAX)

/* The node at position p of a scan. */
static int at(int dir, int p)
{
    return dir == CMMD_downward ? t_nodes - 1 - p : p;
}

/* Does position p begin a segment? */
static int seg_start(int k, int dir, int smode, int p)
{
    if (p == 0 || smode == CMMD_none)
        return p == 0;
    return smode == CMMD_start_bit ? sbit(k, at(dir, p))
                                   : sbit(k, at(dir, p - 1));
}

#define DEF_REF(name, T)                                                       \
    static T ref_reduce_##name(int k, int op)                                  \
    {                                                                          \
        T acc = val_##name(0, k, op);                                          \
        for (int i = 1; i < t_nodes; i++)                                      \
            acc = comb_##name(acc, val_##name(i, k, op), op);                  \
        return acc;                                                            \
    }                                                                          \
    /* Values of key k, segment bits of key bk. */                             \
    static T ref_scan_##name(int k, int bk, int op, int dir, int smode,        \
                             int inc, int node)                                \
    {                                                                          \
        int me = dir == CMMD_downward ? t_nodes - 1 - node : node, s = me;     \
        T acc = ident_##name(op);                                              \
        while (!seg_start(bk, dir, smode, s))                                  \
            s--;                                                               \
        for (int p = s; p < me + (inc == CMMD_inclusive); p++)                 \
            acc = comb_##name(acc, val_##name(at(dir, p), k, op), op);         \
        return acc;                                                            \
    }
DEF_REF(int, int)
DEF_REF(uint, unsigned)
DEF_REF(lint, long)
DEF_REF(luint, unsigned long)
DEF_REF(double, double)
DEF_REF(float, float)

#define CHECK_VAL(got, want, ...)                                              \
    do {                                                                       \
        char w_[256];                                                          \
        snprintf(w_, sizeof(w_), __VA_ARGS__);                                 \
        T_CHECK((got) == (want),                                               \
                "%s: got %.17g (%lld), expected %.17g "                        \
                "(%lld)",                                                      \
                w_, (double)(got), (long long)(got), (double)(want),           \
                (long long)(want));                                            \
    } while (0)

/* Between start and finish: compute a little and serve the network. */
static void meanwhile(int k)
{
    if (k % 4 == 0)
        t_compute(0.0002);
    if (k % 3 == 0)
        CMMD_poll();
}

/* ---- split: every call, combiner and mode ---- */

#define DEF_SPLIT(P, name, T, V, combs)                                        \
    static void split_##P##_##name(int *k)                                     \
    {                                                                          \
        for (int c = 0; c < N(combs); c++) {                                   \
            int op = combs[c].op, dirs[] = {CMMD_upward, CMMD_downward};       \
            V got;                                                             \
            ++*k;                                                              \
            P##_reduce_##name##_start((V)val_##name(t_self, *k, op),           \
                                      combs[c].c);                             \
            meanwhile(*k);                                                     \
            got = P##_reduce_##name##_finish((V)0, combs[c].c);                \
            CHECK_VAL(got, (V)ref_reduce_##name(*k, op),                       \
                      #P "_reduce_" #name " combiner %d", (int)combs[c].c);    \
            for (int d = 0; d < 2; d++)                                        \
                for (int sm = CMMD_none; sm <= CMMD_segment_bit; sm++)         \
                    for (int inc = 0; inc < 2; inc++) {                        \
                        int b = sbit(++*k, t_self);                            \
                        P##_scan_##name##_start((V)val_##name(t_self, *k, op), \
                                                combs[c].c, dirs[d], sm, b,    \
                                                inc);                          \
                        meanwhile(*k);                                         \
                        got = P##_scan_##name##_finish((V)0, combs[c].c,       \
                                                       dirs[d], sm, b, inc);   \
                        CHECK_VAL(got,                                         \
                                  (V)ref_scan_##name(*k, *k, op, dirs[d], sm,  \
                                                     inc, t_self),             \
                                  #P "_scan_" #name " combiner %d dir %d "     \
                                     "smode %d inclusion %d",                  \
                                  (int)combs[c].c, dirs[d], sm, inc);          \
                    }                                                          \
        }                                                                      \
    }

#define DEF_SPLIT_ALL(P)                                                       \
    DEF_SPLIT(P, int, int, int, c_int)                                         \
    DEF_SPLIT(P, uint, unsigned, unsigned, c_uint)                             \
    DEF_SPLIT(P, lint, long, long, c_int)                                      \
    DEF_SPLIT(P, luint, unsigned long, unsigned long, c_uint)                  \
    DEF_SPLIT(P, double, double, double, c_double)                             \
    DEF_SPLIT(P, float, float, double, c_float)                                \
    static void split_##P(int *k)                                              \
    {                                                                          \
        split_##P##_int(k);                                                    \
        split_##P##_uint(k);                                                   \
        split_##P##_lint(k);                                                   \
        split_##P##_luint(k);                                                  \
        split_##P##_double(k);                                                 \
        split_##P##_float(k);                                                  \
    }
DEF_SPLIT_ALL(CMMD)
DEF_SPLIT_ALL(CMCN)

/* ---- late: _done stays 0 until every node has started ---- */

static volatile int reports;

static void report_handler(void) { reports++; }

static void late_start(int scan, int k)
{
    if (scan)
        CMMD_scan_int_start(val_int(t_self, k, OP_ADD), CMMD_combiner_add,
                            CMMD_upward, CMMD_none, 0, CMMD_inclusive);
    else
        CMMD_reduce_int_start(val_int(t_self, k, OP_ADD), CMMD_combiner_add);
}

static int late_done(int scan)
{
    return scan ? CMMD_scan_done() : CMMD_reduce_done();
}

static void late_finish(int scan, int k)
{
    /* (K&R declaration: a call without the arguments compiles too.) */
    int got = scan ? CMMD_scan_int_finish() : CMMD_reduce_int_finish();
    int want = scan ? ref_scan_int(k, k, OP_ADD, CMMD_upward, CMMD_none,
                                   CMMD_inclusive, t_self)
                    : ref_reduce_int(k, OP_ADD);

    T_EQ(got, want, scan ? "late: scan result" : "late: reduction result");
}

/* The late node is the scan's first (every other one depends on it) and
 * the reduction's last. */
static void test_late(int scan, int k)
{
    int late = scan ? 0 : t_nodes - 1;
    double t0;

    reports = 0; /* (before the barrier: reports may come during it) */
    CMMD_sync_with_nodes();
    if (t_self == late) {
        CMAML_poll_while_lt(&reports, t_nodes - 1);
        t_sleep(0.2);
        late_start(scan, k);
        late_finish(scan, k);
        return;
    }
    late_start(scan, k);
    for (int i = 0; i < 20; i++)
        T_EQ(late_done(scan), 0, "_done before the late node started");
    t0 = t_now();
    CMAML_request(late, (CMAML_handler_t)report_handler);
    while (!late_done(scan))
        T_CHECK(t_now() - t0 < 30, "_done never became 1");
    T_CHECK(t_now() - t0 >= 0.19,
            "_done became 1 %.3f s after this node's report, but the "
            "late node starts 0.2 s after the last report",
            t_now() - t0);
    T_EQ(late_done(scan), 1, "_done once done");
    late_finish(scan, k);
    T_EQ(late_done(scan), 1, "_done with nothing outstanding");
}

/* ---- both kinds at once, a blocking call in between ---- */

static void test_both(int k)
{
    double want = ref_scan_double(k + 1, k + 1, OP_MAX, CMMD_downward,
                                  CMMD_start_bit, CMMD_exclusive, t_self);
    int sum;

    CMMD_reduce_int_start(val_int(t_self, k, OP_ADD), CMMD_combiner_add);
    CMMD_scan_double_start(val_double(t_self, k + 1, OP_MAX),
                           CMMD_combiner_dmax, CMMD_downward, CMMD_start_bit,
                           sbit(k + 1, t_self), CMMD_exclusive);
    sum = CMMD_reduce_int(t_self + 1, CMMD_combiner_add);
    T_EQ(sum, t_nodes * (t_nodes + 1) / 2, "blocking reduction in between");
    CHECK_VAL(CMMD_scan_double_finish(0.0, CMMD_combiner_dmax, CMMD_downward,
                                      CMMD_start_bit, 0, CMMD_exclusive),
              want, "both: scan finished first");
    T_EQ(CMMD_reduce_int_finish(0, CMMD_combiner_add),
         ref_reduce_int(k, OP_ADD), "both: reduction finished second");
}

/* ---- active messages while one is outstanding ---- */

static volatile int pings;

static void ping_handler(int from, int n)
{
    T_EQ(from, (t_self + t_nodes - 1) % t_nodes, "ping sender");
    pings += n;
}

static void test_am(int k)
{
    int next = (t_self + 1) % t_nodes;

    /* (pings is not reset here: they may come before this node arrives) */
    CMMD_reduce_uint_start(val_uint(t_self, k, OP_XOR), CMMD_combiner_xor);
    for (int i = 1; i <= 10; i++)
        CMAML_request(next, (CMAML_handler_t)ping_handler, t_self, i);
    T_POLL_UNTIL(pings == 55, 30, "pings: %d of 55", pings);
    while (!CMMD_reduce_done()) {
        t_compute(0.0005);
        CMAML_poll();
    }
    T_EQ(CMMD_reduce_uint_finish(0, CMMD_combiner_xor),
         ref_reduce_uint(k, OP_XOR), "reduction with messages meanwhile");
    CMMD_sync_with_nodes(); /* nobody still pings */
}

/* ---- a node that computes with interrupts on ----
 * Node 0, the reduction tree's root, starts and then computes without a
 * library call until every other node has its result: the steps must run
 * in its interrupts. */

static volatile int finished;

static void finished_handler(void) { finished++; }

static void test_irq(int k)
{
    int want = ref_reduce_int(k, OP_MAX);

    CMMD_sync_with_nodes(); /* (finished starts at 0: used once) */
    CMMD_reduce_int_start(val_int(t_self, k, OP_MAX), CMMD_combiner_max);
    if (t_self == 0) {
        double t0 = t_now();

        CMMD_enable_interrupts();
        while (finished < t_nodes - 1)
            T_CHECK(t_now() - t0 < 30,
                    "the reduction did not advance in "
                    "interrupts (%d of %d nodes done)",
                    finished, t_nodes - 1);
        CMMD_disable_interrupts();
    } else {
        T_EQ(CMMD_reduce_int_finish(0, CMMD_combiner_max), want,
             "reduction while the root computed");
        CMAML_request(0, (CMAML_handler_t)finished_handler);
    }
    if (t_self == 0)
        T_EQ(CMMD_reduce_int_finish(0, CMMD_combiner_max), want,
             "the root's reduction");
    CMMD_sync_with_nodes();
}

/* ---- blocked in another call ---- */

static void test_blocked(int k)
{
    int token = 0;

    CMMD_reduce_lint_start(val_lint(t_self, k, OP_ADD), CMMD_combiner_add);
    CMMD_scan_luint_start(val_luint(t_self, k + 1, OP_ADD), CMMD_combiner_uadd,
                          CMMD_upward, CMMD_segment_bit, sbit(k + 1, t_self),
                          CMMD_inclusive);
    if (t_self + 1 < t_nodes)
        CMMD_receive_block(t_self + 1, 77, &token, (int)sizeof(token));
    T_EQ(CMMD_reduce_lint_finish(0L, CMMD_combiner_add),
         ref_reduce_lint(k, OP_ADD), "reduction while others were blocked");
    T_CHECK(CMMD_scan_luint_finish(0UL, CMMD_combiner_uadd, CMMD_upward,
                                   CMMD_segment_bit, 0, CMMD_inclusive) ==
                ref_scan_luint(k + 1, k + 1, OP_ADD, CMMD_upward,
                               CMMD_segment_bit, CMMD_inclusive, t_self),
            "scan while others were blocked");
    if (t_self > 0)
        CMMD_send_block(t_self - 1, 77, &token, (int)sizeof(token));
}

/* ---- segmented reduction ---- */

static int seg_bit(int pattern, int k, int i)
{
    return pattern == 0 ? sbit(k, i) : pattern == 1;
}

static unsigned ref_segmented(int k, int op, int smode, int pattern)
{
    int s = t_self, e = t_self;
    unsigned acc;

    if (smode == CMMD_start_bit) {
        while (s > 0 && !seg_bit(pattern, k, s))
            s--;
        while (e + 1 < t_nodes && !seg_bit(pattern, k, e + 1))
            e++;
    } else if (smode == CMMD_segment_bit) {
        while (s > 0 && !seg_bit(pattern, k, s - 1))
            s--;
        while (e + 1 < t_nodes && !seg_bit(pattern, k, e))
            e++;
    } else {
        s = 0;
        e = t_nodes - 1;
    }
    acc = val_uint(s, k, op);
    for (int i = s + 1; i <= e; i++)
        acc = comb_uint(acc, val_uint(i, k, op), op);
    return acc;
}

static void test_segmented(int *k)
{
    for (int c = 0; c < N(c_uint); c++)
        for (int sm = CMMD_none; sm <= CMMD_segment_bit; sm++)
            for (int pat = 0; pat < 3; pat++) {
                int op = c_uint[c].op;
                unsigned (*f)(unsigned, CMMD_combiner_t, CMMD_segment_mode_t,
                              int) = *k % 2 ? CMCN_segmented_reduce_uint
                                            : CMMD_segmented_reduce_uint;
                unsigned got;

                ++*k;
                got = f(val_uint(t_self, *k, op), c_uint[c].c, sm,
                        seg_bit(pat, *k, t_self));
                CHECK_VAL(got, ref_segmented(*k, op, sm, pat),
                          "segmented_reduce_uint combiner %d smode %d "
                          "pattern %d",
                          (int)c_uint[c].c, sm, pat);
            }
}

/* ---- vector scans ---- */

#define DEF_SCAN_V(name, T)                                                    \
    static void scan_v_##name(int k, CMMD_combiner_t c, int op, int count,     \
                              int dbl)                                         \
    {                                                                          \
        static const int dirs[] = {CMMD_upward, CMMD_downward};                \
        T *src = t_malloc(sizeof(T) * (size_t)count);                          \
        T *dst = t_malloc(sizeof(T) * (size_t)count);                          \
        for (int d = 0; d < 2; d++)                                            \
            for (int sm = CMMD_none; sm <= CMMD_segment_bit; sm++)             \
                for (int inc = 0; inc < 2; inc++) {                            \
                    int kk = k * 16 + d * 6 + sm * 2 + inc, inplace = kk % 2;  \
                    T *out = inplace ? src : dst;                              \
                    for (int e = 0; e < count; e++)                            \
                        src[e] = val_##name(t_self, kk * 2048 + e, op);        \
                    if (dbl)                                                   \
                        CMMD_scan_double_v((double *)out, (double *)src, c,    \
                                           count, dirs[d], sm,                 \
                                           sbit(kk, t_self), inc);             \
                    else                                                       \
                        (kk % 3 ? CMMD_scan_v : CMCN_scan_v)(                  \
                            out, src, c, (int)sizeof(T), count, dirs[d], sm,   \
                            sbit(kk, t_self), inc);                            \
                    for (int e = 0; e < count; e++)                            \
                        CHECK_VAL(out[e],                                      \
                                  ref_scan_##name(kk * 2048 + e, kk, op,       \
                                                  dirs[d], sm, inc, t_self),   \
                                  "scan_v " #name " combiner %d count %d "     \
                                  "element %d dir %d smode %d inc %d",         \
                                  (int)c, count, e, dirs[d], sm, inc);         \
                }                                                              \
        free(src);                                                             \
        free(dst);                                                             \
    }
DEF_SCAN_V(int, int)
DEF_SCAN_V(uint, unsigned)
DEF_SCAN_V(lint, long)
DEF_SCAN_V(float, float)
DEF_SCAN_V(double, double)

/* Every element of a vector scan shares the node's one segment bit. */
static void test_scan_v(int *k)
{
    static const int counts[] = {0, 1, 7, 1000};

    for (int n = 0; n < N(counts); n++) {
        int cnt = counts[n];

        for (int c = 0; c < N(c_int); c++)
            scan_v_int(++*k, c_int[c].c, c_int[c].op, cnt, 0);
        scan_v_uint(++*k, CMMD_combiner_uadd, OP_ADD, cnt, 0);
        scan_v_lint(++*k, CMMD_combiner_add, OP_ADD, cnt, 0);
        scan_v_lint(++*k, CMMD_combiner_max, OP_MAX, cnt, 0);
        scan_v_float(++*k, CMMD_combiner_fadd, OP_ADD, cnt, 0);
        scan_v_double(++*k, CMMD_combiner_dmin, OP_MIN, cnt, 0);
        for (int c = 0; c < N(c_double); c++)
            scan_v_double(++*k, c_double[c].c, c_double[c].op, cnt, 1);
    }
}

/* ---- CMUTIL_ ---- */

static void test_cmutil(int k)
{
    T_EQ(CMUTIL_self_address(), CMMD_self_address(), "CMUTIL_self_address");
    T_EQ(CMUTIL_partition_size(), CMMD_partition_size(),
         "CMUTIL_partition_size");
    T_EQ(CMUTIL_get_errno(), (int)CMMD_get_errno(), "CMUTIL_get_errno");
    CMUTIL_set_errno(CMMD_ERR_BAD_ARG);
    T_EQ(CMMD_get_errno(), CMMD_ERR_BAD_ARG, "CMMD_get_errno after set");
    T_EQ(CMUTIL_get_errno(), CMMD_ERR_BAD_ARG, "CMUTIL_get_errno after set");
    CMUTIL_set_errno(CMMD_ERR_NONE);
    T_EQ(CMMD_get_errno(), CMMD_ERR_NONE, "CMMD_get_errno after reset");
    CMUTIL_disable_safety();
    CMUTIL_enable_safety();
    CMUTIL_warning("prog_cn warning %d of node %d\n", k, t_self);
}

static void test_resize(int k)
{
    int size = t_nodes - t_nodes / 2;

    CMUTIL_resize_partition(size);
    if (t_self >= size) {
        t_done();
        exit(0);
    }
    t_nodes = size;
    T_EQ(CMUTIL_partition_size(), size, "CMUTIL_partition_size after resize");
    CMMD_reduce_int_start(val_int(t_self, k, OP_MIN), CMMD_combiner_min);
    T_EQ(CMMD_reduce_int_finish(0, CMMD_combiner_min),
         ref_reduce_int(k, OP_MIN), "reduction on the smaller partition");
}

int main(void)
{
    int k = 0;

    t_init("prog_cn");
    split_CMMD(&k);
    split_CMCN(&k);
    test_late(0, ++k);
    test_late(1, ++k);
    test_both(k += 2);
    test_am(++k);
    test_blocked(k += 2);
    test_irq(++k);
    test_segmented(&k);
    test_scan_v(&k);
    test_cmutil(++k);
    test_resize(++k);
    t_done();
    return 0;
}
