/*
 * <cm/cmmd/cn.h>: split-phase reductions and scans, the segmented
 * reduction and the vector scans, on the native split-phase and vector
 * collectives.  The CMCN_ names are the same calls.
 */
#include <stdint.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

#define LONG_T (sizeof(long) == 8 ? CM5_INT64 : CM5_INT32)
#define ULONG_T (sizeof(long) == 8 ? CM5_UINT64 : CM5_UINT32)

static void cn_status(const char *call, cm5_status_t st)
{
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5c_state_error(st));
}

/* Scan modes to native flags; *start gets the native start argument. */
static unsigned cn_scan_flags(const char *call, CMMD_scan_direction_t dir,
                              CMMD_segment_mode_t smode, int sbit,
                              CMMD_scan_inclusion_t inc, int *start)
{
    unsigned flags = 0;

    if (dir != CMMD_upward && dir != CMMD_downward)
        cm5_fatal(call, "invalid scan direction %d", (int)dir);
    if (inc != CMMD_inclusive && inc != CMMD_exclusive)
        cm5_fatal(call, "invalid inclusion %d", (int)inc);
    if (smode != CMMD_none && smode != CMMD_start_bit &&
        smode != CMMD_segment_bit)
        cm5_fatal(call, "invalid segment mode %d", (int)smode);
    flags |= dir == CMMD_downward ? CM5_SCAN_DOWNWARD : 0;
    flags |= inc == CMMD_exclusive ? CM5_SCAN_EXCLUSIVE : 0;
    /* segment_bit: this node ends a segment, the next one begins one. */
    flags |= smode == CMMD_segment_bit ? CM5_SCAN_SEGMENT_END : 0;
    *start = smode != CMMD_none && sbit != 0;
    return flags;
}

/* ---- split-phase: which call started the outstanding operation ---- */

static struct {
    const char *started[2]; /* reduction, scan: the _start call, or NULL */
    cm5_type_t type[2];
} cn;

enum { CN_REDUCE, CN_SCAN };
static const char *const cn_kind[] = {"reduction", "scan"};

static void cn_begin(const char *call, int kind)
{
    if (cn.started[kind])
        cm5_fatal(call,
                  "the split-phase %s started by %s is still "
                  "outstanding (one at a time: finish it first)",
                  cn_kind[kind], cn.started[kind]);
}

static void cn_started(const char *call, int kind, cm5_type_t t,
                       cm5_status_t st)
{
    cn_status(call, st);
    cn.started[kind] = call;
    cn.type[kind] = t;
}

/* Before a _finish or _done of type t (done: any type). */
static void cn_check_finish(const char *call, int kind, cm5_type_t t)
{
    if (!cn.started[kind])
        cm5_fatal(call, "no split-phase %s was started", cn_kind[kind]);
    if (cn.type[kind] != t)
        cm5_fatal(call, "the outstanding split-phase %s was started by %s",
                  cn_kind[kind], cn.started[kind]);
    cn.started[kind] = NULL;
}

static void cn_reduce_start(const char *call, const void *v, cm5_type_t t,
                            CMMD_combiner_t c)
{
    cn_begin(call, CN_REDUCE);
    cn_started(call, CN_REDUCE, t,
               cm5_allreduce_start(v, t, cm5c_check_op(call, c, t)));
}

static void cn_reduce_finish(const char *call, void *v, cm5_type_t t)
{
    cn_check_finish(call, CN_REDUCE, t);
    cn_status(call, cm5_allreduce_finish(v));
}

static void cn_scan_start(const char *call, const void *v, cm5_type_t t,
                          CMMD_combiner_t c, CMMD_scan_direction_t dir,
                          CMMD_segment_mode_t smode, int sbit,
                          CMMD_scan_inclusion_t inc)
{
    cm5_op_t op;
    unsigned flags;
    int start;

    cn_begin(call, CN_SCAN);
    op = cm5c_check_op(call, c, t);
    flags = cn_scan_flags(call, dir, smode, sbit, inc, &start);
    cn_started(call, CN_SCAN, t, cm5_scan_start(v, t, op, flags, start));
}

