/*
 * Multi-node check of cm5_sched_alltoallv: every node builds the same
 * random communication matrix from the seed, sends patterned data, and
 * verifies every byte it receives (and that nothing else was written).
 *
 *   prog_a2av ALG [--matrix KIND] [--max N] [--density D] [--seed S]
 *             [--reps R] [-o name=value]...
 *
 * KIND: random (each entry nonzero with probability D/P, sizes 1..N),
 *       exact (exactly D nonzeros per row and column, sizes 1..N),
 *       uniform (exactly D per row and column, every size N),
 *       full (every off-diagonal entry 1..N), hotspot (everyone sends N
 *       to node 0), permutation (one message of 1..N per node), zero.
 * Node 0 prints one line of statistics, "stats key=value ...", with the
 * maxima over all nodes (the shell tests assert bounds on them), then
 * "ok".  A wrong byte stops the job naming algorithm, source, destination
 * and offset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>
#include <cm5/workload.h>

static int P, me;

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rng_state;
static uint64_t rnd(uint64_t n)
{
    rng_state = mix(rng_state);
    return n ? rng_state % n : 0;
}

static unsigned char pattern(int src, int dst, size_t k)
{
    return (
        unsigned char)(mix(((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ k) &
                       0xff);
}

/* Exactly d nonzeros per row and column, none on the diagonal: the
 * pattern of wang1993's test set 1 (cm5_workload_make "density:d=N"),
 * with sizes 1..maxn (or all maxn). */
static void exact(size_t *com, int d, size_t maxn, int same, uint64_t seed)
{
    cm5_workload_t w;
    char spec[32], err[256];
    size_t k;

    if (d > P - 1)
        d = P - 1;
    if (d <= 0)
        return;
    snprintf(spec, sizeof(spec), "density:d=%d", d);
    if (cm5_workload_make(spec, P, seed, &w, err, sizeof(err)) != CM5_OK)
        CMMD_error("prog_a2av: %s", err);
    for (k = 0; k < (size_t)P * P; k++)
        if (w.com[k])
            com[k] = same ? maxn : 1 + rnd(maxn);
    cm5_workload_free(&w);
}

