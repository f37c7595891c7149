/*
 * cm5sched's personalized family (--alg: cm5_sched_alltoallv on
 * <cm5/workload.h> matrices): its options, one point (a matrix at one
 * message unit), one verified run; and what both families share: the
 * data pattern every byte is checked against, the checks, the results.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

/* ---- data pattern and checks (both families) ---------------------------- */

uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Byte k of the data node src sends node dst in run number run: a
 * different pattern for every pair and every run, so that stale data of
 * an earlier run or another pair never passes. */
uint64_t pat_key(int src, int dst, uint64_t run)
{
    return mix(((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) ^
               mix(run + 0x5bd1e995ULL));
}

/* b[0..n) as the pattern of key; with check, the first byte that
 * differs from it (n if none), its expected value in *want. */
static size_t pattern(unsigned char *b, size_t n, uint64_t key, int check,
                      unsigned char *want)
{
    size_t k;
    uint64_t w = 0;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        *want = (unsigned char)(w >> (8 * (k & 7)));
        if (!check)
            b[k] = *want;
        else if (b[k] != *want)
            break;
    }
    return k;
}

void cs_fill(unsigned char *b, size_t n, uint64_t key)
{
    unsigned char w;

    pattern(b, n, key, 0, &w);
}

/* b holds n bytes of key's pattern; what (a format of x and y) names
 * them in the error. */
void check_data(const char *where, const unsigned char *b, size_t n,
                uint64_t key, const char *what, int x, int y)
{
    unsigned char want;
    size_t k = pattern((unsigned char *)b, n, key, 1, &want);
    char w[128];

    if (k == n)
        return;
    snprintf(w, sizeof(w), what, x, y);
    CMMD_error("cm5sched: %s: byte %zu %s is 0x%02x, not 0x%02x", where, k, w,
               b[k], want);
}

void check_counts(const char *where, const size_t *rc, const size_t *want)
{
    int j;

    for (j = 0; j < cs_nodes; j++)
        if (rc[j] != want[j])
            CMMD_error("cm5sched: %s: node %d: recvcounts[%d] is %zu, not %zu",
                       where, cs_self, j, rc[j], want[j]);
}

/* g: the GUARD bytes just past the received data. */
void check_guard(const char *where, const unsigned char *g)
{
    int k;

    for (k = 0; k < GUARD; k++)
        if (g[k] != GUARD_BYTE)
            CMMD_error("cm5sched: %s: node %d: byte %d past the received data "
                       "was overwritten",
                       where, cs_self, k);
}

/* CM5SCHED_TEST_CORRUPT=NODE:OFFSET flips one received byte on NODE
 * after every call, so that the tests can see verification fail. */
void corrupt(unsigned char *rb, size_t n)
{
    const char *v = getenv("CM5SCHED_TEST_CORRUPT");
    unsigned long long off;
    int node;

    if (v && sscanf(v, "%d:%llu", &node, &off) == 2 && node == cs_self &&
        off < n)
        rb[off] ^= 0x40;
}

/* What every node measured, reduced into r on every node. */
void reduce_result(result_t *r, const cm5_sched_stats_t *stp)
{
    cm5_sched_stats_t st = *stp;
    int s, n = 3;

    memcpy(r->d,
           (double[7]){st.total_s, st.comm_s, st.sched_s, st.recv_s,
                       st.gather_s, st.recv_s + st.gather_s, st.copy_s},
           sizeof(r->d));
    memcpy(r->u, (uint64_t[3]){st.phases, st.max_concurrent_in, st.nstages},
           3 * sizeof(uint64_t));
    for (s = 0; s < CM5_SCHED_MAX_STAGES; s++) {
        r->u[n++] = st.stage[s].steps;
        r->u[n++] = st.stage[s].msgs_recv;
        r->u[n++] = st.stage[s].max_msg_elems;
    }
    memcpy(r->s,
           (uint64_t[NS]){st.msgs_sent, st.bytes_sent, st.msgs_recv,
                          st.bytes_recv, st.inquiries, st.denials},
           sizeof(r->s));
    r->buf[0] = st.sbuf_elems;
    r->buf[1] = st.rbuf_elems;
    CMMD_reduce_v(r->d, r->d, CMMD_combiner_dmax, sizeof(double), 7);
    CMMD_reduce_v(r->u, r->u, CMMD_combiner_umax, sizeof(uint64_t), NU);
    CMMD_reduce_v(r->s, r->s, CMMD_combiner_uadd, sizeof(uint64_t), NS);
    CMMD_reduce_v(r->buf, r->buf, CMMD_combiner_umax, sizeof(uint64_t), 2);
}

/* ---- one point ---------------------------------------------------------- */

typedef struct {
    const args_t *a;
    const cm5_workload_t *w;
    int matrix;
    size_t unit, esz;          /* esz: bytes per element */
    size_t *sc, *rc, *want_rc; /* counts in elements */
    size_t stot, rtot;         /* elements this node sends / receives */
    unsigned char *sb, *rb;
} point_t;

