/*
 * The CM-5 virtual-time model (CM5_MODEL, doc/model.md): its arithmetic,
 * pure functions on explicit node clocks so that the unit tests
 * (tests/unit/am/test_model.c) use them without a runtime.  Its
 * parameters and their parsing are boot/model_spec.h's (cm5run checks a
 * --model value with them before it starts a node); the runtime's side,
 * with the node's own clock, is am_model.c (am_model.h).
 *
 * Times are integer nanoseconds, so a model's arithmetic is exact and the
 * same on every machine.
 */
#ifndef CM5_AM_MODEL_CALC_H
#define CM5_AM_MODEL_CALC_H

#include <stddef.h>
#include <stdint.h>

#include "boot/model_spec.h" /* cm5i_model_params_t */

/* One node's virtual state. */
typedef struct {
    uint64_t clock;     /* the node's virtual time */
    uint64_t link_free; /* its input link is busy until then */
} cm5i_vnode_t;

/* A message's receipt (CMMD message, scopy) at a node's input: its
 * packets reach the input from s0 = d0 + L on, one per os of its sender;
 * the input (link and receiving processor together) takes one per q =
 * max(g, link time, orr), then the message's software overhead extra.
 * A node's receipts form a schedule in the order of s0 (then source), not
 * of their arrival in real time, so that their virtual times do not
 * depend on the host's interleaving (doc/model.md). */
typedef struct {
    uint64_t d0, s0, npk, os, q, extra; /* d0: its stamp (the key) */
    uint64_t start;                     /* its first packet leaves the sender */
    int src;
    uint64_t end;  /* computed: the node has the message */
    uint64_t left; /* computed: its last packet left the sender (at the
                    * sender's pace: not held back) */
    int seen;      /* the program saw it complete (am_model.c) */
} cm5i_rxjob_t;

/* Control-network operations, for their cost. */
typedef enum {
    CM5I_CN_BARRIER,
    CM5I_CN_REDUCE,    /* integer reductions and scans: n = elements */
    CM5I_CN_REDUCE_FP, /* floating-point ones */
    CM5I_CN_BCAST      /* broadcast, concatenation: n = bytes */
} cm5i_cn_kind_t;

/* Fat-tree distance between nodes a and b: 0 the same node, 1 the same
 * cluster of 4, 2 of 16, 3 beyond. */
int cm5i_model_level(int a, int b);
/* 16-byte packets that carry len bytes (at least one). */
uint64_t cm5i_model_packets(size_t len);

/* A node sends npk packets: it pays npk * os; returns the time the first
 * packet leaves (the stamp it carries). */
uint64_t cm5i_model_send(const cm5i_model_params_t *p, cm5i_vnode_t *n,
                         uint64_t npk);
/* Node r receives npk packets whose first left at d0 from level lv away,
 * plus a software overhead extra: the link serializes them behind what
 * it carries already, the node pays npk * orr.  Returns the time the
 * last packet left its sender (held back by the network when the link
 * was busy): a blocking sender's clock waits for it. */
uint64_t cm5i_model_recv(const cm5i_model_params_t *p, cm5i_vnode_t *r, int lv,
                         uint64_t d0, uint64_t npk, int64_t extra);
/* A CMMD message's rendezvous: its RTS left at d0, the receive was
 * posted at post; the receiver answers (or), its CTS travels (L), the
 * sender takes it (or).  Returns when the first data packet leaves. */
uint64_t cm5i_model_rendezvous(const cm5i_model_params_t *p, uint64_t d0,
                               uint64_t post);
/* Fill a receipt of npk packets from level lv, stamped d0 (its key),
 * whose first packet leaves at start (>= d0). */
void cm5i_model_rx_job(const cm5i_model_params_t *p, int lv, uint64_t d0,
                       uint64_t start, uint64_t npk, int64_t extra, int src,
                       cm5i_rxjob_t *j);
/* Serve j at an input free from t on: fills j->end, j->left; returns
 * the time the input is free again (j->end). */
uint64_t cm5i_model_rx_serve(cm5i_rxjob_t *j, uint64_t t);
/* Insert j into the schedule q[0..n) (room for one more) whose input is
 * free from base on, and serve it and every later job again; returns
 * j's index. */
size_t cm5i_model_rx_insert(cm5i_rxjob_t *q, size_t n, uint64_t base,
                            const cm5i_rxjob_t *j);
/* The fat tree's shared links (synchronised, cm5:lk=1; doc/model.md,
 * "Shared links"): the up- and down-link of every cluster of 4 nodes (when
 * the job has several) and of every group of 16 (when it has several).  A
 * packet from a to b crosses a's cluster's up-link and b's cluster's
 * down-link when they are in different clusters, and their groups' too
 * when in different groups.  Each link has a calendar of buckets of B ns,
 * each carrying at most cap packets (B times its capacity: the per-node
 * figure times the nodes below it); a packet wanted at t passes at t if
 * every link on its path has room in t's bucket, else at the start of the
 * first later bucket where all have.  The receivers place their packets in
 * one order, the same on every run (cm5i_msync_link_turn). */
