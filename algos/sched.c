/*
 * cm5_sched_alltoallv: argument checks, recvcounts, displacements, the
 * self copy, interrupts and timing around every algorithm.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "plan_drs.h"
#include "sched_internal.h"

static const char *const alg_names[CM5_SCHED_NALGS] = {
    [CM5_SCHED_AC] = "ac",
    [CM5_SCHED_LP] = "lp",
    [CM5_SCHED_RSN] = "rsn",
    [CM5_SCHED_RSNH] = "rsnh",
    [CM5_SCHED_DRSN] = "drsn",
    [CM5_SCHED_DRSN_PLUS] = "drsn+",
    [CM5_SCHED_TWO_STAGE] = "two-stage",
    [CM5_SCHED_A1] = "a1",
    [CM5_SCHED_A2] = "a2",
    [CM5_SCHED_A3] = "a3",
    [CM5_SCHED_A4] = "a4",
};

static const cm5s_run_func_t alg_run[CM5_SCHED_NALGS] = {
    [CM5_SCHED_AC] = cm5s_run_ac,
    [CM5_SCHED_LP] = cm5s_run_lp,
    [CM5_SCHED_RSN] = cm5s_run_rsn,
    [CM5_SCHED_RSNH] = cm5s_run_rsnh,
    [CM5_SCHED_DRSN] = cm5s_run_drsn,
    [CM5_SCHED_DRSN_PLUS] = cm5s_run_drsn_plus,
    [CM5_SCHED_TWO_STAGE] = cm5s_run_two_stage,
    [CM5_SCHED_A1] = cm5s_run_a1,
    [CM5_SCHED_A2] = cm5s_run_a2,
    [CM5_SCHED_A3] = cm5s_run_a3,
    [CM5_SCHED_A4] = cm5s_run_a4,
};

void cm5_sched_opts_init(cm5_sched_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->elem_size = 1;
    o->seed = 1;
    o->recv = CM5_SCHED_RECV_GIVEN;
    o->lp_barrier = 0;
    o->lp_shift = 0;
    o->rsn_row_order = CM5_SCHED_ROW_RANDOM;
    /* [AMB-4]: no cut, the heaps alone (doc/bench.md, "RS_NH's cutoff":
     * the paper's RS_NH took 1-3 % more phases than RS_N on its random
     * matrices; quantile:0.9, the default until 2026-12-01, 21-27 %) */
    o->rsnh_cutoff = CM5_SCHED_CUTOFF_NONE;
    o->rsnh_quantile = 0.9; /* (the q of a quantile cutoff set without one) */
    o->drs_retry_delay_us = 0;
    o->drs_release_sender = 0;
    o->drs_mu_ns_per_byte = -1;
    o->drs_tau_us = -1;
    o->drs_theta_us = -1;
    o->twostage_engine = CM5_SCHED_LP;
    o->hdr_format = CM5_SCHED_HDR_AUTO;
    o->drs_chunk_max = CM5S_DRS_CHUNK_DEFAULT;
    o->a4_mode = CM5_SCHED_A4_BLOCKING;
}

const char *cm5_sched_alg_name(cm5_sched_alg_t alg)
{
    if ((int)alg < 0 || alg >= CM5_SCHED_NALGS)
        return "unknown";
    return alg_names[alg];
}

cm5_status_t cm5_sched_alg_parse(const char *name, cm5_sched_alg_t *alg)
{
    int a;

    if (!name)
        return CM5_ERR_INVALID;
    for (a = 0; a < CM5_SCHED_NALGS; a++) {
        if (strcmp(name, alg_names[a]) == 0) {
            *alg = (cm5_sched_alg_t)a;
            return CM5_OK;
        }
    }
    /* The papers' spellings. */
    if (strcmp(name, "rs_n") == 0)
        *alg = CM5_SCHED_RSN;
    else if (strcmp(name, "rs_nh") == 0)
        *alg = CM5_SCHED_RSNH;
    else if (strcmp(name, "drs_n") == 0)
        *alg = CM5_SCHED_DRSN;
    else if (strcmp(name, "drs_n+") == 0 || strcmp(name, "drsn-plus") == 0)
        *alg = CM5_SCHED_DRSN_PLUS;
    else if (strcmp(name, "twostage") == 0 || strcmp(name, "two_stage") == 0)
        *alg = CM5_SCHED_TWO_STAGE;
    else
        return CM5_ERR_INVALID;
    return CM5_OK;
}

