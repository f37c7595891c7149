/*
 * CMMD point-to-point messages on the native cm5_msg_* calls.  An MCB is
 * an int handle, as in the real header: an index (from 1) into a table of
 * slots that hold the native message handle.  A slot freed while its
 * message is in flight stays reserved until the message is done, so a
 * completion handler never sees a number already given to another
 * message.
 */
/* The definitions of CMMD_send_async and CMMD_receive_async. */
#define CMMD_NO_MCB_CHECK 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

/* Asynchronous operations in flight at once, per direction (the CM-5
 * bounded them by its MCBs): CM5_ASYNC_MAX, 128 unless set. */
#define CMMD_ASYNC_MAX cm5_async_max()
/* MCBs: every asynchronous operation plus probes (CMMD_mcb_pending). */
#define CMMD_MCB_MAX (2 * CMMD_ASYNC_MAX + 64)

static struct {
    int bytes_sent, bytes_received;
    int sender, tag;
    int err;
    int async[2]; /* receives, sends */
} cmmd_msg = {0, 0, -1, -1, CMMD_ERR_NONE, {0, 0}};

enum { MCB_FREE, MCB_LIVE, MCB_FREEING };

typedef struct {
    int state;
    int is_probe;         /* from CMMD_mcb_pending: a description only */
    cm5_msg_h m;          /* the message (not for a probe) */
    cm5_msg_info_t probe; /* a probe's message */
    CMMD_mcb_handler_t handler;
    void *arg;
    const char *call;
    int is_send, async;
    int completing; /* its handler runs: a free waits for its return */
} cmmd_mcb_t;

static cmmd_mcb_t *cmmd_mcbs; /* CMMD_MCB_MAX + 1; [0] is never used */

/* A free slot, or 0. */
static CMMD_mcb mcb_new(void)
{
    if (!cmmd_mcbs &&
        !(cmmd_mcbs = calloc((size_t)CMMD_MCB_MAX + 1, sizeof(*cmmd_mcbs))))
        cm5_fatal("CMMD_send_async", "out of memory for %d MCBs", CMMD_MCB_MAX);
    for (int i = 1; i <= CMMD_MCB_MAX; i++)
        if (cmmd_mcbs[i].state == MCB_FREE) {
            memset(&cmmd_mcbs[i], 0, sizeof(cmmd_mcbs[i]));
            cmmd_mcbs[i].state = MCB_LIVE;
            return i;
        }
    return 0;
}

static void cmmd_check_args(const char *call, int node, int any, void *buf,
                            int len)
{
    cm5c_check_node(call, node, any);
    if (len < 0)
        cm5_fatal(call, "negative length %d", len);
    if (len > 0 && !buf)
        cm5_fatal(call, "buffer is a null pointer for %d bytes", len);
}

static void cmmd_fail(const char *call, cm5_msg_h m, cm5_status_t st)
{
    cm5_msg_info_t in;

    cm5_msg_info(m, &in);
    if (st == CM5_ERR_INVALID && !in.is_send)
        cm5_fatal(call,
                  "message of %zu bytes from node %d (tag %d) is longer "
                  "than the receive buffer of %zu bytes on node %d",
                  in.bytes, in.node, in.tag, in.size, cm5_rank());
    if (st == CM5_ERR_INVALID) {
        /* The receiver refused it and is reporting that itself: give its
         * report time to stop the job, then report here. */
        double t0 = cm5_rtime(); /* (real time, also in virtual time) */

        while (cm5_rtime() - t0 < 5.0)
            cm5_poll();
        cm5_fatal(call,
                  "node %d refused the message of %zu bytes (tag %d): "
                  "its receive buffer is shorter",
                  in.node, in.bytes, in.tag);
    }
    cm5_fatal(call, "message with node %d failed: %s", in.node,
              cm5_status_string(st));
}

static void cmmd_note_recv(cm5_msg_h m)
{
    cm5_msg_info_t in;

    cm5_msg_info(m, &in);
    cmmd_msg.bytes_received = (int)in.bytes;
    cmmd_msg.sender = in.node;
    cmmd_msg.tag = in.tag;
}

static void cmmd_start(const char *call, int is_send, int node, int tag,
                       void *buf, int len, unsigned flags,
                       cm5_msg_done_func_t done, void *arg, cm5_msg_h *m)
{
    cm5_status_t st;

    cmmd_check_args(call, node, !is_send, buf, len);
    if (is_send && tag < 0)
        cm5_fatal(call, "tag %d is not a valid message tag", tag);
    st = is_send
             ? cm5_msg_send(node, tag, buf, (size_t)len, flags, done, arg, m)
             : cm5_msg_recv(node, tag, buf, (size_t)len, done, arg, m);
    if (st == CM5_ERR_STATE)
        cm5_fatal(call, "called from inside a handler");
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5_status_string(st));
}