int main(int argc, char **argv)
{
    cm5_sched_alg_t alg;
    cm5_sched_opts_t o;
    cm5_sched_stats_t st;
    const char *kind = "random";
    size_t maxn = 64, *com, *sc, *rc, stot = 0, rtot = 0, guard = 64;
    int density = -1, reps = 1, i, j, rep;
    unsigned char *sb, *rb;
    char err[256];
    uint64_t seed = 1;

    P = CMMD_partition_size();
    me = CMMD_self_address();
    cm5_sched_opts_init(&o);
    if (argc < 2 || cm5_sched_alg_parse(argv[1], &alg) != CM5_OK)
        CMMD_error("prog_a2av: first argument must be an algorithm, not %s",
                   argc < 2 ? "nothing" : argv[1]);
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!v)
            CMMD_error("prog_a2av: %s needs a value", a);
        if (!strcmp(a, "--matrix"))
            kind = v;
        else if (!strcmp(a, "--max"))
            maxn = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--density"))
            density = atoi(v);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--reps"))
            reps = atoi(v);
        else if (!strcmp(a, "-o")) {
            if (cm5_sched_opts_set(&o, v, err, sizeof(err)) != CM5_OK)
                CMMD_error("prog_a2av: %s", err);
        } else
            CMMD_error("prog_a2av: unknown argument %s", a);
        i++;
    }
    if (density < 0)
        density = P > 4 ? P / 2 : P - 1;
    if (maxn == 0)
        maxn = 1;

    /* The whole matrix, identical on every node. */
    rng_state = seed * 7919 + (uint64_t)P;
    com = calloc((size_t)P * P, sizeof(size_t));
    sc = calloc((size_t)P, sizeof(size_t));
    rc = calloc((size_t)P, sizeof(size_t));
    if (!strcmp(kind, "random")) {
        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                if (rnd((uint64_t)P) < (uint64_t)density)
                    com[(size_t)i * P + j] = 1 + rnd(maxn);
    } else if (!strcmp(kind, "exact") || !strcmp(kind, "uniform")) {
        exact(com, density, maxn, !strcmp(kind, "uniform"), seed);
    } else if (!strcmp(kind, "full")) {
        for (i = 0; i < P; i++)
            for (j = 0; j < P; j++)
                com[(size_t)i * P + j] = i == j ? 0 : 1 + rnd(maxn);
    } else if (!strcmp(kind, "hotspot")) {
        for (i = 1; i < P; i++)
            com[(size_t)i * P] = maxn;
    } else if (!strcmp(kind, "permutation")) {
        int *perm = malloc(sizeof(int) * P);

        for (i = 0; i < P; i++)
            perm[i] = i;
        for (i = P - 1; i > 0; i--) {
            int k = (int)rnd((uint64_t)i + 1), t = perm[i];

            perm[i] = perm[k];
            perm[k] = t;
        }
        for (i = 0; i < P; i++)
            com[(size_t)i * P + perm[i]] = 1 + rnd(maxn);
        free(perm);
    } else if (strcmp(kind, "zero") != 0)
        CMMD_error("prog_a2av: unknown matrix kind %s", kind);

    for (j = 0; j < P; j++) {
        sc[j] = com[(size_t)me * P + j];
        rc[j] = com[(size_t)j * P + me];
        stot += sc[j];
        rtot += rc[j];
    }
    sb = malloc(stot * o.elem_size + 1);
    rb = malloc((rtot + guard) * o.elem_size + 1);
    {
        size_t off = 0, k;

        for (j = 0; j < P; j++)
            for (k = 0; k < sc[j] * o.elem_size; k++)
                sb[off++] = pattern(me, j, k);
    }
    if (o.recv != CM5_SCHED_RECV_GIVEN) {
        o.recv_capacity = rtot;
        memset(rc, 0xff, sizeof(size_t) * P); /* must be discovered */
    }

    for (rep = 0; rep < reps; rep++) {
        size_t off = 0, k;

        memset(rb, 0xa5, (rtot + guard) * o.elem_size);
        cm5_sched_alltoallv(alg, sb, sc, NULL, rb, rc, NULL, &o, &st);
        for (j = 0; j < P; j++) {
            if (rc[j] != com[(size_t)j * P + me])
                CMMD_error("prog_a2av: %s: recvcounts[%d] is %zu, not %zu",
                           argv[1], j, rc[j], com[(size_t)j * P + me]);
            for (k = 0; k < rc[j] * o.elem_size; k++, off++)
                if (rb[off] != pattern(j, me, k))
                    CMMD_error("prog_a2av: %s: byte %zu from node %d to "
                               "node %d is 0x%02x, not 0x%02x (rep %d)",
                               argv[1], k, j, me, rb[off], pattern(j, me, k),
                               rep);
        }
        for (k = rtot * o.elem_size; k < (rtot + guard) * o.elem_size; k++)
            if (rb[k] != 0xa5)
                CMMD_error("prog_a2av: %s: node %d: byte %zu past the "
                           "received data was overwritten",
                           argv[1], me, k - rtot * o.elem_size);
    }

    /* Maxima (and sums) over all nodes, printed by node 0. */
    {
        unsigned long v[24];
        int s, n = 0;
        size_t t = 0;

        for (i = 0; i < P; i++) {
            size_t r = 0, c = 0;

            for (j = 0; j < P; j++) {
                if (i != j) {
                    r += com[(size_t)i * P + j];
                    c += com[(size_t)j * P + i];
                }
            }
            t = r > t ? r : t;
            t = c > t ? c : t;
        }
        v[n++] = st.phases;
        v[n++] = st.max_concurrent_in;
        v[n++] = st.nstages;
        for (s = 0; s < CM5_SCHED_MAX_STAGES; s++) {
            v[n++] = st.stage[s].steps;
            v[n++] = st.stage[s].msgs_recv;
            v[n++] = st.stage[s].max_msg_elems;
        }
        CMMD_reduce_v(v, v, CMMD_combiner_umax, sizeof(unsigned long), n);
        {
            unsigned long msgs =
                CMMD_reduce_luint(st.msgs_sent, CMMD_combiner_add);
            unsigned long bytes =
                CMMD_reduce_luint(st.bytes_sent, CMMD_combiner_add);
            unsigned long inq =
                CMMD_reduce_luint(st.inquiries, CMMD_combiner_add);
            unsigned long den =
                CMMD_reduce_luint(st.denials, CMMD_combiner_add);
            double comm = CMMD_reduce_double(st.comm_s, CMMD_combiner_dmax);
            double sch = CMMD_reduce_double(st.sched_s, CMMD_combiner_dmax);

            if (me == 0) {
                printf("stats alg=%s p=%d t=%zu phases=%lu max_concurrent_in="
                       "%lu msgs=%lu bytes=%lu inquiries=%lu denials=%lu "
                       "nstages=%lu",
                       cm5_sched_alg_name(alg), P, t, v[0], v[1], msgs, bytes,
                       inq, den, v[2]);
                for (s = 0; s < CM5_SCHED_MAX_STAGES; s++)
                    printf(" stage%d_steps=%lu stage%d_msgs=%lu "
                           "stage%d_maxlen=%lu",
                           s + 1, v[3 + 3 * s], s + 1, v[4 + 3 * s], s + 1,
                           v[5 + 3 * s]);
                printf(" comm_s=%.6f sched_s=%.6f\n", comm, sch);
                printf("ok\n");
            }
        }
    }
    free(com);
    free(sc);
    free(rc);
    free(sb);
    free(rb);
    return 0;
}
