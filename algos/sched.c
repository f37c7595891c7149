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
    o->rsnh_cutoff = CM5_SCHED_CUTOFF_QUANTILE; /* [AMB-4] */
    o->rsnh_quantile = 0.9;
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

void cm5s_fatal(const cm5s_xfer_t *x, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cm5_fatal(x ? x->call : "cm5_sched_alltoallv", "%s", msg);
}

/* ---- random numbers: splitmix64, one stream per (seed, stream) ---------- */

void cm5s_rng_seed(cm5s_rng_t *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 0x632be59bd9b4e019ULL);
    (void)cm5s_rng_next(r);
}

uint64_t cm5s_rng_next(cm5s_rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t cm5s_rng_below(cm5s_rng_t *r, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;

    do
        v = cm5s_rng_next(r);
    while (v >= lim);
    return v % n;
}

void cm5s_rng_shuffle(cm5s_rng_t *r, int *v, int n)
{
    int i, j, t;

    for (i = n - 1; i > 0; i--) {
        j = (int)cm5s_rng_below(r, (uint64_t)i + 1);
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
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
    size_t *sc, *rc, *sd, *rd, total = 0;
    int p = CMMD_partition_size(), me = CMMD_self_address(), i;
    int irq_was = 0, unordered;
    double t0, t1;

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
    if (!sendcounts || !recvcounts)
        cm5s_fatal(&x, "%s is NULL", sendcounts ? "recvcounts" : "sendcounts");
    if (opts->elem_size == 0)
        cm5s_fatal(&x, "opts->elem_size is 0");
    if (opts->recv != CM5_SCHED_RECV_GIVEN && rdispls)
        cm5s_fatal(&x, "rdispls must be NULL when recvcounts are discovered "
                       "(opts->recv %d)",
                   (int)opts->recv);
    unordered = alg == CM5_SCHED_A4 && opts->a4_unordered;
    if (unordered && rdispls)
        cm5s_fatal(&x, "a4_unordered=1 packs the records in arrival order: "
                       "rdispls must be NULL");

    sc = calloc((size_t)p * 4, sizeof(size_t));
    if (!sc)
        cm5s_fatal(&x, "out of memory for %d counts", p);
    rc = sc + p;
    sd = rc + p;
    rd = sd + p;

    if (opts->interrupts)
        irq_was = CMAML_enable_interrupts();
    t0 = cm5_wtime();
    if (opts->recv != CM5_SCHED_RECV_GIVEN) {
        cm5_sched_generate_recv(opts->recv, sendcounts, recvcounts);
        for (i = 0; i < p; i++)
            total += recvcounts[i];
        if (total > opts->recv_capacity)
            cm5s_fatal(&x,
                       "node %d receives %zu elements, more than "
                       "opts->recv_capacity (%zu)",
                       me, total, opts->recv_capacity);
    }
    t1 = cm5_wtime();
    stats->recv_s = t1 - t0;

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
        cm5s_fatal(&x, "%s is NULL", sendbuf ? "recvbuf" : "sendbuf");
    if (sc[me] != rc[me])
        cm5s_fatal(&x,
                   "node %d sends itself %zu elements but expects %zu from "
                   "itself",
                   me, sc[me], rc[me]);
    /* Unordered A4: this node's own records first, the others after. */
    if (sc[me])
        memmove((char *)recvbuf + (unordered ? 0 : rd[me]) * opts->elem_size,
                (const char *)sendbuf + sd[me] * opts->elem_size,
                sc[me] * opts->elem_size);
    x.rfirst = unordered ? sc[me] : 0;
    sc[me] = rc[me] = 0;

    x.p = p;
    x.me = me;
    x.o = opts;
    x.esz = opts->elem_size;
    x.sbuf = sendbuf;
    x.scount = sc;
    x.sdispl = sd;
    x.rbuf = recvbuf;
    x.rcount = rc;
    x.rdispl = rd;
    x.st = stats;
    if (p > 1)
        alg_run[alg](&x);
    stats->total_s = cm5_wtime() - t0;
    stats->comm_s =
        stats->total_s - stats->recv_s - stats->gather_s - stats->sched_s;
    if (opts->interrupts && !irq_was)
        CMAML_disable_interrupts();
    free(sc);
    return CM5_OK;
}
