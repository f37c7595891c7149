/*
 * CMMD's control network on the native collectives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

/* The operation a combiner names, or -1. */
int cm5c_combiner_op(CMMD_combiner_t c)
{
    switch (c) {
    case CMMD_combiner_add:
    case CMMD_combiner_uadd:
    case CMMD_combiner_fadd:
    case CMMD_combiner_dadd:
        return CM5_OP_ADD;
    case CMMD_combiner_max:
    case CMMD_combiner_umax:
    case CMMD_combiner_fmax:
    case CMMD_combiner_dmax:
        return CM5_OP_MAX;
    case CMMD_combiner_min:
    case CMMD_combiner_umin:
    case CMMD_combiner_fmin:
    case CMMD_combiner_dmin:
        return CM5_OP_MIN;
    case CMMD_combiner_and:
        return CM5_OP_AND;
    case CMMD_combiner_ior:
        return CM5_OP_IOR;
    case CMMD_combiner_xor:
        return CM5_OP_XOR;
    }
    return -1;
}

cm5_op_t cm5c_check_op(const char *call, CMMD_combiner_t c, cm5_type_t t)
{
    int op = cm5c_combiner_op(c);

    if (op < 0)
        cm5_fatal(call, "invalid combiner %d", (int)c);
    if (op >= CM5_OP_AND && (t == CM5_FLOAT || t == CM5_DOUBLE))
        cm5_fatal(call,
                  "combiner %d (a bitwise operation) is invalid for "
                  "floating-point values",
                  (int)c);
    return (cm5_op_t)op;
}

static void cmmd_status(const char *call, cm5_status_t st)
{
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5c_state_error(st));
}

static void cmmd_reduce(const char *call, void *v, cm5_type_t t,
                        CMMD_combiner_t c)
{
    cmmd_status(call, cm5_allreduce(v, 1, t, cm5c_check_op(call, c, t)));
}

