/*
 * The strided (_v) point-to-point calls of <cm/cmmd/mp.h> on the calls of
 * cmmd_msg.c.  A vector is elem_count elements of elem_len bytes, element
 * i at buffer + i * stride; on the wire it is the elements end to end, so
 * _v and plain calls match each other.  A strided send packs the elements
 * into a private copy; a strided receive takes the message into a private
 * buffer and lays it out when it is complete, so a receiver never sees a
 * half-placed vector.  A contiguous vector (stride == elem_len) goes
 * straight from and to the caller's buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

typedef struct {
    char *buf; /* the caller's */
    int elem_len, elem_count, stride;
} vec_t;

/* The vector's bytes on the wire, or stop on a vector no CM-5 program
 * could mean. */
static int vec_check(const char *call, const vec_t *v)
{
    if (v->elem_len < 0)
        cm5_fatal(call, "negative element length %d", v->elem_len);
    if (v->elem_count < 0)
        cm5_fatal(call, "negative element count %d", v->elem_count);
    if (v->stride < v->elem_len)
        cm5_fatal(call, "stride %d is smaller than the element length %d",
                  v->stride, v->elem_len);
    if (v->elem_len > 0 && v->elem_count > INT32_MAX / v->elem_len)
        cm5_fatal(call, "%d elements of %d bytes are more than %d bytes",
                  v->elem_count, v->elem_len, INT32_MAX);
    if (v->elem_len > 0 && v->elem_count > 0 && !v->buf)
        cm5_fatal(call,
                  "buffer is a null pointer for %d elements of %d "
                  "bytes",
                  v->elem_count, v->elem_len);
    return v->elem_len * v->elem_count;
}

static int vec_contiguous(const vec_t *v)
{
    return v->stride == v->elem_len || v->elem_count <= 1;
}

static void *vec_alloc(const char *call, int bytes)
{
    void *p = malloc(bytes > 0 ? (size_t)bytes : 1);

    if (!p)
        cm5_fatal(call, "out of memory for a vector of %d bytes", bytes);
    return p;
}

/* The elements end to end: the caller's buffer when they already are,
 * else a private copy (free it with vec_release). */
static void *vec_pack(const char *call, const vec_t *v, int bytes)
{
    char *p;

    if (vec_contiguous(v))
        return v->buf;
    p = vec_alloc(call, bytes);
    for (int i = 0; i < v->elem_count; i++)
        memcpy(p + (size_t)i * v->elem_len, v->buf + (size_t)i * v->stride,
               (size_t)v->elem_len);
    return p;
}

/* Where a receive lands: the caller's buffer or a private one. */
static void *vec_landing(const char *call, const vec_t *v, int bytes)
{
    return vec_contiguous(v) ? v->buf : vec_alloc(call, bytes);
}

/* Lay out the first n bytes of a message received into p, element after
 * element (the last one maybe in part). */
static void vec_scatter(const vec_t *v, const char *p, int n)
{
    if (p == v->buf)
        return;
    for (int i = 0; n > 0 && i < v->elem_count; i++) {
        int k = n < v->elem_len ? n : v->elem_len;

        memcpy(v->buf + (size_t)i * v->stride, p + (size_t)i * v->elem_len,
               (size_t)k);
        n -= k;
    }
}

static void vec_release(const vec_t *v, void *p)
{
    if (p != v->buf)
        free(p);
}

static int vec_block(const char *call, int is_send, int node, int tag, vec_t v)
{
    int bytes = vec_check(call, &v);
    void *p =
        is_send ? vec_pack(call, &v, bytes) : vec_landing(call, &v, bytes);

    cm5c_msg_block(call, is_send, node, tag, p, bytes);
    if (!is_send)
        vec_scatter(&v, p, CMMD_bytes_received());
    vec_release(&v, p);
    return TRUE;
}

int CMMD_send_v(int node, int tag, void *buffer, int elem_len, int elem_count,
                int stride)
{
    CM5C_HOLD();
    return vec_block("CMMD_send_v", 1, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride});
}

int CMMD_send_block_v(int node, int tag, void *buffer, int elem_len,
                      int elem_count, int stride)
{
    CM5C_HOLD();
    return vec_block("CMMD_send_block_v", 1, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride});
}