static void cn_scan_finish(const char *call, void *v, cm5_type_t t)
{
    cn_check_finish(call, CN_SCAN, t);
    cn_status(call, cm5_scan_finish(v));
}

/* T is the C type of the value, V what the call passes (float: double). */
#define CN_REDUCE_SPLIT(P, name, T, V, type)                                   \
    void P##_reduce_##name##_start(V value, CMMD_combiner_t combiner)          \
    {                                                                          \
        CM5C_HOLD();                                                           \
        T v = (T)value;                                                        \
        cn_reduce_start(#P "_reduce_" #name "_start", &v, type, combiner);     \
    }                                                                          \
    V P##_reduce_##name##_finish(V value, CMMD_combiner_t combiner)            \
    {                                                                          \
        CM5C_HOLD();                                                           \
        T v;                                                                   \
        (void)value, (void)combiner; /* only the _start's count */             \
        cn_reduce_finish(#P "_reduce_" #name "_finish", &v, type);             \
        return (V)v;                                                           \
    }

#define CN_SCAN_SPLIT(P, name, T, V, type)                                     \
    void P##_scan_##name##_start(                                              \
        V value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,    \
        CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion)  \
    {                                                                          \
        CM5C_HOLD();                                                           \
        T v = (T)value;                                                        \
        cn_scan_start(#P "_scan_" #name "_start", &v, type, combiner,          \
                      direction, smode, sbit, inclusion);                      \
    }                                                                          \
    V P##_scan_##name##_finish(                                                \
        V value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,    \
        CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion)  \
    {                                                                          \
        CM5C_HOLD();                                                           \
        T v;                                                                   \
        (void)value, (void)combiner, (void)direction, (void)smode;             \
        (void)sbit, (void)inclusion; /* only the _start's count */             \
        cn_scan_finish(#P "_scan_" #name "_finish", &v, type);                 \
        return (V)v;                                                           \
    }

#define CN_SPLIT(P)                                                            \
    CN_REDUCE_SPLIT(P, int, int, int, CM5_INT32)                               \
    CN_REDUCE_SPLIT(P, uint, unsigned, unsigned, CM5_UINT32)                   \
    CN_REDUCE_SPLIT(P, lint, long, long, LONG_T)                               \
    CN_REDUCE_SPLIT(P, luint, unsigned long, unsigned long, ULONG_T)           \
    CN_REDUCE_SPLIT(P, double, double, double, CM5_DOUBLE)                     \
    CN_REDUCE_SPLIT(P, float, float, double, CM5_FLOAT)                        \
    CN_SCAN_SPLIT(P, int, int, int, CM5_INT32)                                 \
    CN_SCAN_SPLIT(P, uint, unsigned, unsigned, CM5_UINT32)                     \
    CN_SCAN_SPLIT(P, lint, long, long, LONG_T)                                 \
    CN_SCAN_SPLIT(P, luint, unsigned long, unsigned long, ULONG_T)             \
    CN_SCAN_SPLIT(P, double, double, double, CM5_DOUBLE)                       \
    CN_SCAN_SPLIT(P, float, float, double, CM5_FLOAT)                          \
    int P##_reduce_done(void)                                                  \
    {                                                                          \
        CM5C_HOLD();                                                           \
        return cm5_allreduce_test();                                           \
    }                                                                          \
    int P##_scan_done(void)                                                    \
    {                                                                          \
        CM5C_HOLD();                                                           \
        return cm5_scan_test();                                                \
    }

CN_SPLIT(CMMD)
CN_SPLIT(CMCN)

/* ---- the segmented reduction ---- */

static unsigned cn_combine_uint(unsigned a, unsigned b, cm5_op_t op)
{
    switch (op) {
    case CM5_OP_ADD:
        return a + b;
    case CM5_OP_MAX:
        return a > b ? a : b;
    case CM5_OP_MIN:
        return a < b ? a : b;
    case CM5_OP_AND:
        return a & b;
    case CM5_OP_IOR:
        return a | b;
    case CM5_OP_XOR:
        return a ^ b;
    }
    return a;
}

/* A node's segment result is the inclusive upward scan up to it combined
 * with the exclusive downward scan from the segment's end: two scans. */
static unsigned cn_segmented_reduce(const char *call, unsigned value,
                                    CMMD_combiner_t combiner,
                                    CMMD_segment_mode_t smode, int sbit)
{
    cm5_op_t op = cm5c_check_op(call, combiner, CM5_UINT32);
    unsigned up = value, down = value, flags;
    int start;

    /* Upward the bit starts (start_bit) or ends (segment_bit) a segment;
     * downward, where segments begin at their last node, the reverse. */
    flags =
        cn_scan_flags(call, CMMD_upward, smode, sbit, CMMD_inclusive, &start);
    cn_status(call, cm5_scan(&up, CM5_UINT32, op, flags, start));
    flags = CM5_SCAN_DOWNWARD | CM5_SCAN_EXCLUSIVE;
    if (smode == CMMD_start_bit)
        flags |= CM5_SCAN_SEGMENT_END;
    cn_status(call, cm5_scan(&down, CM5_UINT32, op, flags, start));
    return cn_combine_uint(up, down, op);
}

unsigned CMMD_segmented_reduce_uint(unsigned value, CMMD_combiner_t combiner,
                                    CMMD_segment_mode_t smode, int sbit)
{
    CM5C_HOLD();
    return cn_segmented_reduce("CMMD_segmented_reduce_uint", value, combiner,
                               smode, sbit);
}

unsigned CMCN_segmented_reduce_uint(unsigned value, CMMD_combiner_t combiner,
                                    CMMD_segment_mode_t smode, int sbit)
{
    CM5C_HOLD();
    return cn_segmented_reduce("CMCN_segmented_reduce_uint", value, combiner,
                               smode, sbit);
}

/* ---- vector scans ---- */

/* The combiner's prefix and the element size give the type (reduce_v). */
static cm5_type_t cn_vtype(const char *call, CMMD_combiner_t c, int size)
{
    int t = cm5c_vtype(c, size);

    if (t < 0)
        cm5_fatal(call, "element size %d does not fit combiner %d", size,
                  (int)c);
    return (cm5_type_t)t;
}

static void cn_scan_v(const char *call, void *dest, const void *source,
                      CMMD_combiner_t c, cm5_type_t t, int count,
                      CMMD_scan_direction_t dir, CMMD_segment_mode_t smode,
                      int sbit, CMMD_scan_inclusion_t inc)
{
    cm5_op_t op = cm5c_check_op(call, c, t);
    int start;
    unsigned flags = cn_scan_flags(call, dir, smode, sbit, inc, &start);

    if (count < 0 || (count > 0 && (!dest || !source)))
        cm5_fatal(call, "bad vector (count %d, dest %p, source %p)", count,
                  dest, source);
    if (dest != source)
        memmove(dest, source, (size_t)count * cm5_type_size(t));
    cn_status(call, cm5_scan_v(dest, count, t, op, flags, start));
}

#define CN_SCAN_V(P)                                                           \
    void P##_scan_v(                                                           \
        void *dest, void *source, CMMD_combiner_t combiner, int element_size,  \
        int count, CMMD_scan_direction_t direction, CMMD_segment_mode_t smode, \
        int sbit, CMMD_scan_inclusion_t inclusion)                             \
    {                                                                          \
        CM5C_HOLD();                                                           \
        static const char call[] = #P "_scan_v";                               \
        if (cm5c_combiner_op(combiner) < 0)                                    \
            cm5_fatal(call, "invalid combiner %d", (int)combiner);             \
        cn_scan_v(call, dest, source, combiner,                                \
                  cn_vtype(call, combiner, element_size), count, direction,    \
                  smode, sbit, inclusion);                                     \
    }                                                                          \
    void P##_scan_double_v(                                                    \
        double *dest, double *source, CMMD_combiner_t combiner, int count,     \
        CMMD_scan_direction_t direction, CMMD_segment_mode_t smode, int sbit,  \
        CMMD_scan_inclusion_t inclusion)                                       \
    {                                                                          \
        CM5C_HOLD();                                                           \
        cn_scan_v(#P "_scan_double_v", dest, source, combiner, CM5_DOUBLE,     \
                  count, direction, smode, sbit, inclusion);                   \
    }

CN_SCAN_V(CMMD)
CN_SCAN_V(CMCN)
