/*
 * The event trace (CM5_TRACE, cm5_trace_start): every node records its
 * active messages, CMMD messages and scopies into a buffer allocated
 * once; at exit each node writes its part and node 0 merges the parts
 * into one Chrome trace-event JSON file (am_trace.c).  One call per
 * event site; with tracing off each is a test of one flag.
 */
#ifndef CM5_AM_TRACE_H
#define CM5_AM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"

extern int cm5i_trace_on;

/* Start recording if CM5_TRACE names a file (ctx_start). */
cm5_status_t cm5i_trace_setup(void);
/* Write this node's part (cm5_finalize, before the exit barrier). */
void cm5i_trace_flush(void);
/* Node 0 merges the parts (after the exit barrier); free the buffer. */
void cm5i_trace_teardown(void);

void cm5i_trace_am_send_(int ch, int node, uint32_t tseq);
void cm5i_trace_am_begin_(int ch, int src, uint32_t obj, uint32_t off,
                          uint32_t tseq);
/* The number of the next user active message this node sends (its
 * packet's tseq; the trace draws an arrow from its send to its handler). */
uint32_t cm5i_trace_seq(void);
void cm5i_trace_am_end_(int ch);
void cm5i_trace_msg_(int end, int is_send, int node, int tag, size_t bytes,
                     uint32_t slot, uint32_t gen);

/* A user active message numbered tseq left on channel ch for node. */
static inline void cm5i_trace_am_send(int ch, int node, uint32_t tseq)
{
    if (__builtin_expect(cm5i_trace_on, 0))
        cm5i_trace_am_send_(ch, node, tseq);
}

/* A user handler (obj:off) of src's message tseq starts and ends on
 * channel ch. */
static inline void cm5i_trace_am_begin(int ch, int src, uint32_t obj,
                                       uint32_t off, uint32_t tseq)
{
    if (__builtin_expect(cm5i_trace_on, 0))
        cm5i_trace_am_begin_(ch, src, obj, off, tseq);
}

static inline void cm5i_trace_am_end(int ch)
{
    if (__builtin_expect(cm5i_trace_on, 0))
        cm5i_trace_am_end_(ch);
}

/* A CMMD message (tag >= 0) or scopy (tag -1) is posted (end 0) or done
 * (end 1); the runtime's own messages (other tags) are not recorded. */
static inline void cm5i_trace_msg(int end, int is_send, int node, int tag,
                                  size_t bytes, uint32_t slot, uint32_t gen)
{
    if (__builtin_expect(cm5i_trace_on, 0) && tag >= -1)
        cm5i_trace_msg_(end, is_send, node, tag, bytes, slot, gen);
}

#endif
