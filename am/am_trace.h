/*
 * The event trace (CM5_TRACE, cm5_trace_start): every node records its
 * active messages, CMMD messages and scopies into a buffer allocated
 * once; at exit each node writes its part and node 0 merges the parts
 * into one Chrome trace-event JSON file (am_trace.c).  It records what
 * it observes of the core (am_event.h): user active messages sent and
 * handled, CMMD messages and scopies posted and done.
 */
#ifndef CM5_AM_TRACE_H
#define CM5_AM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"

/* Start recording if CM5_TRACE names a file (ctx_start). */
cm5_status_t cm5i_trace_setup(void);
/* Write this node's part (cm5_finalize, before the exit barrier). */
void cm5i_trace_flush(void);
/* Node 0 merges the parts (after the exit barrier); free the buffer. */
void cm5i_trace_teardown(void);

#endif
