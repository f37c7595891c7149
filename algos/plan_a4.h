/*
 * liu2002 A4 (four-stage irregular all-to-all): the pure part.  Logical
 * layout with the rearrangement rule, pseudo-node mapping, the C- and the
 * revised R-Schedule (with the shift-based stall rule of [AMB-12]) and the
 * bucket arithmetic of R-/C-Distribute and C-/R-Collect in segment form
 * (ALGORITHMS.md 3.4).  No communication: unit-tested on its own.
 */
#ifndef CM5S_PLAN_A4_H
#define CM5S_PLAN_A4_H

#include <stdint.h>

typedef struct {
    int P;          /* nodes */
    int C, R, r;    /* columns, rows, nodes of the incomplete row (0: none) */
    int rearranged; /* C = floor(sqrt P) was needed (r > R - 1 otherwise) */
} cm5s_a4_layout_t;

/* One step of a node's schedule in one stage: the node it sends to and
 * the node it receives from (ranks; -1: none; itself: the self copy). */
typedef struct {
    int send, recv;
} cm5s_a4_step_t;

/* C = ceil(sqrt P), R = ceil(P / C), r = P mod C; C = floor(sqrt P) when
 * r > R - 1 (3.4.1).  P >= 1. */
void cm5s_a4_layout(int P, cm5s_a4_layout_t *L);
/* ceil(sqrt(n)) and floor(sqrt(n)) for n >= 0. */
int cm5s_isqrt_floor(int n);
int cm5s_isqrt_ceil(int n);
/* Nodes in column col: R, or R - 1 for an incomplete column. */
int cm5s_a4_colsize(const cm5s_a4_layout_t *L, int col);
/* Whether column col is incomplete (r > 0 and col >= r). */
int cm5s_a4_col_incomplete(const cm5s_a4_layout_t *L, int col);
/* The real node that receives what sender sends to column col of its row:
 * (row, col), or (col of sender, col) for an incomplete-row sender and a
 * pseudo-node column (3.4.2). */
int cm5s_a4_row_target(const cm5s_a4_layout_t *L, int sender, int col);

/* Row all-to-all (Stages I, III) of node n: the revised R-Schedule
 * (rows m < r stall by the shift rule and take C + 1 steps, other rows
 * C).  steps needs room for C + 1 entries; returns the number of steps. */
int cm5s_a4_row_sched(const cm5s_a4_layout_t *L, int n, cm5s_a4_step_t *steps);
/* Column all-to-all (Stages II, IV) of node n: the C-Schedule, N steps
 * over the N nodes of its column, the self copy last.  steps needs room
 * for R entries; returns N. */
int cm5s_a4_col_sched(const cm5s_a4_layout_t *L, int n, cm5s_a4_step_t *steps);
/* Plain shift schedule over q nodes (A1, A3 and the C-Schedule): step
 * s = 1..q sends to (pos + s) mod q and receives from (pos - s) mod q;
 * step q is the self copy.  Positions, not ranks. */
void cm5s_shift_step(int q, int pos, int s, int *to, int *from);

/* The bucket that holds a stage's message to node to: its column in a
 * row stage (I, III; pseudo-columns included, 3.4.2), its row in a
 * column stage (II, IV). */
int cm5s_a4_send_bucket(const cm5s_a4_layout_t *L, int row, int to);

/* One action of a node in a stage of a4-n1: fill the bucket of step step
 * (fill = 1) or start its send (fill = 0; the self copy for itself). */
typedef struct {
    int fill, step;
} cm5s_a4_op_t;
/* a4-n1 (3.4.7, one send buffer): the order of one stage's actions.  The
 * bucket of the next sending step is filled while the send of the step
 * before is in flight: FILL k0, SEND k0, FILL k1, SEND k1, ... over the
 * steps k that send (steps[k].send >= 0) in schedule order.  ops needs
 * room for 2n entries; returns the number written. */
int cm5s_a4_n1_order(const cm5s_a4_step_t *steps, int n, cm5s_a4_op_t *ops);

/* Distribution counter start for destination j at node n: j mod mod, or
 * (n + j) mod mod with a4_rotate_counters. */
uint64_t cm5s_a4_counter_start(int n, int j, int mod, int rotate);
/* R-Distribute of one pair of M elements whose counter stands at x0:
 * cnt[b] (b < C) elements go to bucket b (element e to bucket
 * ((x0 + e) mod P) mod C).  The caller advances the counter by M. */
void cm5s_a4_rdist(const cm5s_a4_layout_t *L, uint64_t x0, uint64_t M,
                   uint64_t *cnt);
/* C-Distribute over a column of N nodes: element e to bucket
 * (x0 + e) mod N; cnt has N entries. */
void cm5s_a4_cdist(int N, uint64_t x0, uint64_t M, uint64_t *cnt);
/* C-Collect (Stage III) bucket of an element for dst: its column. */
int cm5s_a4_ccollect_bucket(const cm5s_a4_layout_t *L, int dst);
/* R-Collect (Stage IV) bucket of an element for dst: its row. */
int cm5s_a4_rcollect_bucket(const cm5s_a4_layout_t *L, int dst);

#endif /* CM5S_PLAN_A4_H */