static void *point_new(const args_t *a, const void *wv, const char *wname,
                       int matrix, size_t unit, point_info_t *info)
{
    const cm5_workload_t *w = wv;
    size_t esz = w->elem_size * unit;
    point_t *pt = xcalloc(1, sizeof(*pt));
    uint64_t t[1];
    int j;

    *pt = (point_t){.a = a, .w = w, .matrix = matrix, .unit = unit, .esz = esz};
    pt->sc = xcalloc((size_t)cs_nodes * 3, sizeof(size_t));
    pt->rc = pt->sc + cs_nodes;
    pt->want_rc = pt->rc + cs_nodes;
    for (j = 0; j < cs_nodes; j++) {
        pt->stot += pt->sc[j] = w->com[(size_t)cs_self * cs_nodes + j];
        pt->rtot += pt->want_rc[j] = w->com[(size_t)j * cs_nodes + cs_self];
    }
    /* The traffic bound: the most units a node sends or receives. */
    t[0] = pt->stot > pt->rtot ? pt->stot : pt->rtot;
    t[0] -= w->com[(size_t)cs_self * cs_nodes + cs_self];
    CMMD_reduce_v(t, t, CMMD_combiner_umax, sizeof(uint64_t), 1);
    if ((pt->stot && esz > SIZE_MAX / pt->stot) ||
        (pt->rtot && esz > (SIZE_MAX - GUARD) / pt->rtot))
        CMMD_error("cm5sched: workload %s at size %zu: node %d's data "
                   "does not fit in memory",
                   w->name, unit, cs_self);
    pt->sb = malloc(pt->stot * esz + 1);
    pt->rb = malloc(pt->rtot * esz + GUARD);
    if (!pt->sb || !pt->rb)
        CMMD_error("cm5sched: workload %s at size %zu: node %d cannot "
                   "allocate %zu + %zu bytes",
                   w->name, unit, cs_self, pt->stot * esz, pt->rtot * esz);
    *info =
        (point_info_t){wname, matrix, w->seed, unit, w->elem_size, t[0], ""};
    return pt;
}

static void point_free(void *p)
{
    point_t *pt = p;

    free(pt->sc);
    free(pt->sb);
    free(pt->rb);
    free(pt);
}

static size_t rec_size; /* for rec_cmp */

static int rec_cmp(const void *x, const void *y)
{
    return memcmp(x, y, rec_size);
}

/* a4_unordered=1: this node's own records first, then, in any order,
 * exactly the records (elements) the others sent it: compared as sorted
 * lists.  Returns the bytes checked. */
static size_t verify_unordered(const point_t *pt, const char *where,
                               uint64_t run)
{
    size_t esz = pt->esz, own = pt->want_rc[cs_self] * esz;
    size_t n = pt->rtot * esz - own, off = 0, k;
    unsigned char *exp = xcalloc(n + 1, 1), *got = pt->rb + own;
    char at[320];
    int j;

    snprintf(at, sizeof(at), "%s: node %d", where, cs_self);
    check_data(at, pt->rb, own, pat_key(cs_self, cs_self, run),
               "of its own records (first, with a4_unordered=1)", 0, 0);
    for (j = 0; j < cs_nodes; j++)
        if (j != cs_self) {
            cs_fill(exp + off, pt->want_rc[j] * esz, pat_key(j, cs_self, run));
            off += pt->want_rc[j] * esz;
        }
    rec_size = esz;
    qsort(exp, n / esz, esz, rec_cmp);
    qsort(got, n / esz, esz, rec_cmp);
    for (k = 0; k < n && got[k] == exp[k]; k++)
        ;
    if (k < n)
        CMMD_error("cm5sched: %s: the records received (a4_unordered=1) are "
                   "not those sent to it: sorted record %zu differs at byte "
                   "%zu",
                   at, k / esz, k % esz);
    free(exp);
    return own + n;
}

static void verify(const point_t *pt, int alg, int rep, uint64_t run)
{
    size_t off = 0, n;
    char where[256];
    int j;

    snprintf(where, sizeof(where),
             "%s, workload %s, size %zu, matrix %d, "
             "rep %d",
             cm5_sched_alg_name(alg), pt->w->name, pt->unit, pt->matrix, rep);
    check_counts(where, pt->rc, pt->want_rc);
    if (alg == CM5_SCHED_A4 && pt->a->o.a4_unordered)
        off = verify_unordered(pt, where, run);
    else
        for (j = 0; j < cs_nodes; j++, off += n) {
            n = pt->want_rc[j] * pt->esz;
            check_data(where, pt->rb + off, n, pat_key(j, cs_self, run),
                       "from node %d to node %d", j, cs_self);
        }
    check_guard(where, pt->rb + off);
}