typedef struct {
    uint32_t *cal; /* [nlinks * R * 2]: a bucket's number + 1 (0: none
                    * yet) and its packets, link after link */
    uint32_t nlinks, R, nclusters, ngroups;
    uint32_t cap[2]; /* packets a bucket: a cluster's link, a group's */
    uint64_t B;      /* a bucket (ns) */
    uint64_t lo;     /* the decision's clock: nothing is placed before it */
    int overflow;    /* a packet fell past the calendar (lo + R * B) */
} cm5i_links_t;
/* Set lk over the calendar mem (zeroed, R buckets a link) of an n-node
 * job from p's lkb and lkp; 0, or -1 when a bucket carries no packet. */
int cm5i_links_init(cm5i_links_t *lk, uint32_t *mem, int n, uint32_t R,
                    const cm5i_model_params_t *p);
/* The links a packet from a to b crosses (path[4]): their number. */
int cm5i_links_path(const cm5i_links_t *lk, int a, int b, uint32_t *path);
/* Place a packet wanted at t on the np links of path: when it passes
 * (t, or the start of a later bucket); a place past the calendar sets
 * lk->overflow and returns t. */
uint64_t cm5i_links_place(cm5i_links_t *lk, const uint32_t *path, int np,
                          uint64_t t);

/* Synchronised virtual time (doc/model.md, "Held senders"): node r's
 * processor takes a receipt of npk packets from level lv away whose first
 * left its sender at start, at the sender's pace (one per os): it takes
 * them one per q = max(g, link time, orr) from max(its clock, start + L)
 * on, none before it arrives, then the software overhead extra; its
 * clock is then the receipt's end (returned).  *left: when the last
 * packet left the sender, held by the network until r took it (its
 * arrival, less L); *ack: the word of the acknowledgement r sends at
 * once, when the sender learns its data is gone: max(*left, r's clock
 * on entry + L), never before r may still send anything. */
uint64_t cm5i_model_take(const cm5i_model_params_t *p, cm5i_vnode_t *r, int lv,
                         uint64_t start, uint64_t npk, uint64_t extra,
                         uint64_t *left, uint64_t *ack);
/* The same, each packet placed on the np links of path (lk: none when
 * NULL or np == 0), one after another: packet i is wanted at
 * max(the previous one's + q, start + L + i * os). */
uint64_t cm5i_model_take_lk(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                            int lv, cm5i_links_t *lk, const uint32_t *path,
                            int np, uint64_t start, uint64_t npk,
                            uint64_t extra, uint64_t *left, uint64_t *ack);
/* Synchronised, held senders (doc/model.md, "Interleaved receipt"): a
 * busy processor that turns to its input takes together the receipts
 * that came while it was busy, their packets interleaved: one packet of
 * each in turn (the order of jobs[]), each costing its own q; a receipt
 * whose last packet is taken costs its extra there.  Every receipt's
 * first packet is in (they arrived by b).  Fills each job's left (its
 * last packet left its sender, held by the network until taken: its
 * taking less L), ack (when its sender learns it: max(left, b + L), never
 * before the receiver may send) and end (the node has it); r's clock
 * becomes the last end (returned). */
typedef struct {
    uint64_t npk, q, extra;  /* in: packets, time a packet, overhead */
    uint32_t path[4];        /* in: the links its packets cross (shared */
    int np;                  /* links: cm5i_model_take_batch_lk) */
    uint64_t left, ack, end; /* out */
} cm5i_take_job_t;
uint64_t cm5i_model_take_batch(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                               uint64_t b, cm5i_take_job_t *jobs, size_t n);
/* The same, a packet at a time, each placed on its job's links (lk):
 * every packet is wanted as the previous one is taken plus its cost. */
uint64_t cm5i_model_take_batch_lk(const cm5i_model_params_t *p, cm5i_vnode_t *r,
                                  uint64_t b, cm5i_links_t *lk,
                                  cm5i_take_job_t *jobs, size_t n);
/* The least a packet costs while open >= 2 receipts are interleaved:
 * orr + sw * floor(log2 open) (doc/model.md, "Switching between
 * pushes"); 0 (no bound) for one, or with sw = 0. */
uint64_t cm5i_model_switch_q(const cm5i_model_params_t *p, uint64_t open);
/* q of a receipt from level lv away: max(g, the link's time, orr). */
uint64_t cm5i_model_take_q(const cm5i_model_params_t *p, int lv);
/* What a control-network operation costs. */
uint64_t cm5i_model_cn_cost(const cm5i_model_params_t *p, cm5i_cn_kind_t kind,
                            size_t n);

#endif
