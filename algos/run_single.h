/*
 * Helpers shared by the wang1993 single-call algorithms (run_ac.c,
 * run_lp.c, run_rsn.c): message tags and CMMD lengths.
 */
#ifndef CM5S_RUN_SINGLE_H
#define CM5S_RUN_SINGLE_H

#include <limits.h>

#include <cm/cmmd.h>

#include "sched_internal.h"

/* Tag of step (phase) `step` of call number `seq` of algorithm `alg`:
 * each algorithm owns CM5S_TAG_BASE + alg * 2^24 .. + 2^24 - 1, the call
 * number (mod 16) keeps a fast node's next call apart from this one, the
 * step keeps phases apart.  Between one sender and one receiver messages
 * of one tag arrive in order, so the wrap-arounds are harmless. */
static inline int single_tag(cm5_sched_alg_t alg, unsigned seq, unsigned step)
{
    return CM5S_TAG_BASE + ((int)alg << 24) + (int)((seq & 0xfu) << 20) +
           (int)(step & 0xfffffu);
}

/* Bytes of n elements as a CMMD length (an int), or stop the job. */
static inline int single_len(const cm5s_xfer_t *x, size_t n, int node,
                             const char *dir)
{
    if (n > (size_t)INT_MAX / x->esz)
        cm5s_fatal(x,
                   "the message of %zu elements of %zu bytes %s node %d "
                   "is longer than a CMMD message (%d bytes)",
                   n, x->esz, dir, node, INT_MAX);
    return (int)(n * x->esz);
}

/* A finished receive brought exactly len bytes, or stop the job. */
static inline void single_check(const cm5s_xfer_t *x, int got, int len,
                                int node)
{
    if (got != len)
        cm5s_fatal(x,
                   "node %d received %d bytes from node %d, expected %d "
                   "(do the nodes agree on the counts?)",
                   x->me, got, node, len);
}

#endif /* CM5S_RUN_SINGLE_H */