static void run(void *p, int alg, int rep, uint64_t run, result_t *r)
{
    const point_t *pt = p;
    cm5_sched_opts_t o = pt->a->o;
    cm5_sched_stats_t st;
    size_t esz = pt->esz, off = 0;
    int j;

    for (j = 0; j < cs_nodes; off += pt->sc[j++] * esz)
        cs_fill(pt->sb + off, pt->sc[j] * esz, pat_key(cs_self, j, run));
    memset(pt->rb, GUARD_BYTE, pt->rtot * esz + GUARD);
    memcpy(pt->rc, pt->want_rc, (size_t)cs_nodes * sizeof(size_t));
    if (o.recv != CM5_SCHED_RECV_GIVEN) { /* discovered */
        memset(pt->rc, 0xff, (size_t)cs_nodes * sizeof(size_t));
        o.recv_capacity = pt->rtot;
    }
    o.elem_size = esz;
    if (!pt->a->seed_given) /* a fresh schedule seed per matrix and rep */
        o.seed =
            mix(pt->a->seed ^ mix((uint64_t)pt->matrix << 20 ^ (uint64_t)rep));
    CMMD_sync_with_nodes(); /* everyone starts together */
    cm5_sched_alltoallv(alg, pt->sb, pt->sc, NULL, pt->rb, pt->rc, NULL, &o,
                        &st);
    corrupt(pt->rb, pt->rtot * esz);
    verify(pt, alg, rep, run);
    reduce_result(r, &st);
}

/* ---- the family --------------------------------------------------------- */

static const char *alg_name(int alg) { return cm5_sched_alg_name(alg); }

static int is_square(int n)
{
    int r = (int)lround(sqrt((double)n));

    return r * r == n;
}

/* One name of --alg's list; "all" leaves A3 out unless P is square. */
static void add_algs(args_t *a, const char *tok)
{
    cm5_sched_alg_t alg;
    int k;

    if (strcmp(tok, "all") == 0) {
        for (k = 0; k < CM5_SCHED_NALGS; k++)
            if (k != CM5_SCHED_A3 || is_square(cs_nodes))
                add_alg(a, k);
    } else if (cm5_sched_alg_parse(tok, &alg) != CM5_OK)
        usage_error("--alg: unknown algorithm '%s'", tok);
    else if (alg == CM5_SCHED_A3 && !is_square(cs_nodes))
        usage_error("--alg: a3 needs a square number of nodes, not %d",
                    cs_nodes);
    else
        add_alg(a, (int)alg);
}

static void opt(args_t *a, const char *setting)
{
    char err[256];

    /* The driver owns these: the sizes and the discovered receive sizes
     * set them for every run. */
    if (strncmp(setting, "elem_size=", 10) == 0)
        usage_error("-o %s: the element size comes from --sizes and the "
                    "workload",
                    setting);
    if (strncmp(setting, "recv_capacity=", 14) == 0)
        usage_error("-o %s: cm5sched sets the receive capacity", setting);
    if (cm5_sched_opts_set(&a->o, setting, err, sizeof(err)) != CM5_OK)
        usage_error("-o: %s", err);
    a->seed_given |= strncmp(setting, "seed=", 5) == 0;
}

static void setup(args_t *a)
{
    if (a->mesh)
        usage_error("--mesh %s: the mesh is for --bcast", a->mesh);
    if (a->nalg == 0)
        add_alg(a, CM5_SCHED_RSN);
    if (a->nwork == 0)
        a->work[a->nwork++] = "density:d=4";
}

static void help(void)
{
    print_names("Algorithms:", alg_name, CM5_SCHED_NALGS);
    printf("\nWorkloads (--workload):\n");
    print_lines(cm5_workload_help(), "", 2);
    printf("\nAlgorithm options (-o):\n");
    print_lines(cm5_sched_opts_help(), "", 0);
}

static int work_make(const args_t *a, const char *spec, uint64_t seed,
                     void **wp, point_info_t *pi, char *err, size_t errlen)
{
    shared_wl_t *s = xcalloc(1, sizeof(*s));
    cm5_workload_t *w = &s->w;

    if (share_workload(spec, seed, s, err, errlen) != 0) {
        free(s);
        return -1;
    }
    if (cs_self == 0 && a->progress) {
        fprintf(stderr,
                "[matrix] %s, seed %" PRIu64 ": built by %" PRIu64
                " node(s), mapped by %" PRIu64 ", private copies %" PRIu64 "\n",
                spec, seed, s->how[0], s->how[1], s->how[2]);
        fflush(stderr);
    }
    if (!w->name[0])
        snprintf(w->name, sizeof(w->name), "%s", spec);
    if (!w->elem_size)
        w->elem_size = 1;
    pi->wname = w->name;
    pi->elem = w->elem_size;
    *wp = w;
    return 0;
}

static void work_free(void *w)
{
    share_free(w);
    free(w);
}

const family_t personalized = {NULL,      alg_name,   add_algs,  opt,
                               setup,     help,       work_make, work_free,
                               point_new, point_free, run};