int cm5c_msg_block(const char *call, int is_send, int node, int tag, void *buf,
                   int len)
{
    cm5_msg_h m;
    cm5_status_t st;

    cmmd_start(call, is_send, node, tag, buf, len, 0, NULL, NULL, &m);
    st = cm5_msg_wait(m);
    if (st != CM5_OK)
        cmmd_fail(call, m, st);
    if (is_send)
        cmmd_msg.bytes_sent = len;
    else
        cmmd_note_recv(m);
    cm5_msg_free(m);
    return TRUE;
}

int CMMD_send_block(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    return cm5c_msg_block("CMMD_send_block", 1, node, tag, buf, len);
}

int CMMD_receive_block(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    return cm5c_msg_block("CMMD_receive_block", 0, node, tag, buf, len);
}

int CMMD_send(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    return cm5c_msg_block("CMMD_send", 1, node, tag, buf, len);
}

int CMMD_receive(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    return cm5c_msg_block("CMMD_receive", 0, node, tag, buf, len);
}

static void cmmd_noblock_done(cm5_msg_h m, void *arg)
{
    cm5_msg_info_t in;

    cm5_msg_info(m, &in);
    if (in.status != CM5_OK)
        cmmd_fail((const char *)arg, m, in.status);
}

void cm5c_msg_noblock(const char *call, int node, int tag, void *buf, int len)
{
    cm5_msg_h m;

    cmmd_start(call, 1, node, tag, buf, len, CM5_MSG_COPY, cmmd_noblock_done,
               (void *)call, &m);
    cm5_msg_free(m); /* released when done */
    cmmd_msg.bytes_sent = len;
}

int CMMD_send_noblock(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    cm5c_msg_noblock("CMMD_send_noblock", node, tag, buf, len);
    return 0;
}

static void cmmd_async_done(cm5_msg_h m, void *arg)
{
    CMMD_mcb h = (CMMD_mcb)(intptr_t)arg;
    cmmd_mcb_t *a = &cmmd_mcbs[h];
    cm5_msg_info_t in;

    cm5_msg_info(m, &in);
    if (in.status != CM5_OK)
        cmmd_fail(a->call, m, in.status);
    cmmd_msg.async[a->is_send]--;
    a->async = 0;
    if (!a->is_send)
        cmmd_note_recv(m);
    if (a->handler) { /* handler(&mcb, arg), as the real CMMD called it */
        CMMD_mcb mcb = h;

        a->completing = 1;
        a->handler(&mcb, a->arg);
        a->completing = 0;
    }
    if (a->state == MCB_FREEING) { /* freed in flight or by its handler */
        cm5_msg_free(a->m);
        a->state = MCB_FREE;
    }
}

CMMD_mcb cm5c_msg_async(const char *call, int is_send, int node, int tag,
                        void *buf, int len, CMMD_mcb_handler_t handler,
                        void *arg)
{
    CMMD_mcb h;
    cmmd_mcb_t *a;

    if (cmmd_msg.async[is_send] >= CMMD_ASYNC_MAX || !(h = mcb_new())) {
        cmmd_msg.err = CMMD_ERR_NO_RPORTS;
        return CMMD_ERRVAL;
    }
    a = &cmmd_mcbs[h];
    a->handler = handler;
    a->arg = arg;
    a->call = call;
    a->is_send = is_send;
    a->async = 1;
    cmmd_msg.async[is_send]++;
    cmmd_start(call, is_send, node, tag, buf, len, 0, cmmd_async_done,
               (void *)(intptr_t)h, &a->m);
    if (is_send)
        cmmd_msg.bytes_sent = len;
    cmmd_msg.err = CMMD_ERR_NONE;
    return h;
}

CMMD_mcb CMMD_send_async(int node, int tag, void *buf, int len,
                         CMMD_mcb_handler_t handler, void *handler_arg)
{
    CM5C_HOLD();
    return cm5c_msg_async("CMMD_send_async", 1, node, tag, buf, len, handler,
                          handler_arg);
}

CMMD_mcb CMMD_receive_async(int node, int tag, void *buf, int len,
                            CMMD_mcb_handler_t handler, void *handler_arg)
{
    CM5C_HOLD();
    return cm5c_msg_async("CMMD_receive_async", 0, node, tag, buf, len, handler,
                          handler_arg);
}

