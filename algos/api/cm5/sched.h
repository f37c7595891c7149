/*
 * cm5fab communication scheduling: the personalized-communication
 * algorithms of the papers in ALGORITHMS.md (wang1993, ranka1995,
 * liu2002), written on the CMMD/CMAML API, behind one calling convention
 * shaped like MPI_Alltoallv.
 *
 * Every node of the partition calls cm5_sched_alltoallv() with the same
 * algorithm and options (collective).  Node i sends sendcounts[j] elements
 * of opts->elem_size bytes, starting at element sdispls[j] of sendbuf, to
 * node j, and receives recvcounts[j] elements from node j at element
 * rdispls[j] of recvbuf.  sdispls / rdispls may be NULL: packed in node
 * order (displacement j = sum of the counts before j).  The self entry
 * (i -> i) is a local copy, never a network message.
 *
 * recvcounts: with opts->recv == CM5_SCHED_RECV_GIVEN it is input (the
 * caller knows what it receives); otherwise the call discovers it
 * (Generate_Recv with active messages, or the concatenate method), writes
 * it, and the receive side must be packed (rdispls NULL) and fit in
 * opts->recv_capacity elements.
 *
 * A4 with opts->a4_unordered (liu2002's self-describing records): the
 * elements are records whose order does not matter, so no placement
 * metadata travels.  recvbuf (rdispls must be NULL) then holds the
 * sum(recvcounts) records bound for this node packed from element 0: its
 * own records first, in order, then every other record, whole, in the
 * order it arrived.  Which node sent a record is not recorded, and the
 * order of the others depends on timing: only their multiset is defined.
 * recvcounts are obtained as usual; only their sum is checked.
 *
 * Errors (bad arguments, a message that does not match what the receiver
 * expects) stop the whole job with one line naming the call, the node and
 * the fault, like every CMMD call; a status is returned only for
 * conditions a caller can act on.
 */
#ifndef CM5_SCHED_H
#define CM5_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <cm5/cm5.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CM5_SCHED_AC = 0,    /* asynchronous, random order (wang1993 Fig. 2) */
    CM5_SCHED_LP,        /* linear (XOR) permutation (wang1993 Fig. 3) */
    CM5_SCHED_RSN,       /* random scheduling, node contention free */
    CM5_SCHED_RSNH,      /* RS_N with per-phase cutoff and heaps */
    CM5_SCHED_DRSN,      /* distributed random scheduling, test-and-set */
    CM5_SCHED_DRSN_PLUS, /* DRS_N + busy measure/sleep + early go-ahead */
    CM5_SCHED_TWO_STAGE, /* ranka1995 bounded-traffic two-stage */
    CM5_SCHED_A1,        /* liu2002 A1: direct, shift schedule */
    CM5_SCHED_A2,        /* liu2002 A2: two-stage (Ranka or Bader) */
    CM5_SCHED_A3,        /* liu2002 A3: 2-D mesh two-stage (square P) */
    CM5_SCHED_A4,        /* liu2002 A4: four-stage, any P */
    CM5_SCHED_NALGS
} cm5_sched_alg_t;

/* How recvcounts are obtained. */
typedef enum {
    CM5_SCHED_RECV_GIVEN = 0, /* the caller passes them */
    CM5_SCHED_RECV_AM,        /* Generate_Recv (wang1993 Fig. 1) */
    CM5_SCHED_RECV_CONCAT     /* concatenate every send vector */
} cm5_sched_recv_t;

typedef enum {
    CM5_SCHED_ROW_RANDOM = 0, /* RS_N rows in random order each phase */
    CM5_SCHED_ROW_FIXED,      /* rows 0..p-1 */
    CM5_SCHED_ROW_LONGEST     /* longest remaining row first */
} cm5_sched_row_order_t;