int CMMD_receive_v(int node, int tag, void *buffer, int elem_len,
                   int elem_count, int stride)
{
    CM5C_HOLD();
    return vec_block("CMMD_receive_v", 0, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride});
}

int CMMD_receive_block_v(int node, int tag, void *buffer, int elem_len,
                         int elem_count, int stride)
{
    CM5C_HOLD();
    return vec_block("CMMD_receive_block_v", 0, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride});
}

int CMMD_send_noblock_v(int node, int tag, void *buffer, int elem_len,
                        int elem_count, int stride)
{
    CM5C_HOLD();
    static const char call[] = "CMMD_send_noblock_v";
    vec_t v = {buffer, elem_len, elem_count, stride};
    int bytes = vec_check(call, &v);
    void *p = vec_pack(call, &v, bytes);

    cm5c_msg_noblock(call, node, tag, p, bytes); /* copies p */
    vec_release(&v, p);
    return 0;
}

/* An asynchronous vector: the private buffer lives until the message is
 * done; then a receive is laid out and the caller's handler runs. */
typedef struct {
    vec_t v;
    void *p;
    int is_send;
    CMMD_mcb_handler_t handler;
    void *arg;
} vec_async_t;

static void vec_async_done(CMMD_mcb *mcb, void *arg)
{
    vec_async_t *a = arg;

    if (!a->is_send)
        vec_scatter(&a->v, a->p, CMMD_mcb_bytes(*mcb));
    vec_release(&a->v, a->p);
    if (a->handler)
        a->handler(mcb, a->arg);
    free(a);
}

static CMMD_mcb vec_async(const char *call, int is_send, int node, int tag,
                          vec_t v, CMMD_mcb_handler_t handler, void *arg)
{
    int bytes = vec_check(call, &v);
    vec_async_t *a = vec_alloc(call, (int)sizeof(*a));
    CMMD_mcb mcb;

    a->v = v;
    a->is_send = is_send;
    a->handler = handler;
    a->arg = arg;
    a->p = is_send ? vec_pack(call, &v, bytes) : vec_landing(call, &v, bytes);
    mcb = cm5c_msg_async(call, is_send, node, tag, a->p, bytes, vec_async_done,
                         a);
    if (mcb == CMMD_ERRVAL) { /* every MCB in use: nothing started */
        vec_release(&v, a->p);
        free(a);
    }
    return mcb;
}

CMMD_mcb CMMD_send_async_v(int node, int tag, void *buffer, int elem_len,
                           int elem_count, int stride,
                           CMMD_mcb_handler_t handler, void *handler_arg)
{
    CM5C_HOLD();
    return vec_async("CMMD_send_async_v", 1, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride}, handler,
                     handler_arg);
}

CMMD_mcb CMMD_receive_async_v(int node, int tag, void *buffer, int elem_len,
                              int elem_count, int stride,
                              CMMD_mcb_handler_t handler, void *handler_arg)
{
    CM5C_HOLD();
    return vec_async("CMMD_receive_async_v", 0, node, tag,
                     (vec_t){buffer, elem_len, elem_count, stride}, handler,
                     handler_arg);
}

int CMMD_send_and_receive_v(int source, int source_tag, void *rbuf,
                            int r_elem_len, int r_elem_count, int r_stride,
                            int dest, int dest_tag, void *sbuf, int s_elem_len,
                            int s_elem_count, int s_stride)
{
    CM5C_HOLD();
    static const char call[] = "CMMD_send_and_receive_v";
    vec_t r = {rbuf, r_elem_len, r_elem_count, r_stride};
    vec_t s = {sbuf, s_elem_len, s_elem_count, s_stride};
    int rbytes = vec_check(call, &r), sbytes = vec_check(call, &s);
    void *rp = vec_landing(call, &r, rbytes);
    void *sp = vec_pack(call, &s, sbytes);

    cm5c_msg_send_and_receive(call, source, source_tag, rp, rbytes, dest,
                              dest_tag, sp, sbytes);
    vec_scatter(&r, rp, CMMD_bytes_received());
    vec_release(&r, rp);
    vec_release(&s, sp);
    return TRUE;
}
