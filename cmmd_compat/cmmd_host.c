/*
 * CMMD's host/node model on the native cm5_host_* calls: CMMD_enable,
 * the host collectives and their node counterparts, active messages to
 * the host.  Each host call checks that it runs on the side it belongs
 * to, so a call made by the wrong program stops the job with one line
 * instead of waiting for a partner that never comes.
 */
/* Defines the active-message sends: no checking macros. */
#define CMMD_NO_WORD_CHECK 1
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

static int host_enabled; /* CMMD_enable / CMMD_enable_host returned */

int CMMD_host_node(void)
{
    CM5C_HOLD();
    int h = cm5_host_node();

    return h >= 0 ? h : cm5_size();
}

int CMUTIL_host_node(void) { return CMMD_host_node(); }

/* The call belongs to the host program (host != 0) or to the node
 * program; other names its counterpart on the other side. */
static void host_side(const char *call, int host, const char *other)
{
    if (cm5_host_node() < 0)
        cm5_fatal(call, "this job has no host program (start it with "
                        "cm5run -n N --host HOSTPROG -- NODEPROG)");
    if (host && !cm5_is_host())
        cm5_fatal(call,
                  "a host-program call, made by the node program "
                  "(node %d; nodes call %s)",
                  cm5_rank(), other);
    if (!host && cm5_is_host())
        cm5_fatal(call,
                  "a node-program call, made by the host program "
                  "(the host calls %s)",
                  other);
}

/* A host collective: the right side, and CMMD enabled there. */
static void host_coll(const char *call, int host, const char *other)
{
    host_side(call, host, other);
    if (!host_enabled)
        cm5_fatal(call, "called before %s",
                  host ? "CMMD_enable()" : "CMMD_enable_host()");
}

static void host_status(const char *call, cm5_status_t st)
{
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5c_state_error(st));
}

void CMMD_enable(void)
{
    CM5C_HOLD();
    host_side("CMMD_enable", 1, "CMMD_enable_host");
    if (host_enabled)
        return;
    host_status("CMMD_enable", cm5_host_barrier());
    host_enabled = 1;
}

void CMMD_enable_host(void)
{
    CM5C_HOLD();
    host_side("CMMD_enable_host", 0, "CMMD_enable");
    if (host_enabled)
        return;
    host_status("CMMD_enable_host", cm5_host_barrier());
    host_enabled = 1;
}

int CMMD_is_enabled(void)
{
    CM5C_HOLD();
    return host_enabled;
}

/* ---- synchronization, broadcast, distribution, gathering ---- */

static void host_sync(const char *call, int host, const char *other)
{
    CM5C_HOLD();
    host_coll(call, host, other);
    host_status(call, cm5_host_barrier());
}

void CMMD_sync_host_with_nodes(void)
{
    CM5C_HOLD();
    host_sync("CMMD_sync_host_with_nodes", 1, "CMMD_sync_with_host");
}

void CMMD_sync_with_host(void)
{
    CM5C_HOLD();
    host_sync("CMMD_sync_with_host", 0, "CMMD_sync_host_with_nodes");
}

static void host_bytes(const char *call, void *buf, int len)
{
    if (len < 0 || (len > 0 && !buf))
        cm5_fatal(call, "bad buffer (%p, %d bytes)", buf, len);
}

typedef cm5_status_t (*host_move_func_t)(void *buf, size_t len);

static void host_move(const char *call, int host, const char *other,
                      host_move_func_t fn, void *buf, int len)
{
    CM5C_HOLD();
    host_coll(call, host, other);
    host_bytes(call, buf, len);
    host_status(call, fn(buf, (size_t)len));
}

void CMMD_bc_from_host(void *buffer, int len)
{
    CM5C_HOLD();
    host_move("CMMD_bc_from_host", 1, "CMMD_receive_bc_from_host",
              cm5_host_bcast, buffer, len);
}

void CMMD_receive_bc_from_host(void *buffer, int len)
{
    CM5C_HOLD();
    host_move("CMMD_receive_bc_from_host", 0, "CMMD_bc_from_host",
              cm5_host_bcast, buffer, len);
}

void CMMD_distrib_to_nodes(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMMD_distrib_to_nodes", 1, "CMMD_receive_element_from_host",
              cm5_host_scatter, buffer, element_len);
}