typedef enum {
    CM5_SCHED_CUTOFF_CRITICAL = 0, /* ceil(T_rem / D_rem) (an option) */
    CM5_SCHED_CUTOFF_QUANTILE,     /* phase's q-quantile (an option) */
    CM5_SCHED_CUTOFF_NONE          /* the heaps alone (default, [AMB-4]) */
} cm5_sched_cutoff_t;

typedef enum {
    CM5_SCHED_HDR_AUTO = 0, /* sparse when under half the entries are set */
    CM5_SCHED_HDR_DENSE,
    CM5_SCHED_HDR_SPARSE
} cm5_sched_hdr_t;

typedef enum {
    CM5_SCHED_A4_BLOCKING = 0, /* a4-b: combined send-receive per step */
    CM5_SCHED_A4_NONBLOCKING,  /* a4-n1: one send buffer */
    CM5_SCHED_A4_DUAL          /* a4-n2: dual send buffers */
} cm5_sched_a4_mode_t;

/* Options; cm5_sched_opts_init() sets the paper-faithful defaults
 * (ALGORITHMS.md section 8).  Every node must pass the same values. */
typedef struct {
    size_t elem_size;      /* bytes per element (1) */
    uint64_t seed;         /* shared random seed (1) */
    cm5_sched_recv_t recv; /* GIVEN */
    size_t recv_capacity;  /* elements in recvbuf when recv != GIVEN */
    int interrupts;        /* run with CM-5 interrupts on (0: polling) */
    /* LP */
    int lp_barrier; /* barrier after every step (0; ranka: 1) */
    int lp_shift;   /* non-power-of-two P: 0 XOR skip, 1 shift */
    /* RS_N / RS_NH */
    cm5_sched_row_order_t rsn_row_order;
    int rsn_phase_barrier; /* barrier between phases (0) */
    cm5_sched_cutoff_t rsnh_cutoff;
    double rsnh_quantile; /* for CM5_SCHED_CUTOFF_QUANTILE (0.9) */
    /* DRS_N / DRS_N+ */
    double drs_retry_delay_us; /* wait before asking a denier again (0) */
    int drs_release_sender;    /* 1: sender sends RELEASE (wang1993); 0:
                                  receiver frees the lock on arrival */
    double drs_mu_ns_per_byte; /* busy-measure calibration (<0: measure) */
    double drs_tau_us;         /* start-up estimate (<0: measure) */
    double drs_theta_us;       /* early go-ahead window (<0: INQ RTT + tau;
                                  0: disabled) */
    size_t drs_chunk_max;      /* longest piece of a message, bytes: longer
                                  messages go as several pieces, each with
                                  its own inquiry (1 GiB; 1..INT_MAX) */
    int drs_data_cmmd;         /* the data by CMMD messages into receives
                                  posted at the start (1), or by
                                  CMAML_scopy into rports (0, default) */
    /* two-stage / A2 */
    cm5_sched_alg_t twostage_engine; /* LP or DRSN per stage (LP) */
    int twostage_data_cmmd;          /* LP stages: the data by CMMD
                                        messages (1), or by CMAML_scopy
                                        (0, default: ranka1995 ran on
                                        active messages) */
    int stg1_rotate;                 /* round robin starts at k = i (0) */
    int stg1_shuffle;                /* ranka1995 6.3 random reshuffle (0) */
    cm5_sched_hdr_t hdr_format;
    int a2_bader; /* A2 with Bader et al.'s bins (0: Ranka) */
    /* A4 */
    cm5_sched_a4_mode_t a4_mode;
    int a4_rotate_counters; /* counters start at (i + j) mod C (0) */
    int a4_unordered;       /* self-describing records, no placement
                               metadata (0): recvbuf gets this node's own
                               records, then the others in arrival order,
                               packed from element 0 (rdispls NULL) */
} cm5_sched_opts_t;

