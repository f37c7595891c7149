/*
 * DRS_N and DRS_N+ in many cases in one job (prog_a2av runs one case per
 * job, and starting a job is what costs on a loaded machine):
 *
 *   prog_drs [--only NAME,NAME...] [ALG...]    (default: drsn drsn+)
 *
 * For each algorithm it runs the cases of the table below back to back
 * (consecutive calls of both algorithms; the repetitions of a case follow
 * one another without a barrier, so a fast node starts the next call
 * while a slow one still finishes the last),
 * each case on a matrix every node builds from the same seed, and checks
 * every received byte and the guard bytes past the data.  Node 0 prints
 * one line per case,
 *
 *   case alg=A name=N p=P mci=M msgs=S bytes=B inquiries=I denials=D
 *        expect_msgs=S' expect_bytes=B'
 *
 * (mci: the most incoming transfers any node saw at once; msgs, bytes,
 * inquiries, denials: sums over the nodes and the repetitions; expect_*:
 * what the matrix holds off the diagonal, times the repetitions, a
 * message counting as one per piece of at most drs_chunk_max bytes),
 * then "ok".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>

static int P, me;
static uint64_t rng;

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t n)
{
    rng = mix(rng);
    return n ? rng % n : 0;
}

static unsigned char pattern(int src, int dst, size_t k, int rep)
{
    return (unsigned char)mix(((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^
                              ((uint64_t)rep << 56) ^ k);
}

typedef struct {
    const char *name, *matrix;
    size_t max;
    int density; /* for random, exact, uniform (capped at P - 1) */
    int reps;
    const char *opts[4];
} drs_case_t;

/* Circulant shifts (i -> i + s) with distinct random s: exactly d per
 * row and column. */
static void shifts(size_t *com, int d, size_t max, int same)
{
    int *s = malloc(sizeof(int) * P), k, i;

    for (i = 0; i < P - 1; i++)
        s[i] = i + 1;
    for (k = 0; k < d; k++) {
        int j = k + (int)rnd((uint64_t)(P - 1 - k)), t = s[j];

        s[j] = s[k];
        s[k] = t;
        for (i = 0; i < P; i++)
            com[(size_t)i * P + (i + t) % P] = same ? max : 1 + rnd(max);
    }
    free(s);
}

static void build(const drs_case_t *c, size_t *com)
{
    int d = c->density < P - 1 ? c->density : P - 1, i, j;

    memset(com, 0, sizeof(size_t) * P * P);
    if (!strcmp(c->matrix, "full")) {
        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                com[(size_t)i * P + j] = i == j ? 0 : 1 + rnd(c->max);
    } else if (!strcmp(c->matrix, "random")) {
        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                if (rnd((uint64_t)P) < (uint64_t)d)
                    com[(size_t)i * P + j] = 1 + rnd(c->max);
    } else if (!strcmp(c->matrix, "exact") || !strcmp(c->matrix, "uniform")) {
        shifts(com, d, c->max, !strcmp(c->matrix, "uniform"));
    } else if (!strcmp(c->matrix, "hotspot")) {
        for (i = 1; i < P; i++)
            com[(size_t)i * P] = c->max;
    } else if (!strcmp(c->matrix, "permutation")) {
        shifts(com, P > 1, c->max, 0);
    }
}

