/*
 * The s-to-p broadcasting family in many cases in one job (starting a
 * job is what costs on a loaded machine):
 *
 *   prog_bcast [--mesh RxC,...|default] [--algs A,...] [--dists D;D;...]
 *              [--L N|A:B] [--seed N] [--reps N] [-o name=value]...
 *   prog_bcast --bad mesh[:ALG[:RxC]]|negative|count|workload:SPEC
 *
 * For every mesh, distribution (a cm5_workload_bcast_make spec; L= and
 * the mesh are added) and algorithm it calls cm5_sched_allgatherv reps
 * times back to back (no barrier between calls), every node fills its
 * message from a pattern of (source, byte, rep), and checks every byte of
 * every source's message in recvbuf and the guard bytes around them.  The
 * counts are passed, or (every third case) discovered into recvcounts,
 * or (every third case + 1) discovered with recvcounts NULL; every fourth
 * case with given counts has displacements with gaps.  Node 0 prints a
 * line per case,
 *
 *   case alg=A mesh=RxC dist=D s=S total=T iters=N msgs=M bytes=B
 *        maxlen=X stage0=N stage1=N stage2=N
 *
 * (total: the bytes of all sources' messages; msgs, bytes: sums over the
 * nodes of what they received per call;
 * maxlen: the longest message node 0 received, elements; stageK: the
 * iterations of the algorithm's stages), then "ok cases=N".  A wrong byte
 * stops the job with CMMD_error.  --bad makes one bad call: the job must
 * stop with one error line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>
#include <cm5/workload.h>

#define GAP 3 /* elements between blocks with displacements */

static int P, me;

static unsigned char pat(int src, size_t k, int rep)
{
    uint64_t z = ((uint64_t)src << 40) ^ ((uint64_t)rep << 32) ^ k;

    z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ULL;
    return (unsigned char)(z ^ (z >> 31) ^ 0x5a);
}

typedef struct {
    const char *meshes, *algs, *dists, *L;
    uint64_t seed;
    int reps;
    cm5_sched_bcast_opts_t o;
    int cases;
} cfg_t;

/* Check recvbuf: every block and the guard bytes (0xee) outside them. */
static void check(const cfg_t *g, const cm5_workload_bcast_t *w,
                  const unsigned char *rb, const size_t *displ, size_t total,
                  int rep, const char *what)
{
    size_t esz = g->o.elem_size, k, at = 0;
    int i;

    for (i = 0; i < P; i++) {
        size_t n = w->len[i] * esz, d = displ[i] * esz;

        for (; at < d; at++)
            if (rb[at] != 0xee)
                CMMD_error("prog_bcast %s: node %d: guard byte %zu "
                           "overwritten\n",
                           what, me, at);
        for (k = 0; k < n; k++)
            if (rb[d + k] != pat(i, k, rep))
                CMMD_error("prog_bcast %s rep %d: node %d: byte %zu of "
                           "source %d is wrong\n",
                           what, rep, me, k, i);
        at = d + n;
    }
    for (; at < total; at++)
        if (rb[at] != 0xee)
            CMMD_error("prog_bcast %s: node %d: guard byte %zu overwritten\n",
                       what, me, at);
}

/* One call: mode 0 counts given, 1 discovered into recvcounts, 2
 * discovered with recvcounts NULL; gaps: displacements with gaps. */