/* ---- recvcounts ------------------------------------------------------- */

cm5_status_t cm5_sched_generate_recv(cm5_sched_recv_t method,
                                     const size_t *sendcounts,
                                     size_t *recvcounts)
{
    int p = CMMD_partition_size(), me = CMMD_self_address();

    if (!sendcounts || !recvcounts)
        cm5_fatal("cm5_sched_generate_recv", "%s is NULL",
                  sendcounts ? "recvcounts" : "sendcounts");
    switch (method) {
    case CM5_SCHED_RECV_AM:
        cm5s_recv_am(p, me, sendcounts, recvcounts);
        return CM5_OK;
    case CM5_SCHED_RECV_CONCAT:
        cm5s_recv_concat(p, me, sendcounts, recvcounts);
        return CM5_OK;
    default:
        cm5_fatal("cm5_sched_generate_recv",
                  "method %d is neither CM5_SCHED_RECV_AM nor "
                  "CM5_SCHED_RECV_CONCAT",
                  (int)method);
    }
}

/* ---- the call ----------------------------------------------------------- */

static void packed(int p, const size_t *count, size_t *displ)
{
    size_t sum = 0;
    int i;

    for (i = 0; i < p; i++) {
        displ[i] = sum;
        sum += count[i];
    }
}

/* ---- the call, in its stages ------------------------------------------- */

/* Stage 1: the arguments every algorithm needs (a fault stops the job). */
static void sched_check(const cm5s_xfer_t *x, cm5_sched_alg_t alg,
                        const size_t *sendcounts, const size_t *recvcounts,
                        const size_t *rdispls)
{
    const cm5_sched_opts_t *o = x->o;

    if (!sendcounts || !recvcounts)
        cm5s_fatal(x, "%s is NULL", sendcounts ? "recvcounts" : "sendcounts");
    if (o->elem_size == 0)
        cm5s_fatal(x, "opts->elem_size is 0");
    if (o->recv != CM5_SCHED_RECV_GIVEN && rdispls)
        cm5s_fatal(x,
                   "rdispls must be NULL when recvcounts are discovered "
                   "(opts->recv %d)",
                   (int)o->recv);
    if (alg == CM5_SCHED_A4 && o->a4_unordered && rdispls)
        cm5s_fatal(x, "a4_unordered=1 packs the records in arrival order: "
                      "rdispls must be NULL");
}

/* Stage 2: recvcounts, when the call discovers them (Generate_Recv or
 * the concatenate); they must fit in opts->recv_capacity. */
static void sched_discover(const cm5s_xfer_t *x, const size_t *sendcounts,
                           size_t *recvcounts)
{
    size_t total = 0;

    if (x->o->recv == CM5_SCHED_RECV_GIVEN)
        return;
    cm5_sched_generate_recv(x->o->recv, sendcounts, recvcounts);
    for (int i = 0; i < x->p; i++)
        total += recvcounts[i];
    if (total > x->o->recv_capacity)
        cm5s_fatal(x,
                   "node %d receives %zu elements, more than "
                   "opts->recv_capacity (%zu)",
                   x->me, total, x->o->recv_capacity);
}

/* Stage 3: the layout the algorithm sees: counts and displacements of
 * its own (packed when not given), the self entry copied locally and
 * zeroed.  sc, rc, sd, rd: p entries each. */
