/*
 * The host program's collectives (CMMD's host/node model).
 *
 * The host is one more endpoint, after the nodes.  A host collective is
 * the nodes' own collective plus one hop between node 0 and the host: a
 * broadcast from the host goes to node 0, then down the nodes' tree; a
 * reduction combines up the nodes' tree, the host adds its value last and
 * sends the result back down.  Scatter and gather are one message per
 * node, as the CM-5 host sent them, one at a time through its network
 * interface.  The host's messages carry tags of their own (below the
 * collectives' range in am_coll.c), numbered by a sequence the host and
 * every node advance alike.
 *
 * In virtual time a host collective is one operation of the control
 * network that the host joins: it ends for every node and the host at
 * the latest of their entry clocks plus its price (host_close).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am_coll.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_msg.h"
#include "am_packet.h"

static uint32_t host_seq;

/* Tags -0x80000000 .. -0x40000002: below am_coll.c's -2 .. -0x40000001. */
static int host_tag(uint32_t seq)
{
    return INT32_MIN + (int)(seq % 0x3fffffffu);
}

static cm5_status_t host_enter(void)
{
    cm5i_ensure_init();
    if (cm5i_ctx.host < 0 || cm5i_depth.in_handler ||
        !cm5i_node_ok(cm5i_ctx.rank))
        return CM5_ERR_STATE;
    return CM5_OK;
}

static void host_check(cm5_status_t st, int peer, size_t len)
{
    char who[32];

    if (st == CM5_OK)
        return;
    if (peer == cm5i_ctx.host)
        snprintf(who, sizeof(who), "the host program");
    else
        snprintf(who, sizeof(who), "node %d", peer);
    if (st == CM5_ERR_INVALID)
        cm5_fatal("cm5fab",
                  "host collective data from %s is longer than "
                  "this process's buffer of %zu bytes (host and nodes "
                  "disagree on the length)",
                  who, len);
    cm5_fatal("cm5fab", "host collective transfer with %s failed: %s", who,
              cm5_status_string(st));
}

static cm5_status_t host_start(int send, int peer, uint32_t seq, void *buf,
                               size_t len, cm5_msg_h *m)
{
    int tag = host_tag(seq);

    return send ? cm5i_msg_send(peer, tag, buf, len, 0, NULL, NULL, m)
                : cm5i_msg_recv(peer, tag, buf, len, NULL, NULL, m);
}

static void host_wait(cm5_msg_h m, int peer, size_t len)
{
    host_check(cm5_msg_wait(m), peer, len);
    cm5_msg_free(m);
}

static void host_xfer(int send, int peer, uint32_t seq, void *buf, size_t len)
{
    cm5_msg_h m;

    host_check(host_start(send, peer, seq, buf, len, &m), peer, len);
    host_wait(m, peer, len);
}

int cm5_host_node(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.host;
}

int cm5_is_host(void)
{
    cm5i_ensure_init();
    return cm5i_ctx.host >= 0 && cm5i_ctx.rank == cm5i_ctx.host;
}

static int host_me(void) { return cm5i_ctx.rank == cm5i_ctx.host; }

/* The nodes' own collective inside a host collective: a step of it, not
 * its end (virtual time leaves its clock alone: host_close ends it). */
static cm5_status_t host_nodes(cm5_status_t (*fn)(void *, size_t, int),
                               void *buf, size_t len)
{
    cm5_status_t st;

    cm5i_host_moving = !cm5i_ctx.finalizing; /* (the exit's: as before) */
    st = fn(buf, len, 0);
    cm5i_host_moving = 0;
    return st;
}

static cm5_status_t host_nodes_barrier(void *buf, size_t len, int root)
{
    (void)buf;
    (void)len;
    (void)root;
    return cm5_barrier();
}

/* Virtual time: the host collective (seq) ends at the latest entry clock
 * of the nodes and the host plus the price of kind over n (am_model.c).
 * The host sends node 0 its entry; node 0 takes it into the nodes'
 * closing barrier (cn_end) and sends the host the end.  At the exit
 * (finalizing) the clocks no longer matter: each side is done. */
static void host_close(cm5i_cn_kind_t kind, size_t n)
{
    uint64_t w;
    uint32_t seq;

    if (!cm5i_clock)
        return;
    if (cm5i_ctx.finalizing) {
        cm5i_clock->host_close(CM5I_VT_NONE);
        return;
    }
    seq = ++host_seq;
    w = cm5i_clock->host_entry(kind, n);
    if (host_me()) {
        host_xfer(1, 0, seq, &w, sizeof(w));
        host_xfer(0, 0, seq, &w, sizeof(w));
        cm5i_clock->host_close(w);
        return;
    }
    if (cm5i_ctx.rank == 0) {
        host_xfer(0, cm5i_ctx.host, seq, &w, sizeof(w));
        cm5i_clock->host_seed(w);
    }
    CM5I_EV(cn_end, kind, n);
    w = cm5i_clock->cn_last();
    if (cm5i_ctx.rank == 0)
        host_xfer(1, cm5i_ctx.host, seq, &w, sizeof(w));
    cm5i_clock->host_close(w);
}

/* The start of every host collective: the model's state, then the
 * arguments (valid), then the collective's sequence number. */
