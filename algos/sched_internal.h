/*
 * Internals shared by the scheduling algorithms (algos/).  Names are
 * cm5s_*; nothing here is exported.
 *
 * The dispatcher (sched.c) checks the arguments, obtains recvcounts,
 * fills in packed displacements, does the self copy, turns interrupts on
 * when asked and times the call; then it calls the algorithm's run
 * function with a cm5s_xfer_t in which the self entries are zero, so an
 * algorithm only ever moves data between different nodes.
 *
 * Layout (STYLE.md): plan_*.c are pure (matrix -> schedule, no
 * communication, unit-tested); run_*.c execute on CMMD/CMAML.
 */
#ifndef CM5S_SCHED_INTERNAL_H
#define CM5S_SCHED_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/sched.h>

#include "common.h"

typedef struct {
    int p, me;                 /* partition size, this node */
    const cm5_sched_opts_t *o; /* never NULL */
    size_t esz;                /* bytes per element */
    const char *sbuf;          /* send buffer */
    const size_t *scount;      /* elements to each node; [me] == 0 */
    const size_t *sdispl;      /* element displacements (never NULL) */
    char *rbuf;                /* receive buffer */
    const size_t *rcount;      /* elements from each node; [me] == 0 */
    const size_t *rdispl;      /* element displacements (never NULL) */
    size_t rfirst;             /* A4 with a4_unordered: elements at the
                                  start of rbuf already taken (the self
                                  copy); the others follow */
    cm5_sched_stats_t *st;     /* never NULL; zeroed by the dispatcher */
    const char *call;          /* "cm5_sched_alltoallv(lp)", for errors */
    int lp_scopy;              /* LP with lp_barrier: the data by
                                  CMAML_scopy (a two-stage stage) */
} cm5s_xfer_t;

/* An algorithm: move every scount/rcount entry, fill st (phases, msgs,
 * bytes, stages, sched_s: the time spent computing the schedule). */
typedef void (*cm5s_run_func_t)(cm5s_xfer_t *x);

void cm5s_run_ac(cm5s_xfer_t *x);
void cm5s_run_lp(cm5s_xfer_t *x);
/* Before a call that runs LP by scopy, ahead of its first collective:
 * where READYs that come early wait (run_lp.c). */
void cm5s_lp_scopy_prepare(int p);
void cm5s_run_rsn(cm5s_xfer_t *x);
void cm5s_run_rsnh(cm5s_xfer_t *x);
void cm5s_run_drsn(cm5s_xfer_t *x);
void cm5s_run_drsn_plus(cm5s_xfer_t *x);
void cm5s_run_two_stage(cm5s_xfer_t *x);
void cm5s_run_a1(cm5s_xfer_t *x);
void cm5s_run_a2(cm5s_xfer_t *x);
void cm5s_run_a3(cm5s_xfer_t *x);
void cm5s_run_a4(cm5s_xfer_t *x);

/* Stop the job: "cm5[node] error <x->call>: <message>". */
#define cm5s_fatal(x, ...) cm5s_die((x)->call, __VA_ARGS__)

/* Generate_Recv (wang1993 Fig. 1) and the concatenate method; counts
 * include the self entry. */
void cm5s_recv_am(int p, int me, const size_t *sendcounts, size_t *recvcounts);
void cm5s_recv_concat(int p, int me, const size_t *sendcounts,
                      size_t *recvcounts);

/* Call tags used by the algorithms on CMMD (CMMD tags are >= 0; each
 * algorithm uses its own range so that stray messages are caught):
 *   CM5S_TAG_BASE + (alg << 24) + ...   alg = cm5_sched_alg_t of the
 *                                       algorithm that sends (AC, LP,
 *                                       RS_N, RS_NH; two-stage and A2 send
 *                                       through nested LP calls)
 *   CM5S_TAG_BASE + (CM5_SCHED_A4 << 24) + ...   A1, A3 and A4 (liu.h)
 * DRS_N and DRS_N+ use active messages and rports, no tags. */
#define CM5S_TAG_BASE 0x5c000000

#endif /* CM5S_SCHED_INTERNAL_H */