static void run_case(cm5_sched_alg_t alg, const drs_case_t *c, size_t *com)
{
    cm5_sched_opts_t o;
    cm5_sched_stats_t st;
    size_t sc[P], rc[P], stot = 0, rtot = 0, guard = 64, k, off;
    unsigned long v[4] = {0, 0, 0, 0}, sum[4], mci = 0, em = 0, eb = 0, m;
    unsigned char *sb, *rb;
    char err[256];
    int i, j, rep;

    cm5_sched_opts_init(&o);
    for (i = 0; i < 4 && c->opts[i]; i++)
        if (cm5_sched_opts_set(&o, c->opts[i], err, sizeof(err)) != CM5_OK)
            CMMD_error("prog_drs: %s", err);
    build(c, com);
    for (j = 0; j < P; j++) {
        sc[j] = com[(size_t)me * P + j];
        rc[j] = com[(size_t)j * P + me];
        stot += sc[j];
        rtot += rc[j];
        for (i = 0; i < P; i++)
            if (i != j && (m = com[(size_t)i * P + j])) {
                em += (m + o.drs_chunk_max - 1) / o.drs_chunk_max; /* pieces */
                eb += m;
            }
    }
    sb = malloc(stot + 1);
    rb = malloc(rtot + guard);
    if (o.recv != CM5_SCHED_RECV_GIVEN)
        o.recv_capacity = rtot;
    for (rep = 0; rep < c->reps; rep++) {
        for (off = 0, j = 0; j < P; j++)
            for (k = 0; k < sc[j]; k++)
                sb[off++] = pattern(me, j, k, rep);
        memset(rb, 0xa5, rtot + guard);
        if (rep == 0) /* start together: contention is the test; the */
            CMMD_sync_with_nodes(); /* next calls follow back to back */
        cm5_sched_alltoallv(alg, sb, sc, NULL, rb, rc, NULL, &o, &st);
        for (off = 0, j = 0; j < P; j++)
            for (k = 0; k < rc[j]; k++, off++)
                if (rb[off] != pattern(j, me, k, rep))
                    CMMD_error("prog_drs: %s %s: byte %zu from node %d to "
                               "node %d is wrong (rep %d)",
                               cm5_sched_alg_name(alg), c->name, k, j, me, rep);
        for (k = 0; k < guard; k++)
            if (rb[rtot + k] != 0xa5)
                CMMD_error("prog_drs: %s %s: node %d: byte %zu past the "
                           "data was overwritten",
                           cm5_sched_alg_name(alg), c->name, me, k);
        v[0] += st.msgs_sent;
        v[1] += st.bytes_sent;
        v[2] += st.inquiries;
        v[3] += st.denials;
        mci = st.max_concurrent_in > mci ? st.max_concurrent_in : mci;
    }
    CMMD_reduce_v(sum, v, CMMD_combiner_add, sizeof(unsigned long), 4);
    mci = CMMD_reduce_luint(mci, CMMD_combiner_umax);
    if (me == 0)
        printf("case alg=%s name=%s p=%d mci=%lu msgs=%lu bytes=%lu "
               "inquiries=%lu denials=%lu expect_msgs=%lu "
               "expect_bytes=%lu\n",
               cm5_sched_alg_name(alg), c->name, P, mci, sum[0], sum[1], sum[2],
               sum[3], em * c->reps, eb * c->reps);
    free(sb);
    free(rb);
}

static const drs_case_t cases[] = {
    {"full", "full", 300, 0, 2, {NULL}},
    {"hotspot_irq", "hotspot", 200000, 0, 3, {"interrupts=1"}},
    {"random_sender", "random", 500, 3, 1, {"drs_release=sender"}},
    {"exact_am", "exact", 400, 2, 1, {"recv=am"}},
    {"uniform_delay", "uniform", 1000, 3, 1, {"drs_retry_delay_us=50"}},
    {"perm_irq_sender",
     "permutation",
     5000,
     0,
     1,
     {"interrupts=1", "drs_release=sender"}},
    {"zero", "zero", 1, 0, 2, {NULL}},
    {"full_theta0_irq_sender",
     "full",
     200,
     0,
     2,
     {"drs_theta_us=0", "interrupts=1", "drs_release=sender"}},
    {"hotspot_theta1s", "hotspot", 200000, 0, 3, {"drs_theta_us=1000000"}},
    /* Long messages in pieces, each with its own inquiry. */
    {"full_chunk1000", "full", 6000, 0, 2, {"drs_chunk_max=1000"}},
    {"hotspot_chunk1000_irq",
     "hotspot",
     9000,
     0,
     2,
     {"drs_chunk_max=1000", "interrupts=1"}},
    {"perm_chunk7_sender",
     "permutation",
     300,
     0,
     1,
     {"drs_chunk_max=7", "drs_release=sender"}},
    /* The data by CMMD messages into receives posted at the start. */
    {"full_cmmd", "full", 300, 0, 2, {"drs_data=cmmd"}},
    {"hotspot_cmmd_irq_sender",
     "hotspot",
     200000,
     0,
     2,
     {"drs_data=cmmd", "interrupts=1", "drs_release=sender"}},
    {"random_cmmd_chunk1000",
     "random",
     6000,
     3,
     2,
     {"drs_data=cmmd", "drs_chunk_max=1000"}},
};

/* Is name in the comma-separated list? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : 0)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *def[] = {"drsn", "drsn+"}, *only = NULL, **algs = def;
    int nalg = 2, a;
    size_t *com;

    if (argc > 2 && !strcmp(argv[1], "--only")) {
        only = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc > 1) {
        algs = (const char **)argv + 1;
        nalg = argc - 1;
    }

    P = CMMD_partition_size();
    me = CMMD_self_address();
    com = malloc(sizeof(size_t) * P * P);
    rng = 0x5eed + (uint64_t)P;
    for (a = 0; a < nalg; a++) {
        cm5_sched_alg_t alg;

        if (cm5_sched_alg_parse(algs[a], &alg) != CM5_OK)
            CMMD_error("prog_drs: unknown algorithm %s", algs[a]);
        for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++)
            if (!only || listed(only, cases[c].name))
                run_case(alg, &cases[c], com);
    }
    if (me == 0)
        printf("ok\n");
    free(com);
    return 0;
}