static cm5_status_t host_begin(int valid, uint32_t *seq)
{
    if (host_enter() != CM5_OK)
        return CM5_ERR_STATE;
    if (!valid)
        return CM5_ERR_INVALID;
    *seq = ++host_seq;
    return CM5_OK;
}

cm5_status_t cm5_host_bcast(void *buf, size_t len)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_HOST_OP();
    uint32_t seq;
    cm5_status_t st = host_begin(!len || buf, &seq);

    if (st != CM5_OK)
        return st;
    if (host_me()) {
        host_xfer(1, 0, seq, buf, len);
    } else {
        if (cm5i_ctx.rank == 0)
            host_xfer(0, cm5i_ctx.host, seq, buf, len);
        if ((st = host_nodes(cm5_bcast, buf, len)) != CM5_OK)
            return st;
    }
    host_close(CM5I_CN_BCAST, len);
    return CM5_OK;
}

/* The host: one message per node, all in flight at once. */
static void host_fan(int send, uint32_t seq, void *buf, size_t len)
{
    int n = cm5i_ctx.size;
    cm5_msg_h *m = malloc(sizeof(*m) * (size_t)n);

    if (!m)
        cm5_fatal("cm5fab", "out of memory in a host collective");
    for (int i = 0; i < n; i++)
        host_check(
            host_start(send, i, seq, (char *)buf + (size_t)i * len, len, &m[i]),
            i, len);
    for (int i = 0; i < n; i++)
        host_wait(m[i], i, len);
    free(m);
}

static cm5_status_t host_fan_op(int host_sends, void *buf, size_t len)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_HOST_OP();
    uint32_t seq;
    cm5_status_t st = host_begin(!len || buf, &seq);

    if (st != CM5_OK)
        return st;
    if (host_me())
        host_fan(host_sends, seq, buf, len);
    else
        host_xfer(!host_sends, cm5i_ctx.host, seq, buf, len);
    /* (priced as the nodes' concatenation of the same bytes) */
    host_close(CM5I_CN_BCAST, (size_t)cm5i_ctx.size * len);
    return CM5_OK;
}

cm5_status_t cm5_host_scatter(void *buf, size_t len)
{
    return host_fan_op(1, buf, len);
}

cm5_status_t cm5_host_gather(void *buf, size_t len)
{
    return host_fan_op(0, buf, len);
}

/* The host: the nodes' result, then its own values combined in. */
static void host_combine(uint32_t seq, void *values, int count, cm5_type_t type,
                         cm5_op_t op)
{
    size_t sz = cm5_type_size(type), len = sz * (size_t)count;
    char *tmp = malloc(len ? len : 1);

    if (!tmp)
        cm5_fatal("cm5fab", "out of memory in a host collective");
    host_xfer(0, 0, seq, tmp, len);
    for (int k = 0; k < count; k++)
        cm5i_coll_combine(tmp + k * sz, (char *)values + k * sz, type, op);
    memcpy(values, tmp, len);
    free(tmp);
    host_xfer(1, 0, seq, values, len);
}

cm5_status_t cm5_host_allreduce(void *values, int count, cm5_type_t type,
                                cm5_op_t op)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_HOST_OP();
    size_t len = cm5_type_size(type) * (size_t)(count > 0 ? count : 0);
    cm5_status_t st;
    uint32_t seq;

    if ((st = host_begin(cm5i_coll_valid(type, op) && count >= 0 &&
                             (!count || values),
                         &seq)) != CM5_OK)
        return st;
    if (host_me()) {
        host_combine(seq, values, count, type, op);
    } else {
        cm5i_host_moving = !cm5i_ctx.finalizing;
        st = cm5_allreduce(values, count, type, op);
        cm5i_host_moving = 0;
        if (st != CM5_OK)
            return st;
        if (cm5i_ctx.rank == 0) {
            host_xfer(1, cm5i_ctx.host, seq, values, len);
            host_xfer(0, cm5i_ctx.host, seq, values, len);
        }
        if ((st = host_nodes(cm5_bcast, values, len)) != CM5_OK)
            return st;
    }
    host_close(type == CM5_FLOAT || type == CM5_DOUBLE ? CM5I_CN_REDUCE_FP
                                                       : CM5I_CN_REDUCE,
               (size_t)count);
    return CM5_OK;
}

cm5_status_t cm5_host_barrier(void)
{
    CM5I_GUARD();
    CM5I_CN_HOLD_HOST_OP();
    cm5_status_t st;
    uint32_t seq;

    if ((st = host_begin(1, &seq)) != CM5_OK)
        return st;
    if (host_me()) {
        host_xfer(0, 0, seq, NULL, 0);
        host_xfer(1, 0, seq, NULL, 0);
    } else {
        if ((st = host_nodes(host_nodes_barrier, NULL, 0)) != CM5_OK)
            return st;
        if (cm5i_ctx.rank == 0) {
            host_xfer(1, cm5i_ctx.host, seq, NULL, 0);
            host_xfer(0, cm5i_ctx.host, seq, NULL, 0);
        }
        if ((st = host_nodes(cm5_bcast, NULL, 0)) != CM5_OK)
            return st;
    }
    host_close(CM5I_CN_BARRIER, 0);
    return CM5_OK;
}