void CMMD_receive_element_from_host(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMMD_receive_element_from_host", 0, "CMMD_distrib_to_nodes",
              cm5_host_scatter, buffer, element_len);
}

void CMMD_gather_from_nodes(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMMD_gather_from_nodes", 1, "CMMD_concat_elements_to_host",
              cm5_host_gather, buffer, element_len);
}

void CMMD_concat_elements_to_host(void *element, int element_len)
{
    CM5C_HOLD();
    host_move("CMMD_concat_elements_to_host", 0, "CMMD_gather_from_nodes",
              cm5_host_gather, element, element_len);
}

/* ---- reductions ---- */

static void host_reduce(const char *call, int host, const char *other, void *v,
                        cm5_type_t t, CMMD_combiner_t c)
{
    CM5C_HOLD();
    host_coll(call, host, other);
    host_status(call, cm5_host_allreduce(v, 1, t, cm5c_check_op(call, c, t)));
}

#define LONG_T (sizeof(long) == 8 ? CM5_INT64 : CM5_INT32)
#define ULONG_T (sizeof(long) == 8 ? CM5_UINT64 : CM5_UINT32)

/* name on the host side (host 1) or the node side (host 0). */
#define HOST_REDUCE(name, other, host, T, CT, type)                            \
    T name(T value, CMMD_combiner_t combiner)                                  \
    {                                                                          \
        CM5C_HOLD();                                                           \
        CT v = (CT)value;                                                      \
        host_reduce(#name, host, #other, &v, type, combiner);                  \
        return (T)v;                                                           \
    }
#define HOST_REDUCE_PAIR(from, to, T, CT, type)                                \
    HOST_REDUCE(from, to, 1, T, CT, type)                                      \
    HOST_REDUCE(to, from, 0, T, CT, type)

HOST_REDUCE_PAIR(CMMD_reduce_from_nodes_int, CMMD_reduce_to_host_int, int,
                 int32_t, CM5_INT32)
HOST_REDUCE_PAIR(CMMD_reduce_from_nodes_uint, CMMD_reduce_to_host_uint,
                 unsigned, uint32_t, CM5_UINT32)
HOST_REDUCE_PAIR(CMMD_reduce_from_nodes_float, CMMD_reduce_to_host_float,
                 double, float, CM5_FLOAT)
HOST_REDUCE_PAIR(CMMD_reduce_from_nodes_double, CMMD_reduce_to_host_double,
                 double, double, CM5_DOUBLE)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_int, CMCN_reduce_to_host_int, int,
                 int32_t, CM5_INT32)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_uint, CMCN_reduce_to_host_uint,
                 unsigned, uint32_t, CM5_UINT32)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_lint, CMCN_reduce_to_host_lint, long,
                 long, LONG_T)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_luint, CMCN_reduce_to_host_luint,
                 unsigned long, unsigned long, ULONG_T)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_float, CMCN_reduce_to_host_float,
                 double, float, CM5_FLOAT)
HOST_REDUCE_PAIR(CMCN_reduce_from_nodes_double, CMCN_reduce_to_host_double,
                 double, double, CM5_DOUBLE)

static void host_reduce_v(const char *call, int host, const char *other,
                          void *dest, void *source, CMMD_combiner_t c,
                          int element_size, int count)
{
    CM5C_HOLD();
    int t;

    host_coll(call, host, other);
    t = cm5c_vtype(c, element_size);
    if (t < 0)
        cm5_fatal(call, "element size %d does not fit combiner %d",
                  element_size, (int)c);
    if (count < 0 || (count > 0 && (!dest || !source)))
        cm5_fatal(call, "bad vector (count %d, dest %p, source %p)", count,
                  dest, source);
    if (dest != source)
        memmove(dest, source, (size_t)count * (size_t)element_size);
    host_status(call,
                cm5_host_allreduce(dest, count, (cm5_type_t)t,
                                   cm5c_check_op(call, c, (cm5_type_t)t)));
}

#define HOST_REDUCE_V(name, other, host)                                       \
    void name(void *dest, void *source, CMMD_combiner_t combiner,              \
              int element_size, int count)                                     \
    {                                                                          \
        CM5C_HOLD();                                                           \
        host_reduce_v(#name, host, #other, dest, source, combiner,             \
                      element_size, count);                                    \
    }