static void call(cfg_t *g, cm5_sched_bcast_t alg, const cm5_workload_bcast_t *w,
                 int mode, int gaps, unsigned char *rb, size_t cap,
                 const char *what, cm5_sched_stats_t *st)
{
    size_t esz = g->o.elem_size, *rc = calloc((size_t)P, sizeof(size_t));
    size_t *displ = calloc((size_t)P, sizeof(size_t)), sum = 0, mine;
    unsigned char *sb;
    cm5_sched_bcast_opts_t o = g->o;
    int rep, i;

    for (i = 0; i < P; i++) {
        displ[i] = sum;
        sum += w->len[i] + (gaps ? GAP : 0);
    }
    mine = w->len[me];
    sb = malloc(mine * esz + 1);
    o.discover = mode == 1;
    o.recv_capacity = cap / esz;
    for (rep = 0; rep < g->reps; rep++) {
        size_t k;

        for (k = 0; k < mine * esz; k++)
            sb[k] = pat(me, k, rep);
        memset(rb, 0xee, cap);
        if (mode == 0)
            memcpy(rc, w->len, (size_t)P * sizeof(size_t));
        else
            memset(rc, 0, (size_t)P * sizeof(size_t));
        cm5_sched_allgatherv(alg, sb, mine, rb, mode == 2 ? NULL : rc,
                             gaps ? displ : NULL, &o, st);
        if (mode == 1 && memcmp(rc, w->len, (size_t)P * sizeof(size_t)))
            CMMD_error("prog_bcast %s: node %d: discovered counts differ\n",
                       what, me);
        if (!gaps)
            for (i = 0, sum = 0; i < P; i++) {
                displ[i] = sum;
                sum += w->len[i];
            }
        check(g, w, rb, displ, cap, rep, what);
    }
    free(sb);
    free(rc);
    free(displ);
}

static void one_case(cfg_t *g, int r, int c, const char *alg_name,
                     const char *dist)
{
    char spec[256], err[256], what[384];
    cm5_workload_bcast_t w;
    cm5_sched_bcast_t alg;
    cm5_sched_stats_t st;
    size_t cap = 0, total = 0;
    unsigned char *rb;
    int i, mode = g->cases % 3, gaps = mode == 0 && g->cases % 4 == 3;
    unsigned long msgs, bytes;

    if (cm5_sched_bcast_parse(alg_name, &alg) != CM5_OK)
        CMMD_error("prog_bcast: unknown algorithm '%s'\n", alg_name);
    snprintf(spec, sizeof(spec), "%s%sL=%s", dist,
             strchr(dist, ':') ? "," : ":", g->L);
    if (cm5_workload_bcast_make(spec, r, c, g->seed, &w, err, sizeof(err)))
        CMMD_error("prog_bcast: %s\n", err);
    for (i = 0; i < P; i++) {
        cap += (w.len[i] + GAP) * g->o.elem_size;
        total += w.len[i] * g->o.elem_size;
    }
    rb = malloc(cap + 1);
    snprintf(what, sizeof(what), "%s on %dx%d %s", alg_name, r, c, spec);
    g->o.mesh_r = r;
    g->o.mesh_c = c;
    call(g, alg, &w, mode, gaps, rb, cap, what, &st);
    msgs = CMMD_reduce_luint(st.msgs_recv, CMMD_combiner_add);
    bytes = CMMD_reduce_luint(st.bytes_recv, CMMD_combiner_add);
    if (me == 0)
        printf("case alg=%s mesh=%dx%d dist=%s s=%d total=%zu iters=%u "
               "msgs=%lu bytes=%lu maxlen=%llu stage0=%u stage1=%u "
               "stage2=%u\n",
               alg_name, r, c, dist, w.sources, total, st.phases, msgs, bytes,
               (unsigned long long)(st.stage[0].max_msg_elems >
                                            st.stage[1].max_msg_elems
                                        ? st.stage[0].max_msg_elems
                                        : st.stage[1].max_msg_elems),
               st.stage[0].steps, st.stage[1].steps, st.stage[2].steps);
    g->cases++;
    free(rb);
    cm5_workload_bcast_free(&w);
}