/* The slot of a live MCB, or stop: a freed or invented MCB is a bug of
 * the caller that the CM-5 would not have caught either, but here it is
 * cheap to name.  An MCB freed in flight stays readable until its
 * message is done (its completion handler reads it). */
static cmmd_mcb_t *cmmd_mcb(const char *call, CMMD_mcb mcb)
{
    if (!cmmd_mcbs || mcb < 1 || mcb > CMMD_MCB_MAX ||
        cmmd_mcbs[mcb].state == MCB_FREE)
        cm5_fatal(call, "MCB %d is not a live message control block (%s)", mcb,
                  mcb == CMMD_ERRVAL
                      ? "CMMD_ERRVAL: the call that returned it failed"
                  : !cmmd_mcbs || mcb < 1 || mcb > CMMD_MCB_MAX
                      ? "never returned by CMMD"
                      : "freed with CMMD_free_mcb");
    return &cmmd_mcbs[mcb];
}

/* The message of an MCB that is an operation, not a probe. */
static cm5_msg_h cmmd_op(const char *call, CMMD_mcb mcb)
{
    cmmd_mcb_t *a = cmmd_mcb(call, mcb);

    if (a->is_probe)
        cm5_fatal(call,
                  "MCB %d describes a pending message "
                  "(CMMD_mcb_pending), not a send or receive",
                  mcb);
    return a->m;
}

int CMMD_msg_done(CMMD_mcb mcb)
{
    CM5C_HOLD();
    if (cmmd_mcb("CMMD_msg_done", mcb)->is_probe)
        return FALSE; /* not received yet */
    return cm5_msg_test(cmmd_op("CMMD_msg_done", mcb));
}

void CMMD_msg_wait(CMMD_mcb mcb)
{
    CM5C_HOLD();
    if (cm5_msg_wait(cmmd_op("CMMD_msg_wait", mcb)) == CM5_ERR_STATE)
        cm5_fatal("CMMD_msg_wait", "called from inside a handler");
}

void CMMD_free_mcb(CMMD_mcb mcb)
{
    CM5C_HOLD();
    cmmd_mcb_t *a = cmmd_mcb("CMMD_free_mcb", mcb);

    if (a->state == MCB_FREEING)
        cm5_fatal("CMMD_free_mcb", "MCB %d was already freed", mcb);
    if (a->async || a->completing) { /* its completion releases the slot */
        a->state = MCB_FREEING;
        return;
    }
    if (!a->is_probe)
        cm5_msg_free(a->m);
    a->state = MCB_FREE;
}

CMMD_mcb CMMD_mcb_pending(int node, int tag)
{
    CM5C_HOLD();
    cm5_msg_info_t in;
    CMMD_mcb h;

    cm5c_check_node("CMMD_mcb_pending", node, 1);
    if (!cm5_msg_probe(node, tag, &in))
        return 0;
    if (!(h = mcb_new())) {
        cmmd_msg.err = CMMD_ERR_NO_RPORTS;
        return CMMD_ERRVAL;
    }
    cmmd_mcbs[h].is_probe = 1;
    cmmd_mcbs[h].probe = in;
    cmmd_mcbs[h].probe.size = in.bytes;
    return h;
}

static cm5_msg_info_t cmmd_info(const char *call, CMMD_mcb mcb)
{
    cmmd_mcb_t *a = cmmd_mcb(call, mcb);
    cm5_msg_info_t in;

    if (a->is_probe)
        return a->probe;
    cm5_msg_info(a->m, &in);
    return in;
}

int CMMD_mcb_bytes(CMMD_mcb mcb)
{
    CM5C_HOLD();
    return (int)cmmd_info("CMMD_mcb_bytes", mcb).bytes;
}

int CMMD_mcb_tag(CMMD_mcb mcb)
{
    CM5C_HOLD();
    return cmmd_info("CMMD_mcb_tag", mcb).tag;
}

int CMMD_mcb_node(CMMD_mcb mcb)
{
    CM5C_HOLD();
    return cmmd_info("CMMD_mcb_node", mcb).node;
}

void *CMMD_mcb_buffer(CMMD_mcb mcb)
{
    CM5C_HOLD();
    return cmmd_info("CMMD_mcb_buffer", mcb).buf;
}

/* The buffer's length (a receive's may exceed its message's bytes). */
int CMMD_mcb_len(CMMD_mcb mcb)
{
    CM5C_HOLD();
    return (int)cmmd_info("CMMD_mcb_len", mcb).size;
}

