/*
 * The s-to-p broadcasting algorithms of hambrusch1995/1996
 * (ALGORITHMS.md section 4), the pure part: the source distributions of
 * section 5.8 (also the ideal ones Repos and Part aim at) and, for every
 * algorithm, the whole plan: for each iteration, which node sends which
 * node which set of source messages (a combined message: the sources'
 * messages concatenated in increasing source rank).  The planner
 * simulates every node's holdings, so every node computes the same plan
 * from (p, r, c, sources, lengths) with no communication; run_bcast.c
 * executes the messages of one node.
 *
 * Mesh: r x c, full (r * c = p), row-major ranks.  Linear order for
 * br_lin: snake (row x left to right when x is even, right to left when
 * odd) or row-major.  p need not be a power of two: br_lin halves a group
 * of n into ceil(n/2) and floor(n/2) ([AMB-15] for odd n); xor runs the
 * 2^ceil(log2 p) - 1 steps and skips partners >= p ([AMB-2]).
 */
#ifndef CM5S_PLAN_BCAST_H
#define CM5S_PLAN_BCAST_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/sched.h>

/* The distributions of ALGORITHMS.md 5.8, s sources on an r x c mesh. */
typedef enum {
    CM5S_BC_ROW = 0,    /* ceil(s/c) rows at floor(m r / k) (a = 1: the
                           rows hold floor or ceil of s/k each) */
    CM5S_BC_COL,        /* the same with columns */
    CM5S_BC_DIAG_R,     /* ceil(s/r) wrapped right diagonals */
    CM5S_BC_DIAG_L,     /* ceil(s/r) wrapped left diagonals */
    CM5S_BC_EQUAL,      /* ranks floor(m p / s) (a > 0: 0, a, 2a, ...) */
    CM5S_BC_CROSS,      /* ceil(s/2) as row, the rest as col ([AMB-26]);
                           a > 0: a rows and a columns, full (002) */
    CM5S_BC_BLOCK,      /* ceil(sqrt s) square from (0,0), row by row
                           (a, b > 0: the a x b block, 002) */
    CM5S_BC_BAND,       /* ceil(sqrt(s/r)) bands of wrapped diagonals
                           ([AMB-27]) */
    CM5S_BC_ROW_PREFIX, /* rows 0..ceil(s/c)-1 filled (Repos' ideal for
                           br_xy_source) */
    CM5S_BC_LIN_PREFIX, /* the first s nodes of the snake order */
    CM5S_BC_NDISTS
} cm5s_bc_dist_t;

/* Mark the sources of distribution d in is_src[0..r*c) (zeroed first);
 * a, b: the 002-style parameters above (0: 004's form by s).  Returns
 * how many it marked (s, or the 002 form's count), or -1 when s > r * c
 * or a parameter does not fit the mesh. */
int cm5s_bc_dist(cm5s_bc_dist_t d, int r, int c, int s, int a, int b,
                 unsigned char *is_src);

/* Stages of an algorithm, in stats.stage[]. */
enum { CM5S_BC_ST_MOVE = 0, CM5S_BC_ST_BCAST, CM5S_BC_ST_EXCH, CM5S_BC_NST };

/* One message of the plan. */
typedef struct {
    int iter, stage; /* iteration (from 0) and stage */
    int from, to;    /* ranks */
    int nsrc;        /* sources it carries */
    size_t first;    /* their indices in plan set[first .. first + nsrc),
                        increasing (index k = the k-th source) */
    size_t len;      /* the sum of their lengths */
} cm5s_bc_msg_t;

typedef struct {
    cm5_sched_bcast_t alg; /* never AUTO */
    int p, r, c, s;
    int *src;                     /* the s source ranks, increasing */
    size_t *len;                  /* their lengths */
    int niters;                   /* iterations of the schedule */
    int stage_iters[CM5S_BC_NST]; /* iterations per stage */
    int nstages;                  /* stages the algorithm has */
    int rows_first;     /* br_xy: rows first (the part_xy halves: G1) */
    int rowmajor;       /* br_lin's order is row-major, not snake */
    int ideal_prefix;   /* br_lin's ideal: the linear prefix */
    int *home;          /* [k]: where source k is after repositioning
                           (its own rank when it does not move) */
    cm5s_bc_msg_t *msg; /* in iteration order */
    int nmsg, msgcap;
    int *set; /* the carried source indices, pooled */
    size_t nset, setcap;
    /* simulation */
    int words;             /* 64-bit words of one holdings set */
    uint64_t *hold, *snap; /* p sets: now, and at the iteration start */
} cm5s_bc_plan_t;

/* Plan alg (not AUTO) for p nodes on an r x c mesh (r * c = p) with the
 * given counts (p of them: source = count > 0; the lengths are counts).
 * CM5_ERR_INVALID with a reason in err on bad arguments, CM5_ERR_NOMEM.
 * cm5s_bc_plan_free() frees it. */
cm5_status_t cm5s_bc_plan(cm5_sched_bcast_t alg, int p, int r, int c,
                          const size_t *counts, const cm5_sched_bcast_opts_t *o,
                          cm5s_bc_plan_t *plan, char *err, size_t errlen);
void cm5s_bc_plan_free(cm5s_bc_plan_t *plan);

/* One node's messages of a plan, placed in its receive buffer: the
 * runners' common part (run_bcast.c on CMMD, bench/mpi_bcast_port.c on
 * MPI).  A combined message whose sources lie back to back in the
 * receive buffer goes straight from or into it; the others (and a
 * receive that carries this node's own message back, whose bytes a send
 * of ours may be reading) go through one staging arena. */
typedef struct {
    const cm5s_bc_msg_t *m;
    char *buf; /* its bytes: in the arena (staged) or in the buffer */
    int staged;
    int len; /* bytes */
} cm5s_bc_op_t;

typedef struct {
    const cm5s_bc_plan_t *pl;
    int me;
    size_t esz;          /* bytes per element */
    char *rbuf;          /* source k's elements at displ[src[k]] */
    const size_t *displ; /* per rank, in elements */
    cm5s_bc_op_t *op;    /* this node's messages, in plan order */
    int nop;
    char *arena;
} cm5s_bc_layout_t;

/* Place node me's messages of pl (the caller has checked that every
 * message's bytes fit an int).  CM5_OK, or CM5_ERR_NO_MEMORY with
 * nothing held; cm5s_bc_layout_free() frees it. */
cm5_status_t cm5s_bc_layout(cm5s_bc_layout_t *l, const cm5s_bc_plan_t *pl,
                            int me, char *rbuf, const size_t *displ,
                            size_t esz);
void cm5s_bc_layout_free(cm5s_bc_layout_t *l);

/* Copy a staged message's sources from the receive buffer into it
 * (gather, before sending) or back (after receiving; this node's own
 * message is skipped).  Nothing for a message not staged. */
void cm5s_bc_stage(const cm5s_bc_layout_t *l, const cm5s_bc_op_t *o,
                   int gather);

/* ceil(log2 n), 0 for n <= 1. */
int cm5s_bc_log2(int n);

#endif /* CM5S_PLAN_BCAST_H */