/* What one node measured and counted during one call. */
#define CM5_SCHED_MAX_STAGES 4
typedef struct {
    double total_s;  /* the whole call */
    double recv_s;   /* obtaining recvcounts (0 when given) */
    double gather_s; /* what the algorithm gathers itself before planning:
                        RS_N/RS_NH's concatenate of the matrix, two-stage
                        and A2's global max and Generate_Recv per stage */
    double sched_s;  /* computing the schedule (RS_N/RS_NH planning,
                        Stg1lpp/Stg2pp, distribution into buckets) */
    double comm_s;   /* total_s - recv_s - gather_s - sched_s */
    double copy_s;   /* the part of comm_s spent copying data into and out
                        of stage buffers (two-stage and A2: packing each
                        stage's messages, placing stage 2's chunks), where
                        ranka1995 6.1 passes pointers instead */
    uint32_t phases; /* phases or steps executed (LP: the XOR steps, RS_N:
                        schedule length, A4: steps of all stages) */
    uint64_t msgs_sent, bytes_sent; /* network messages (no self copy) */
    uint64_t msgs_recv, bytes_recv;
    /* DRS_N / DRS_N+ */
    uint64_t inquiries, denials;
    uint32_t max_concurrent_in; /* most data transfers into this node at
                                   once, counted in the handlers */
    /* multi-stage algorithms (two-stage, A2, A3, A4) */
    uint32_t nstages;
    struct {
        uint32_t steps;         /* schedule steps of this stage */
        uint32_t msgs_recv;     /* messages this node received */
        uint64_t max_msg_elems; /* longest message it received (payload
                                   elements, headers excluded) */
    } stage[CM5_SCHED_MAX_STAGES];
    /* liu2002 Table 4's sBUF and rBUF: the most payload elements (of
     * elem_size bytes; headers and segment descriptors excluded, the self
     * entry too) that one stage's send and receive buffers held, as the
     * paper counts a buffer reused by every stage.  A1 sends and receives
     * in place: the user buffers, i.e. what this node sends to and
     * receives from the others.  Two-stage and A2: stage 1's packed row
     * (the share this node keeps as its own intermediate included) and
     * slots, stage 2's packed messages (its share for itself included)
     * and arrivals.  A3 and A4: every bucket of a stage (the one for this
     * node included) and every message that stage brought in (self
     * included); n2 keeps two send sets and n1 two sets of arrivals
     * alive at once, up to twice these.  0 for the other algorithms. */
    uint64_t sbuf_elems, rbuf_elems;
} cm5_sched_stats_t;

CM5_EXPORT void cm5_sched_opts_init(cm5_sched_opts_t *opts);
/* Set one option from "name=value", the names of ALGORITHMS.md section 8
 * and of the fields above: "lp_barrier=1", "lp_nonpow2=shift",
 * "rsn_row_order=longest", "rsnh_cutoff=quantile:0.9", "recv=am",
 * "twostage_engine=drsn", "hdr_format=sparse", "a4_mode=n2", ...
 * CM5_ERR_INVALID with a one-line reason in err if the name or the value
 * is bad.  cm5_sched_opts_help() lists them, one per line. */
CM5_EXPORT cm5_status_t cm5_sched_opts_set(cm5_sched_opts_t *opts,
                                           const char *setting, char *err,
                                           size_t errlen);
CM5_EXPORT const char *cm5_sched_opts_help(void);

/* "ac", "lp", "rsn", "rsnh", "drsn", "drsn+", "two-stage", "a1".."a4". */
CM5_EXPORT const char *cm5_sched_alg_name(cm5_sched_alg_t alg);
/* Parse a name as above; CM5_ERR_INVALID if unknown. */
CM5_EXPORT cm5_status_t cm5_sched_alg_parse(const char *name,
                                            cm5_sched_alg_t *alg);

/* Collective: discover what this node receives from every node, given
 * what it sends (sendcounts[p]); method AM or CONCAT. */
CM5_EXPORT cm5_status_t cm5_sched_generate_recv(cm5_sched_recv_t method,
                                                const size_t *sendcounts,
                                                size_t *recvcounts);

/* Collective personalized communication; see the top of this file.
 * stats may be NULL.  opts may be NULL (defaults). */