int CMMD_mcb_source(CMMD_mcb mcb)
{
    CM5C_HOLD();
    cm5_msg_info_t in = cmmd_info("CMMD_mcb_source", mcb);

    return in.is_send ? cm5_rank() : in.node;
}

int CMMD_mcb_dest(CMMD_mcb mcb)
{
    CM5C_HOLD();
    cm5_msg_info_t in = cmmd_info("CMMD_mcb_dest", mcb);

    return in.is_send ? in.node : cm5_rank();
}

static int cmmd_none_active(void *arg)
{
    (void)arg;
    return cm5_msg_active(0) == 0 && cm5_msg_active(1) == 0;
}

void CMMD_all_msgs_wait(void)
{
    CM5C_HOLD();
    if (cm5_in_handler())
        cm5_fatal("CMMD_all_msgs_wait", "called from inside a handler");
    cm5_wait_until(cmmd_none_active, NULL);
}

int CMMD_all_sends_done(void)
{
    CM5C_HOLD();
    cm5_poll();
    return cm5_msg_active(1) == 0;
}

int CMMD_all_receives_done(void)
{
    CM5C_HOLD();
    cm5_poll();
    return cm5_msg_active(0) == 0;
}

int CMMD_all_msgs_done(void)
{
    CM5C_HOLD();
    cm5_poll();
    return cmmd_none_active(NULL);
}

int CMMD_msg_pending(int node, int tag)
{
    CM5C_HOLD();
    cm5_msg_info_t in;

    cm5c_check_node("CMMD_msg_pending", node, 1);
    if (!cm5_msg_probe(node, tag, &in))
        return FALSE;
    cmmd_msg.sender = in.node;
    cmmd_msg.tag = in.tag;
    cmmd_msg.bytes_received = (int)in.bytes;
    return TRUE;
}

int CMMD_bytes_sent(void)
{
    CM5C_HOLD();
    return cmmd_msg.bytes_sent;
}

int CMMD_bytes_received(void)
{
    CM5C_HOLD();
    return cmmd_msg.bytes_received;
}

int CMMD_msg_sender(void)
{
    CM5C_HOLD();
    return cmmd_msg.sender;
}

int CMMD_msg_tag(void)
{
    CM5C_HOLD();
    return cmmd_msg.tag;
}

int cm5c_msg_send_and_receive(const char *call, int source, int source_tag,
                              void *rbuf, int rlen, int dest, int dest_tag,
                              void *sbuf, int slen)
{
    cm5_msg_h r, s;
    cm5_status_t st;

    cmmd_start(call, 0, source, source_tag, rbuf, rlen, 0, NULL, NULL, &r);
    cmmd_start(call, 1, dest, dest_tag, sbuf, slen, 0, NULL, NULL, &s);
    if ((st = cm5_msg_wait(s)) != CM5_OK)
        cmmd_fail(call, s, st);
    if ((st = cm5_msg_wait(r)) != CM5_OK)
        cmmd_fail(call, r, st);
    cmmd_msg.bytes_sent = slen;
    cmmd_note_recv(r);
    cm5_msg_free(r);
    cm5_msg_free(s);
    return TRUE;
}

int CMMD_send_and_receive(int source, int source_tag, void *rbuf, int rlen,
                          int dest, int dest_tag, void *sbuf, int slen)
{
    CM5C_HOLD();
    return cm5c_msg_send_and_receive("CMMD_send_and_receive", source,
                                     source_tag, rbuf, rlen, dest, dest_tag,
                                     sbuf, slen);
}

int CMMD_swap(int node, int tag, void *buf, int len)
{
    CM5C_HOLD();
    void *copy;

    cmmd_check_args("CMMD_swap", node, 0, buf, len);
    copy = malloc(len > 0 ? (size_t)len : 1);
    if (!copy)
        cm5_fatal("CMMD_swap", "out of memory for %d bytes", len);
    memcpy(copy, buf, (size_t)len);
    CMMD_send_and_receive(node, tag, buf, len, node, tag, copy, len);
    free(copy);
    return TRUE;
}

int CMMD_available_sends(void)
{
    CM5C_HOLD();
    return CMMD_ASYNC_MAX - cmmd_msg.async[1];
}

int CMMD_available_receives(void)
{
    CM5C_HOLD();
    return CMMD_ASYNC_MAX - cmmd_msg.async[0];
}

int CMMD_get_errno(void)
{
    CM5C_HOLD();
    return cmmd_msg.err;
}

void cm5c_set_errno(int err) { cmmd_msg.err = (CMMD_errno_t)err; }