#define CMMD_REDUCE(name, T, type)                                             \
    T name(T value, CMMD_combiner_t combiner)                                  \
    {                                                                          \
        CM5C_HOLD();                                                           \
        cmmd_reduce(#name, &value, type, combiner);                            \
        return value;                                                          \
    }

#define LONG_T (sizeof(long) == 8 ? CM5_INT64 : CM5_INT32)
#define ULONG_T (sizeof(long) == 8 ? CM5_UINT64 : CM5_UINT32)

CMMD_REDUCE(CMMD_reduce_int, int, CM5_INT32)
CMMD_REDUCE(CMMD_reduce_uint, unsigned, CM5_UINT32)
CMMD_REDUCE(CMMD_reduce_lint, LONGLONG_INT, LONG_T)
CMMD_REDUCE(CMMD_reduce_luint, LONGLONG_UINT, ULONG_T)
CMMD_REDUCE(CMMD_reduce_double, double, CM5_DOUBLE)

/* A float value arrives as double (the K&R promotion) and combines as a
 * float, as on the CM-5. */
double CMMD_reduce_float(double value, CMMD_combiner_t combiner)
{
    CM5C_HOLD();
    float f = (float)value;

    cmmd_reduce("CMMD_reduce_float", &f, CM5_FLOAT, combiner);
    return f;
}

/* reduce_v: the combiner's prefix and the element size give the type. */
int cm5c_vtype(CMMD_combiner_t c, int size)
{
    switch (c) {
    case CMMD_combiner_fadd:
    case CMMD_combiner_fmax:
    case CMMD_combiner_fmin:
        return size == 4 ? CM5_FLOAT : -1;
    case CMMD_combiner_dadd:
    case CMMD_combiner_dmax:
    case CMMD_combiner_dmin:
        return size == 8 ? CM5_DOUBLE : -1;
    case CMMD_combiner_add:
    case CMMD_combiner_max:
    case CMMD_combiner_min:
        return size == 4 ? CM5_INT32 : size == 8 ? CM5_INT64 : -1;
    default:
        return size == 4 ? CM5_UINT32 : size == 8 ? CM5_UINT64 : -1;
    }
}

void CMMD_reduce_v(void *dest, void *source, CMMD_combiner_t combiner,
                   int element_size, int count)
{
    CM5C_HOLD();
    static const char call[] = "CMMD_reduce_v";
    int t;

    if (cm5c_combiner_op(combiner) < 0)
        cm5_fatal(call, "invalid combiner %d", (int)combiner);
    t = cm5c_vtype(combiner, element_size);
    if (t < 0)
        cm5_fatal(call, "element size %d does not fit combiner %d",
                  element_size, (int)combiner);
    if (count < 0 || (count > 0 && (!dest || !source)))
        cm5_fatal(call, "bad vector (count %d, dest %p, source %p)", count,
                  dest, source);
    if (dest != source)
        memmove(dest, source, (size_t)count * (size_t)element_size);
    cmmd_status(call,
                cm5_allreduce(dest, count, (cm5_type_t)t,
                              cm5c_check_op(call, combiner, (cm5_type_t)t)));
}

/* ---- scans ---- */

static int cmmd_scan_start(const char *call, CMMD_scan_direction_t dir,
                           CMMD_segment_mode_t smode, int sbit)
{
    int self = cm5_rank(), size = cm5_size(), prev, *bits, start;

    switch (smode) {
    case CMMD_none:
        return 0;
    case CMMD_start_bit:
        return sbit != 0;
    case CMMD_segment_bit:
        break;
    default:
        cm5_fatal(call, "invalid segment mode %d", (int)smode);
    }
    /* The previous node in the scan's direction ended a segment. */
    bits = malloc(sizeof(int) * (size_t)size);
    if (!bits)
        cm5_fatal(call, "out of memory");
    sbit = sbit != 0;
    cmmd_status(call, cm5_allgather(&sbit, sizeof(int), bits));
    prev = dir == CMMD_downward ? self + 1 : self - 1;
    start = prev >= 0 && prev < size && bits[prev];
    free(bits);
    return start;
}

static void cmmd_scan(const char *call, void *v, cm5_type_t t,
                      CMMD_combiner_t c, CMMD_scan_direction_t dir,
                      CMMD_segment_mode_t smode, int sbit,
                      CMMD_scan_inclusion_t inc)
{
    cm5_op_t op = cm5c_check_op(call, c, t);
    unsigned flags = 0;
    int start;

    if (dir != CMMD_upward && dir != CMMD_downward)
        cm5_fatal(call, "invalid scan direction %d", (int)dir);
    if (inc != CMMD_inclusive && inc != CMMD_exclusive)
        cm5_fatal(call, "invalid inclusion %d", (int)inc);
    start = cmmd_scan_start(call, dir, smode, sbit);
    flags |= dir == CMMD_downward ? CM5_SCAN_DOWNWARD : 0;
    flags |= inc == CMMD_exclusive ? CM5_SCAN_EXCLUSIVE : 0;
    cmmd_status(call, cm5_scan(v, t, op, flags, start));
}

#define CMMD_SCAN(name, T, type)                                               \
    T name(T value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction, \
           CMMD_segment_mode_t smode, int sbit,                                \
           CMMD_scan_inclusion_t inclusion)                                    \
    {                                                                          \
        CM5C_HOLD();                                                           \
        cmmd_scan(#name, &value, type, combiner, direction, smode, sbit,       \
                  inclusion);                                                  \
        return value;                                                          \
    }

CMMD_SCAN(CMMD_scan_int, int, CM5_INT32)
CMMD_SCAN(CMMD_scan_uint, unsigned, CM5_UINT32)
CMMD_SCAN(CMMD_scan_lint, LONGLONG_INT, LONG_T)
CMMD_SCAN(CMMD_scan_luint, LONGLONG_UINT, ULONG_T)
CMMD_SCAN(CMMD_scan_double, double, CM5_DOUBLE)

double CMMD_scan_float(double value, CMMD_combiner_t combiner,
                       CMMD_scan_direction_t direction,
                       CMMD_segment_mode_t smode, int sbit,
                       CMMD_scan_inclusion_t inclusion)
{
    CM5C_HOLD();
    float f = (float)value;

    cmmd_scan("CMMD_scan_float", &f, CM5_FLOAT, combiner, direction, smode,
              sbit, inclusion);
    return f;
}

/* ---- broadcast, concatenation, global OR, split barrier ---- */

static void cmmd_bytes(const char *call, void *buf, int len)
{
    if (len < 0 || (len > 0 && !buf))
        cm5_fatal(call, "bad buffer (%p, %d bytes)", buf, len);
}

void CMMD_bc_to_nodes(void *buffer, int len)
{
    CM5C_HOLD();
    cmmd_bytes("CMMD_bc_to_nodes", buffer, len);
    cmmd_status("CMMD_bc_to_nodes", cm5_bcast(buffer, (size_t)len, cm5_rank()));
}

void CMMD_receive_bc_from_node(void *buffer, int len)
{
    CM5C_HOLD();
    cmmd_bytes("CMMD_receive_bc_from_node", buffer, len);
    cmmd_status("CMMD_receive_bc_from_node",
                cm5_bcast(buffer, (size_t)len, CM5_ANY_NODE));
}

void CMMD_concat_with_nodes(void *element, void *buffer, int element_len)
{
    CM5C_HOLD();
    cmmd_bytes("CMMD_concat_with_nodes", element, element_len);
    cmmd_bytes("CMMD_concat_with_nodes", buffer, element_len);
    cmmd_status("CMMD_concat_with_nodes",
                cm5_allgather(element, (size_t)element_len, buffer));
}

int CMMD_set_global_or(int bit)
{
    CM5C_HOLD();
    cm5_global_or_set(bit);
    return TRUE;
}

int CMMD_get_global_or(void)
{
    CM5C_HOLD();
    return cm5_global_or_get();
}

void CMMD_sync_with_nodes_start(void)
{
    CM5C_HOLD();
    cmmd_status("CMMD_sync_with_nodes_start", cm5_barrier_start());
}

int CMMD_sync_done(void)
{
    CM5C_HOLD();
    return cm5_barrier_test();
}

void CMMD_sync_with_nodes_finish(void)
{
    CM5C_HOLD();
    cmmd_status("CMMD_sync_with_nodes_finish", cm5_barrier_finish());
}