CM5_EXPORT cm5_status_t
cm5_sched_alltoallv(cm5_sched_alg_t alg, const void *sendbuf,
                    const size_t *sendcounts, const size_t *sdispls,
                    void *recvbuf, size_t *recvcounts, const size_t *rdispls,
                    const cm5_sched_opts_t *opts, cm5_sched_stats_t *stats);

/* ======================================================================
 * s-to-p broadcasting (hambrusch1995/1996; ALGORITHMS.md section 4,
 * cm5_bcast(3)): s of the p nodes each hold one message and every node
 * ends up with all s of them, an irregular allgather.  One calling
 * convention shaped like MPI_Allgatherv:
 *
 *   cm5_sched_allgatherv(alg, sendbuf, sendcount, recvbuf, recvcounts,
 *                        displs, opts, stats)
 *
 * Node i contributes sendcount elements (of opts->elem_size bytes) from
 * sendbuf; it is a source when sendcount > 0.  Every node receives node
 * j's elements at element displs[j] of recvbuf (displs NULL: packed in
 * node order), its own included.  recvcounts[j] = node j's sendcount,
 * the same on every node; recvcounts NULL or opts->discover = 1: the
 * counts are discovered with one control-network step (a concatenate of
 * every node's sendcount), written to recvcounts when it is not NULL, the
 * layout is packed and must fit in opts->recv_capacity elements.
 *
 * The nodes form a logical r x c mesh, row-major ranks (rank = x * c +
 * y); opts->mesh_r/mesh_c give it (r * c must be p), 0 picks the most
 * square full mesh r x c, r <= c (a prime p gets 1 x p).  Meshes are
 * always full: no algorithm (auto included) runs on a mesh with empty
 * places (r * c > p) or too few (r * c < p); each stops the job before
 * any message with the one line
 *   cm5[NODE:PID] error cm5_sched_allgatherv(ALG): mesh R x C does not
 *   match the P nodes
 * (one line, not wrapped), and cm5_sched_mesh_parse refuses the same
 * meshes ("mesh R x C = N does not match the P nodes").  Any p >= 1 has
 * a full mesh, 1 x p at least.  What each algorithm does when p is not
 * a power of two: see cm5_sched_bcast_t below; all take every p >= 1.
 * ====================================================================== */

typedef enum {
    CM5_SCHED_BC_AUTO = 0,       /* see cm5_sched_bcast_auto() */
    CM5_SCHED_BC_BR_LIN,         /* binomial recursive halving over the
                                    snake order, combining messages:
                                    ceil(log2 p) iterations; an odd group
                                    n sends its middle node's set one way
                                    to its last node as well ([AMB-15]) */
    CM5_SCHED_BC_BR_XY_SOURCE,   /* br_lin in every row, then every column
                                    (rows first iff max_r < max_c) */
    CM5_SCHED_BC_BR_XY_DIM,      /* the same, rows first iff r >= c
                                    ([AMB-16]) */
    CM5_SCHED_BC_XOR,            /* step k = 1..2^ceil(log2 p)-1: i <-> i^k,
                                    partners >= p skipped; sources send
                                    their own message only */
    CM5_SCHED_BC_2STEP,          /* every source to node 0, then node 0
                                    broadcasts the lot the br_lin way */
    CM5_SCHED_BC_REPOS,          /* one permutation to the ideal
                                    distribution of opts->repos_alg, then
                                    that algorithm */
    CM5_SCHED_BC_PART_LIN,       /* halves G1 (top ceil(r/2) rows; left
                                    half of the columns when r = 1) and G2
                                    get round(s p1/p) and the rest of the
                                    sources in their ideal distributions,
                                    br_lin in both, then G1[i] <-> G2[i]
                                    (leftovers of the larger half receive
                                    from G_small[i mod p_small], [AMB-18]) */
    CM5_SCHED_BC_PART_XY_SOURCE, /* the same with br_xy_source */
    CM5_SCHED_BC_NALGS
} cm5_sched_bcast_t;

