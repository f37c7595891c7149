/*
 * <cm/cmmd/mp.h>: CMMD point-to-point extras: MCB accessors, strided (_v)
 * messages, channels, message matching functions. Part of <cm/cmmd.h> (which
 * includes it); it may also be included alone. Prototype convention: see
 * "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_MP_H
#define _CM_CMMD_MP_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- MCB accessors beyond <cm/cmmd.h>'s -------------------------------- */
/* The buffer length given to the send or receive (a probe: the message's
 * bytes). */
CMMD_API int CMMD_mcb_len(CMMD_mcb mcb);
/* The sending node and the receiving node of the message (a receive from
 * CMMD_ANY_NODE: the sender once matched, -1 before). */
CMMD_API int CMMD_mcb_source(CMMD_mcb mcb);
CMMD_API int CMMD_mcb_dest(CMMD_mcb mcb);

/* ---- Strided (_v) messages -------------------------------------------- *
 * The calls of <cm/cmmd.h> with the buffer's length replaced by a vector:
 * elem_count elements of elem_len bytes, element i at buffer + i * stride
 * (stride in bytes, at least elem_len).  The message itself is the
 * elements end to end, elem_len * elem_count bytes: a _v send matches a
 * plain receive and a plain send matches a _v receive.  A _v receive
 * takes a message of at most elem_len * elem_count bytes and lays its
 * bytes out element after element; the bytes between elements (and past
 * a shorter message) are not touched.  The parameter order is cm5fab's
 * reading of the real header (see CMMD_send_v(3)). */
CMMD_API int CMMD_send_v(int node, int tag, void *buffer, int elem_len,
                         int elem_count, int stride);
CMMD_API int CMMD_send_block_v(int node, int tag, void *buffer, int elem_len,
                               int elem_count, int stride);
CMMD_API int CMMD_receive_v(int node, int tag, void *buffer, int elem_len,
                            int elem_count, int stride);
CMMD_API int CMMD_receive_block_v(int node, int tag, void *buffer, int elem_len,
                                  int elem_count, int stride);
/* Buffered: the elements are copied; returns 0. */
CMMD_API int CMMD_send_noblock_v(int node, int tag, void *buffer, int elem_len,
                                 int elem_count, int stride);
/* An MCB (CMMD_ERRVAL when every MCB is in use), as CMMD_send_async; a
 * receive's elements are in place when the MCB is done and before
 * handler(mcb, handler_arg) runs. */
CMMD_API CMMD_mcb CMMD_send_async_v(int node, int tag, void *buffer,
                                    int elem_len, int elem_count, int stride,
                                    CMMD_mcb_handler_t handler,
                                    void *handler_arg);
CMMD_API CMMD_mcb CMMD_receive_async_v(int node, int tag, void *buffer,
                                       int elem_len, int elem_count, int stride,
                                       CMMD_mcb_handler_t handler,
                                       void *handler_arg);
/* CMMD_send_and_receive with a vector on each side: receive arguments
 * first, then send arguments.  Returns TRUE. */
CMMD_API int CMMD_send_and_receive_v(int source, int source_tag, void *rbuf,
                                     int r_elem_len, int r_elem_count,
                                     int r_stride, int dest, int dest_tag,
                                     void *sbuf, int s_elem_len,
                                     int s_elem_count, int s_stride);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_MP_H */
