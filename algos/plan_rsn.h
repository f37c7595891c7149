/*
 * RS_N and RS_NH schedules (wang1993 section 3.3, ALGORITHMS.md 1.3-1.4):
 * cover the communication matrix with partial permutations, computed the
 * same way on every node from the shared seed.  Pure: no communication.
 */
#ifndef CM5S_PLAN_RSN_H
#define CM5S_PLAN_RSN_H

#include <stddef.h>

#include <cm5/sched.h>

/* A schedule of nphases phases over p nodes.  Entry [q * p + i]: */
typedef struct {
    int p, nphases;
    int *psend;   /* where node i sends in phase q, or -1 */
    int *precv;   /* whom node i receives from in phase q, or -1 */
    size_t *size; /* elements node i sends in phase q (0 if none) */
} cm5s_rsn_plan_t;

/* Plan com (p x p elements, row i = what i sends; the diagonal is
 * ignored) with o->seed and o->rsn_row_order; heaps = 0 gives RS_N (each
 * nonzero entry whole, in one phase), heaps = 1 RS_NH (largest first,
 * pieces cut by o->rsnh_cutoff / o->rsnh_quantile).  CM5_ERR_NO_MEMORY or
 * CM5_ERR_INVALID (p < 1) leave *out empty. */
cm5_status_t cm5s_plan_rsn(int p, const size_t *com, const cm5_sched_opts_t *o,
                           int heaps, cm5s_rsn_plan_t *out);
void cm5s_rsn_plan_free(cm5s_rsn_plan_t *plan);

#endif /* CM5S_PLAN_RSN_H */
