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
    /* The phases' work, in steps of their inner loops: steps (a row
     * visited, a destination tried, a node's entry cleared or ordered)
     * and hsteps (RS_NH: a heap entry pushed or popped, a heap level
     * moved).  Building CCOM or the heaps is not counted (on the CM-5 it
     * was too small to see: doc/model.md).  What the planning costs in
     * virtual time: cm5s_rsn_plan_cost. */
    uint64_t steps, hsteps;
} cm5s_rsn_plan_t;

/* Virtual time (cm5_compute): what a step and a heap step of the planner
 * cost a CM-5 node, fitted on wang1993 Table 4's RS_N comp at d = 16 and
 * Table 5's RS_NH comp at d = 16 (doc/model.md). */
#define CM5S_PLAN_STEP_S 2.07e-6
#define CM5S_PLAN_HSTEP_S 6.08e-6
/* The planning's cost on a CM-5 node, in seconds. */
static inline double cm5s_rsn_plan_cost(const cm5s_rsn_plan_t *plan)
{
    return (double)plan->steps * CM5S_PLAN_STEP_S +
           (double)plan->hsteps * CM5S_PLAN_HSTEP_S;
}

/* Plan com (p x p elements, row i = what i sends; the diagonal is
 * ignored) with o->seed and o->rsn_row_order; heaps = 0 gives RS_N (each
 * nonzero entry whole, in one phase), heaps = 1 RS_NH (largest first,
 * pieces cut by o->rsnh_cutoff / o->rsnh_quantile).  CM5_ERR_NO_MEMORY or
 * CM5_ERR_INVALID (p < 1) leave *out empty. */
cm5_status_t cm5s_plan_rsn(int p, const size_t *com, const cm5_sched_opts_t *o,
                           int heaps, cm5s_rsn_plan_t *out);
void cm5s_rsn_plan_free(cm5s_rsn_plan_t *plan);

#endif /* CM5S_PLAN_RSN_H */
