/*
 * cm5sched's runs of the personalized family (<cm5/sched.h>
 * cm5_sched_alltoallv on <cm5/workload.h> matrices): the data pattern
 * every byte is checked against, one point (a matrix at one message
 * unit), one verified run, and what a run reduces over the nodes.
 */
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

/* ---- data pattern ----------------------------------------------------- */

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

void fill(unsigned char *b, size_t n, uint64_t key)
{
    size_t k;
    uint64_t w = 0;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        b[k] = (unsigned char)(w >> (8 * (k & 7)));
    }
}

/* Offset of the first wrong byte, or n. */
size_t check(const unsigned char *b, size_t n, uint64_t key,
                    unsigned char *want)
{
    size_t k;
    uint64_t w = 0;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        if (b[k] != (unsigned char)(w >> (8 * (k & 7)))) {
            *want = (unsigned char)(w >> (8 * (k & 7)));
            return k;
        }
    }
    return n;
}

/* ---- one point ---------------------------------------------------------- */

typedef struct {
    const args_t *a;
    point_info_t info;
    const cm5_workload_t *w;
    int matrix;
    size_t unit;
    size_t *sc, *rc, *want_rc; /* counts in elements */
    size_t stot, rtot;         /* elements this node sends / receives */
    unsigned char *sb, *rb;
    size_t t; /* traffic bound of the matrix, units */
} point_t;

/* The largest number of units a node sends or receives. */
static size_t traffic(const cm5_workload_t *w)
{
    size_t t = 0;
    int i, j;

    for (i = 0; i < P; i++) {
        size_t r = 0, c = 0;

        for (j = 0; j < P; j++) {
            if (i != j) {
                r += w->com[(size_t)i * P + j];
                c += w->com[(size_t)j * P + i];
            }
        }
        t = r > t ? r : t;
        t = c > t ? c : t;
    }
    return t;
}

static void *point_new(const args_t *a, const void *wv, const char *wname,
                       int matrix, size_t unit, point_info_t *info)
{
    const cm5_workload_t *w = wv;
    size_t esz = w->elem_size * unit;
    point_t *pt = xcalloc(1, sizeof(*pt));
    int j;

    pt->a = a;
    pt->w = w;
    pt->matrix = matrix;
    pt->unit = unit;
    pt->sc = xcalloc((size_t)P * 3, sizeof(size_t));
    pt->rc = pt->sc + P;
    pt->want_rc = pt->rc + P;
    for (j = 0; j < P; j++) {
        pt->sc[j] = w->com[(size_t)me * P + j];
        pt->want_rc[j] = w->com[(size_t)j * P + me];
        pt->stot += pt->sc[j];
        pt->rtot += pt->want_rc[j];
    }
    pt->t = traffic(w);
    if ((pt->stot && esz > SIZE_MAX / pt->stot) ||
        (pt->rtot && esz > (SIZE_MAX - GUARD) / pt->rtot))
        CMMD_error("cm5sched: workload %s at size %zu: node %d's data "
                   "does not fit in memory",
                   w->name, unit, me);
    pt->sb = malloc(pt->stot * esz + 1);
    pt->rb = malloc(pt->rtot * esz + GUARD);
    if (!pt->sb || !pt->rb)
        CMMD_error("cm5sched: workload %s at size %zu: node %d cannot "
                   "allocate %zu + %zu bytes",
                   w->name, unit, me, pt->stot * esz, pt->rtot * esz);
    *info = (point_info_t){wname, matrix, w->seed, unit, w->elem_size, pt->t,
                           ""};
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
static size_t verify_unordered(const point_t *pt, const char *an, int rep,
                               uint64_t run, size_t esz)
{
    size_t own = pt->want_rc[me] * esz, n = pt->rtot * esz - own, off = 0, k;
    unsigned char want = 0, *exp = malloc(n + 1), *got = pt->rb + own;
    int j;

    k = check(pt->rb, own, pat_key(me, me, run), &want);
    if (k < own)
        CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep %d: "
                   "node %d: byte %zu of its own records (first, with "
                   "a4_unordered=1) is 0x%02x, not 0x%02x",
                   an, pt->w->name, pt->unit, pt->matrix, rep, me, k, pt->rb[k],
                   want);
    if (!exp)
        CMMD_error("cm5sched: node %d cannot allocate %zu bytes", me, n);
    for (j = 0; j < P; j++) {
        if (j == me)
            continue;
        fill(exp + off, pt->want_rc[j] * esz, pat_key(j, me, run));
        off += pt->want_rc[j] * esz;
    }
    rec_size = esz;
    qsort(exp, n / esz, esz, rec_cmp);
    qsort(got, n / esz, esz, rec_cmp);
    for (k = 0; k < n && got[k] == exp[k]; k++)
        ;
    if (k < n)
        CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep %d: "
                   "node %d: the records received (a4_unordered=1) are not "
                   "those sent to it: sorted record %zu differs at byte %zu",
                   an, pt->w->name, pt->unit, pt->matrix, rep, me, k / esz,
                   k % esz);
    free(exp);
    return own + n;
}