/* The next item of a list separated by sep, into buf; NULL at the end. */
static const char *next_item(const char *s, char sep, char *buf, size_t n)
{
    const char *e;

    if (!s || !*s)
        return NULL;
    e = strchr(s, sep);
    snprintf(buf, n, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
    return e ? e + 1 : s + strlen(s);
}

static void run_all(cfg_t *g)
{
    char mesh[32], alg[32], dist[128], err[256];
    const char *m = g->meshes, *a, *d;
    int r, c;

    while ((m = next_item(m, ',', mesh, sizeof(mesh)))) {
        if (!strcmp(mesh, "default"))
            cm5_sched_mesh_default(P, &r, &c);
        else if (cm5_sched_mesh_parse(mesh, P, &r, &c, err, sizeof(err)))
            CMMD_error("prog_bcast: %s\n", err);
        for (d = g->dists; (d = next_item(d, ';', dist, sizeof(dist)));)
            for (a = g->algs; (a = next_item(a, ',', alg, sizeof(alg)));)
                one_case(g, r, c, alg, dist);
    }
}

/* One bad call; the library stops the job. */
static void bad(const char *what, cfg_t *g)
{
    unsigned char buf[64] = {0};
    size_t rc[1024] = {0};
    char err[256];
    cm5_workload_bcast_t w;

    if (!strncmp(what, "mesh", 4)) { /* mesh[:ALG[:RxC]] */
        char name[32] = "br_lin";
        cm5_sched_bcast_t alg;

        g->o.mesh_r = 3;
        g->o.mesh_c = P / 3 + 1;
        sscanf(what, "mesh:%31[^:]:%dx%d", name, &g->o.mesh_r, &g->o.mesh_c);
        if (cm5_sched_bcast_parse(name, &alg) != CM5_OK)
            CMMD_error("prog_bcast: unknown algorithm '%s'\n", name);
        cm5_sched_allgatherv(alg, buf, 1, buf, NULL, NULL, &g->o, NULL);
    } else if (!strcmp(what, "negative")) {
        cm5_sched_allgatherv(CM5_SCHED_BC_XOR, buf, (size_t)-5, buf, rc, NULL,
                             &g->o, NULL);
    } else if (!strcmp(what, "count")) {
        rc[me] = 2; /* but sends 1 */
        cm5_sched_allgatherv(CM5_SCHED_BC_BR_LIN, buf, 1, buf, rc, NULL, &g->o,
                             NULL);
    } else if (!strncmp(what, "workload:", 9)) {
        int r, c;

        cm5_sched_mesh_default(P, &r, &c);
        if (cm5_workload_bcast_make(what + 9, r, c, 1, &w, err, sizeof(err)))
            CMMD_error("prog_bcast: %s\n", err);
    }
    CMMD_error("prog_bcast: the bad case '%s' went through\n", what);
}

int main(int argc, char **argv)
{
    cfg_t g = {"default",
               "br_lin,br_xy_source,br_xy_dim,xor,2step,repos,part_lin,"
               "part_xy_source,auto",
               "row:s=3;col:s=3;dr:s=3;dl:s=3;equal:s=3;cross:s=3;block:s=3;"
               "band:s=3;random:s=3",
               "1:200",
               1,
               1,
               {0},
               0};
    char err[256];
    int i;

    P = CMMD_partition_size();
    me = CMMD_self_address();
    cm5_sched_bcast_opts_init(&g.o);
    for (i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";

        if (!strcmp(argv[i], "--mesh"))
            g.meshes = v;
        else if (!strcmp(argv[i], "--algs"))
            g.algs = v;
        else if (!strcmp(argv[i], "--dists"))
            g.dists = v;
        else if (!strcmp(argv[i], "--L"))
            g.L = v;
        else if (!strcmp(argv[i], "--seed"))
            g.seed = strtoull(v, NULL, 0);
        else if (!strcmp(argv[i], "--reps"))
            g.reps = atoi(v);
        else if (!strcmp(argv[i], "-o")) {
            if (cm5_sched_bcast_opts_set(&g.o, v, err, sizeof(err)))
                CMMD_error("prog_bcast: %s\n", err);
        } else if (!strcmp(argv[i], "--bad"))
            bad(v, &g);
        else
            CMMD_error("prog_bcast: unknown argument '%s'\n", argv[i]);
        i++;
    }
    run_all(&g);
    CMMD_sync_with_nodes();
    if (me == 0)
        printf("ok cases=%d\n", g.cases);
    return 0;
}
