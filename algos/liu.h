/*
 * Shared by the liu2002 algorithms (run_a1.c, run_a4.c): their message
 * tags.  Each call of an algorithm takes the next sequence number (every
 * node makes the same calls), so a fast node's next call never matches a
 * slow node's current one.
 */
#ifndef CM5S_LIU_H
#define CM5S_LIU_H

#include "sched_internal.h"

/* liu2002's range of CMMD tags: CM5S_TAG_BASE + 0x0a000000 + alg (1, 3,
 * 4) << 20 + sequence (16 bits) << 2 + stage (0..3). */
#define CM5S_LIU_TAG (CM5S_TAG_BASE + 0x0a000000)

static inline int cm5s_liu_tag(int alg, unsigned seq, int stage)
{
    return CM5S_LIU_TAG + (alg << 20) + (int)((seq & 0xffffu) << 2) + stage;
}

#endif /* CM5S_LIU_H */