static void verify(const point_t *pt, cm5_sched_alg_t alg, int rep,
                   uint64_t run, size_t esz)
{
    const char *an = cm5_sched_alg_name(alg);
    size_t off = 0, k;
    unsigned char want = 0;
    int j, unordered = alg == CM5_SCHED_A4 && pt->a->o.a4_unordered;

    for (j = 0; j < P; j++) {
        size_t n;

        if (pt->rc[j] != pt->want_rc[j])
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: node %d: recvcounts[%d] is %zu, not %zu",
                       an, pt->w->name, pt->unit, pt->matrix, rep, me, j,
                       pt->rc[j], pt->want_rc[j]);
        if (unordered)
            continue;
        n = pt->want_rc[j] * esz;
        k = check(pt->rb + off, n, pat_key(j, me, run), &want);
        if (k < n)
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: byte %zu from node %d to node %d is 0x%02x, not "
                       "0x%02x",
                       an, pt->w->name, pt->unit, pt->matrix, rep, k, j, me,
                       pt->rb[off + k], want);
        off += n;
    }
    if (unordered)
        off = verify_unordered(pt, an, rep, run, esz);
    for (k = 0; k < GUARD; k++)
        if (pt->rb[off + k] != GUARD_BYTE)
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: node %d: byte %zu past the received data was "
                       "overwritten",
                       an, pt->w->name, pt->unit, pt->matrix, rep, me, k);
}

/* CM5SCHED_TEST_CORRUPT=NODE:OFFSET flips one received byte on NODE
 * after every call, so that the tests can see verification fail. */
void corrupt(unsigned char *rb, size_t n)
{
    const char *v = getenv("CM5SCHED_TEST_CORRUPT");
    unsigned long long off;
    int node;

    if (!v || sscanf(v, "%d:%llu", &node, &off) != 2 || node != me)
        return;
    if (off < n)
        rb[off] ^= 0x40;
}

static void run(void *p, int alg, int rep, uint64_t run, result_t *r)
{
    const point_t *pt = p;
    const args_t *a = pt->a;
    cm5_sched_opts_t o = a->o;
    cm5_sched_stats_t st;
    size_t esz = pt->w->elem_size * pt->unit, off = 0;
    int j;

    for (j = 0; j < P; j++) {
        fill(pt->sb + off, pt->sc[j] * esz, pat_key(me, j, run));
        off += pt->sc[j] * esz;
    }
    memset(pt->rb, GUARD_BYTE, pt->rtot * esz + GUARD);
    if (o.recv == CM5_SCHED_RECV_GIVEN)
        memcpy(pt->rc, pt->want_rc, (size_t)P * sizeof(size_t));
    else {
        memset(pt->rc, 0xff, (size_t)P * sizeof(size_t)); /* discovered */
        o.recv_capacity = pt->rtot;
    }
    o.elem_size = esz;
    if (!a->seed_given) /* a fresh schedule seed per matrix and rep */
        o.seed = mix(a->seed ^ mix((uint64_t)pt->matrix << 20 ^ (uint64_t)rep));

    CMMD_sync_with_nodes(); /* everyone starts together */
    cm5_sched_alltoallv((cm5_sched_alg_t)alg, pt->sb, pt->sc, NULL, pt->rb,
                        pt->rc, NULL, &o, &st);
    corrupt(pt->rb, pt->rtot * esz);
    verify(pt, (cm5_sched_alg_t)alg, rep, run, esz);
    reduce_result(r, &st);
}

/* What every node measured, reduced into r on every node. */
void reduce_result(result_t *r, const cm5_sched_stats_t *stp)
{
    cm5_sched_stats_t st = *stp;
    int s, n = 0;

    r->d[0] = st.total_s;
    r->d[1] = st.comm_s;
    r->d[2] = st.sched_s;
    r->d[3] = st.recv_s;
    r->d[4] = st.gather_s;
    r->d[5] = st.recv_s + st.gather_s;
    r->d[6] = st.copy_s;
    r->u[n++] = st.phases;
    r->u[n++] = st.max_concurrent_in;
    r->u[n++] = st.nstages;
    for (s = 0; s < CM5_SCHED_MAX_STAGES; s++) {
        r->u[n++] = st.stage[s].steps;
        r->u[n++] = st.stage[s].msgs_recv;
        r->u[n++] = st.stage[s].max_msg_elems;
    }
    r->s[0] = st.msgs_sent;
    r->s[1] = st.bytes_sent;
    r->s[2] = st.msgs_recv;
    r->s[3] = st.bytes_recv;
    r->s[4] = st.inquiries;
    r->s[5] = st.denials;
    r->buf[0] = st.sbuf_elems;
    r->buf[1] = st.rbuf_elems;
    CMMD_reduce_v(r->d, r->d, CMMD_combiner_dmax, sizeof(double), 7);
    CMMD_reduce_v(r->u, r->u, CMMD_combiner_umax, sizeof(uint64_t), NU);
    CMMD_reduce_v(r->s, r->s, CMMD_combiner_uadd, sizeof(uint64_t), NS);
    CMMD_reduce_v(r->buf, r->buf, CMMD_combiner_umax, sizeof(uint64_t), 2);
}

/* ---- the family --------------------------------------------------------- */

static const char *alg_name(int alg)
{
    return cm5_sched_alg_name((cm5_sched_alg_t)alg);
}

static int work_make(const args_t *a, const char *spec, uint64_t seed,
                     void **wp, point_info_t *pi, char *err, size_t errlen)
{
    cm5_workload_t *w = xcalloc(1, sizeof(*w));

    if (cm5_workload_make(spec, P, seed, w, err, errlen) != CM5_OK) {
        free(w);
        return -1;
    }
    (void)a;
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
    cm5_workload_free(w);
    free(w);
}

const family_t personalized = {NULL, alg_name, work_make, work_free,
                               point_new, point_free, run};