HOST_REDUCE_V(CMMD_reduce_from_nodes_v, CMMD_reduce_to_host_v, 1)
HOST_REDUCE_V(CMMD_reduce_to_host_v, CMMD_reduce_from_nodes_v, 0)
HOST_REDUCE_V(CMCN_reduce_from_nodes_v, CMCN_reduce_to_host_v, 1)
HOST_REDUCE_V(CMCN_reduce_to_host_v, CMCN_reduce_from_nodes_v, 0)

/* ---- the CMCN_ names of the other calls ---- */

void CMCN_sync_host_with_nodes(void)
{
    CM5C_HOLD();
    host_sync("CMCN_sync_host_with_nodes", 1, "CMCN_sync_with_host");
}

void CMCN_sync_with_host(void)
{
    CM5C_HOLD();
    host_sync("CMCN_sync_with_host", 0, "CMCN_sync_host_with_nodes");
}

void CMCN_bc_from_host(void *buffer, int len)
{
    CM5C_HOLD();
    host_move("CMCN_bc_from_host", 1, "CMCN_receive_bc_from_host",
              cm5_host_bcast, buffer, len);
}

void CMCN_receive_bc_from_host(void *buffer, int len)
{
    CM5C_HOLD();
    host_move("CMCN_receive_bc_from_host", 0, "CMCN_bc_from_host",
              cm5_host_bcast, buffer, len);
}

void CMCN_distrib_to_nodes(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMCN_distrib_to_nodes", 1, "CMCN_receive_element_from_host",
              cm5_host_scatter, buffer, element_len);
}

void CMCN_receive_element_from_host(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMCN_receive_element_from_host", 0, "CMCN_distrib_to_nodes",
              cm5_host_scatter, buffer, element_len);
}

void CMCN_gather_from_nodes(void *buffer, int element_len)
{
    CM5C_HOLD();
    host_move("CMCN_gather_from_nodes", 1, "CMCN_concat_elements_to_host",
              cm5_host_gather, buffer, element_len);
}

void CMCN_concat_elements_to_host(void *element, int element_len)
{
    CM5C_HOLD();
    host_move("CMCN_concat_elements_to_host", 0, "CMCN_gather_from_nodes",
              cm5_host_gather, element, element_len);
}

/* ---- active messages to the host ---- */

typedef cm5_status_t (*host_am_func_t)(int, cm5_am_handler_func_t, uint32_t,
                                       uint32_t, uint32_t, uint32_t);

static void host_am(const char *call, host_am_func_t fn, CMAML_handler_t h,
                    const uint32_t w[4])
{
    int host = cm5_host_node();
    cm5_status_t st;

    if (host < 0)
        cm5_fatal(call, "this job has no host program (start it with "
                        "cm5run -n N --host HOSTPROG -- NODEPROG)");
    st = fn(host, (cm5_am_handler_func_t)(void (*)(void))h, w[0], w[1], w[2],
            w[3]);
    if (st == CM5_ERR_HANDLER)
        cm5_fatal(call,
                  "handler %p is not a function (not in executable "
                  "code of any loaded object)",
                  (void *)(uintptr_t)h);
    if (st == CM5_ERR_STATE)
        cm5_fatal(call, "not allowed here: handlers may send only one kind "
                        "of message (a request handler may reply; nothing else "
                        "may be sent from a handler)");
    if (st != CM5_OK)
        cm5_fatal(call, "sending to the host program failed: %s",
                  cm5_status_string(st));
}

/* The handler gets four words (CM5C_WORDS). */
#define HOST_AM(call, fn, handler)                                             \
    do {                                                                       \
        uint32_t w[4];                                                         \
        CM5C_WORDS(w, handler);                                                \
        host_am(call, fn, handler, w);                                         \
    } while (0)

void CMAML_request_tohost(CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    HOST_AM("CMAML_request_tohost", cm5_am_request, handler);
}

void CMAML_reply_tohost(CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    HOST_AM("CMAML_reply_tohost", cm5_am_reply, handler);
}

void CMAML_rpc_tohost(CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    HOST_AM("CMAML_rpc_tohost", cm5_am_rpc, handler);
}