static void sched_layout(cm5s_xfer_t *x, int unordered, const void *sendbuf,
                         const size_t *sendcounts, const size_t *sdispls,
                         void *recvbuf, const size_t *recvcounts,
                         const size_t *rdispls, size_t *sc, size_t *rc,
                         size_t *sd, size_t *rd)
{
    int p = x->p, me = x->me;
    size_t esz = x->o->elem_size;

    memcpy(sc, sendcounts, (size_t)p * sizeof(size_t));
    memcpy(rc, recvcounts, (size_t)p * sizeof(size_t));
    if (sdispls)
        memcpy(sd, sdispls, (size_t)p * sizeof(size_t));
    else
        packed(p, sc, sd);
    if (rdispls)
        memcpy(rd, rdispls, (size_t)p * sizeof(size_t));
    else
        packed(p, rc, rd);
    if ((sc[me] || rc[me]) && (!sendbuf || !recvbuf))
        cm5s_fatal(x, "%s is NULL", sendbuf ? "recvbuf" : "sendbuf");
    if (sc[me] != rc[me])
        cm5s_fatal(x,
                   "node %d sends itself %zu elements but expects %zu from "
                   "itself",
                   me, sc[me], rc[me]);
    /* Unordered A4: this node's own records first, the others after. */
    if (sc[me])
        memmove((char *)recvbuf + (unordered ? 0 : rd[me]) * esz,
                (const char *)sendbuf + sd[me] * esz, sc[me] * esz);
    x->rfirst = unordered ? sc[me] : 0;
    sc[me] = rc[me] = 0;
    x->esz = esz;
    x->sbuf = sendbuf;
    x->scount = sc;
    x->sdispl = sd;
    x->rbuf = recvbuf;
    x->rcount = rc;
    x->rdispl = rd;
}

cm5_status_t cm5_sched_alltoallv(cm5_sched_alg_t alg, const void *sendbuf,
                                 const size_t *sendcounts,
                                 const size_t *sdispls, void *recvbuf,
                                 size_t *recvcounts, const size_t *rdispls,
                                 const cm5_sched_opts_t *opts,
                                 cm5_sched_stats_t *stats)
{
    cm5_sched_opts_t defaults;
    cm5_sched_stats_t local_stats;
    cm5s_xfer_t x;
    char call[64];
    size_t *sc;
    int irq_was = 0;
    double t0;

    if ((int)alg < 0 || alg >= CM5_SCHED_NALGS)
        cm5_fatal("cm5_sched_alltoallv", "unknown algorithm %d", (int)alg);
    snprintf(call, sizeof(call), "cm5_sched_alltoallv(%s)", alg_names[alg]);
    if (!opts) {
        cm5_sched_opts_init(&defaults);
        opts = &defaults;
    }
    if (!stats)
        stats = &local_stats;
    memset(stats, 0, sizeof(*stats));
    memset(&x, 0, sizeof(x));
    x.call = call;
    x.o = opts;
    x.st = stats;
    x.p = CMMD_partition_size();
    x.me = CMMD_self_address();
    sched_check(&x, alg, sendcounts, recvcounts, rdispls);
    sc = calloc((size_t)x.p * 4, sizeof(size_t));
    if (!sc)
        cm5s_fatal(&x, "out of memory for %d counts", x.p);

    if (opts->interrupts)
        irq_was = CMAML_enable_interrupts();
    t0 = cm5_wtime();
    sched_discover(&x, sendcounts, recvcounts);
    stats->recv_s = cm5_wtime() - t0;
    sched_layout(&x, alg == CM5_SCHED_A4 && opts->a4_unordered, sendbuf,
                 sendcounts, sdispls, recvbuf, recvcounts, rdispls, sc,
                 sc + x.p, sc + 2 * x.p, sc + 3 * x.p);
    if (x.p > 1)
        alg_run[alg](&x);
    stats->total_s = cm5_wtime() - t0;
    stats->comm_s =
        stats->total_s - stats->recv_s - stats->gather_s - stats->sched_s;
    if (opts->interrupts && !irq_was)
        CMAML_disable_interrupts();
    free(sc);
    return CM5_OK;
}