/* Options; cm5_sched_bcast_opts_init() sets the defaults (ALGORITHMS.md
 * section 8).  Every node must pass the same values. */
typedef struct {
    size_t elem_size;            /* bytes per element (1) */
    int mesh_r, mesh_c;          /* the logical mesh (0, 0: most square) */
    int discover;                /* discover recvcounts (0; 1 if NULL) */
    size_t recv_capacity;        /* recvbuf elements when discovered (0) */
    int interrupts;              /* run with CM-5 interrupts on (0) */
    int br_lin_rowmajor;         /* br_lin_order: 0 snake, 1 row-major */
    cm5_sched_bcast_t repos_alg; /* repos then BR_LIN or BR_XY_SOURCE
                                    (BR_XY_SOURCE) */
    int ideal_lin_prefix;        /* br_lin's ideal: 0 left diagonal, 1 the
                                    first s nodes of the linear order */
} cm5_sched_bcast_opts_t;

CM5_EXPORT void cm5_sched_bcast_opts_init(cm5_sched_bcast_opts_t *opts);
/* "name=value": elem_size, mesh=RxC, discover, recv_capacity, interrupts,
 * br_lin_order=snake|rowmajor, repos_alg=br_lin|br_xy_source,
 * ideal_lin=left_diagonal|prefix.  CM5_ERR_INVALID with a one-line
 * reason in err.  cm5_sched_bcast_opts_help() lists them. */
CM5_EXPORT cm5_status_t cm5_sched_bcast_opts_set(cm5_sched_bcast_opts_t *opts,
                                                 const char *setting, char *err,
                                                 size_t errlen);
CM5_EXPORT const char *cm5_sched_bcast_opts_help(void);

/* "auto", "br_lin", "br_xy_source", "br_xy_dim", "xor", "2step",
 * "repos", "part_lin", "part_xy_source". */
CM5_EXPORT const char *cm5_sched_bcast_name(cm5_sched_bcast_t alg);
CM5_EXPORT cm5_status_t cm5_sched_bcast_parse(const char *name,
                                              cm5_sched_bcast_t *alg);

/* The most square full mesh rows x cols = nodes, rows <= cols. */
CM5_EXPORT void cm5_sched_mesh_default(int nodes, int *rows, int *cols);
/* Parse "RxC" for nodes nodes: CM5_ERR_INVALID with a reason in err
 * unless R, C >= 1 and R * C = nodes. */
CM5_EXPORT cm5_status_t cm5_sched_mesh_parse(const char *text, int nodes,
                                             int *rows, int *cols, char *err,
                                             size_t errlen);

/* What CM5_SCHED_BC_AUTO runs for these counts (p = nodes of them) on
 * an r x c (rows x cols) mesh: br_lin when s <= 1 (a 1-to-p broadcast,
 * nothing to reposition) or r = 1 (no second dimension to exploit);
 * otherwise repos with br_xy_source, since hambrusch1995 (Figs. 5, 8)
 * finds br_xy_source the best on its ideal (row) distributions and up to
 * 2x slower on others, and the one permutation costs little; sources
 * already on their ideal positions do not move. */
CM5_EXPORT cm5_sched_bcast_t cm5_sched_bcast_auto(int nodes, int rows, int cols,
                                                  const size_t *counts);

/* Collective s-to-p broadcast; see the top of this section.  stats may
 * be NULL (phases: the plan's iterations; stage[]: reposition or
 * gather, broadcast, final exchange, as the algorithm has them); opts
 * may be NULL (defaults). */
CM5_EXPORT cm5_status_t cm5_sched_allgatherv(
    cm5_sched_bcast_t alg, const void *sendbuf, size_t sendcount, void *recvbuf,
    size_t *recvcounts, const size_t *displs,
    const cm5_sched_bcast_opts_t *opts, cm5_sched_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* CM5_SCHED_H */
