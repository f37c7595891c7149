/*
 * The papers' workloads (ALGORITHMS.md section 5): spec parsing and the
 * generated matrices.  csv: is in workload_csv.c, mesh: in
 * workload_mesh.c.
 *
 * Every generator draws from cm5s_rng with the caller's seed and a
 * stream of its own, so every node that asks for the same (spec, p,
 * seed) gets the same matrix.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"
#include "workload_internal.h"

/* Upper bound of a size parameter: 2^40, or LONG_MAX where long has 32
 * bits (the 32-bit build of legacy mode). */
#if LONG_MAX > 0x7fffffffL
#define WL_MAX_SIZE (1L << 40)
#else
#define WL_MAX_SIZE LONG_MAX
#endif

#define AT(w, i, j) ((w)->com[(size_t)(i) * (size_t)(w)->nodes + (size_t)(j)])

static cm5_status_t wl_alloc(cm5s_wl_args_t *a, cm5_workload_t *w)
{
    w->com = calloc((size_t)w->nodes * (size_t)w->nodes, sizeof(size_t));
    if (!w->com)
        return cm5s_wl_fail(a, "out of memory for a %d x %d matrix", w->nodes,
                            w->nodes);
    return CM5_OK;
}

/* ---- test sets 1 and 2 (wang1993): exactly d per row and column ------- */

/* Kuhn's augmenting path from row i, columns in random order; free[] are
 * the entries still allowed. */
static int wl_augment(int p, int i, const unsigned char *free_, int *match,
                      unsigned char *seen, const int *order)
{
    int c, k;

    for (c = 0; c < p; c++) {
        k = order[(size_t)i * p + c];
        if (!free_[(size_t)i * p + k] || seen[k])
            continue;
        seen[k] = 1;
        if (match[k] < 0 ||
            wl_augment(p, match[k], free_, match, seen, order)) {
            match[k] = i;
            return 1;
        }
    }
    return 0;
}

/* d edge-disjoint random derangements, each a random perfect matching in
 * what is left of the bipartite graph.  What is left is (p-1-m)-regular
 * after m of them, so a perfect matching always exists (Koenig) and
 * Kuhn's algorithm, which finds a maximum one, never fails. */
static cm5_status_t wl_derangements(cm5s_wl_args_t *a, cm5s_rng_t *r, int d,
                                    cm5_workload_t *w)
{
    int p = w->nodes, m, i, k;
    unsigned char *free_ = malloc((size_t)p * p), *seen = malloc((size_t)p);
    int *match = malloc(sizeof(int) * p), *rows = malloc(sizeof(int) * p);
    int *order = malloc(sizeof(int) * (size_t)p * p);
    cm5_status_t rc = CM5_OK;

    if (!free_ || !seen || !match || !rows || !order) {
        rc = cm5s_wl_fail(a, "out of memory");
        goto out;
    }
    for (i = 0; i < p; i++)
        for (k = 0; k < p; k++)
            free_[(size_t)i * p + k] = i != k;
    for (m = 0; m < d; m++) {
        for (i = 0; i < p; i++) {
            rows[i] = i;
            match[i] = -1;
            for (k = 0; k < p; k++)
                order[(size_t)i * p + k] = k;
            cm5s_rng_shuffle(r, order + (size_t)i * p, p);
        }
        cm5s_rng_shuffle(r, rows, p);
        for (i = 0; i < p; i++) {
            memset(seen, 0, (size_t)p);
            if (!wl_augment(p, rows[i], free_, match, seen, order)) {
                rc = cm5s_wl_fail(a, "no perfect matching (internal error)");
                goto out;
            }
        }
        for (k = 0; k < p; k++) {
            free_[(size_t)match[k] * p + k] = 0;
            AT(w, match[k], k) = 1;
        }
    }
out:
    free(order);
    free(rows);
    free(match);
    free(seen);
    free(free_);
    return rc;
}

/* d distinct offsets from 1..p-1, then one random relabelling. */
static void wl_circulant(cm5s_rng_t *r, int d, cm5_workload_t *w)
{
    int p = w->nodes, i, m;
    int *offs = malloc(sizeof(int) * p), *sig = malloc(sizeof(int) * p);

    for (i = 0; i < p; i++)
        offs[i] = sig[i] = i;
    cm5s_rng_shuffle(r, offs + 1, p - 1);
    cm5s_rng_shuffle(r, sig, p);
    for (i = 0; i < p; i++)
        for (m = 1; m <= d; m++)
            AT(w, sig[i], sig[(i + offs[m]) % p]) = 1;
    free(sig);
    free(offs);
}

static cm5_status_t wl_density(cm5s_wl_args_t *a, cm5s_rng_t *r, int nonuniform,
                               cm5_workload_t *w)
{
    const char *gen = cm5s_wl_str(a, "gen");
    int circ = 0;
    long d;
    size_t i;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "d", 0, 1L << 30, 0, 1, &d)) != CM5_OK)
        return rc;
    if (d >= w->nodes)
        return cm5s_wl_fail(a, "d=%ld must be less than p=%d", d, w->nodes);
    if (gen && (!strcmp(gen, "circulant") || !strcmp(gen, "circulant_relabel")))
        circ = 1;
    else if (gen && strcmp(gen, "derangements") &&
             strcmp(gen, "disjoint_derangements"))
        return cm5s_wl_fail(a, "gen=%s: expected derangements or circulant",
                            gen);
    if ((rc = cm5s_wl_leftover(a, "d, gen")) != CM5_OK ||
        (rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    if (circ)
        wl_circulant(r, (int)d, w);
    else if ((rc = wl_derangements(a, r, (int)d, w)) != CM5_OK)
        return rc;
    if (nonuniform)
        for (i = 0; i < (size_t)w->nodes * w->nodes; i++)
            if (w->com[i])
                w->com[i] = 1 + cm5s_rng_below(r, 32);
    snprintf(w->name, sizeof(w->name), "%s:d=%ld%s", a->kind, d,
             circ ? ",gen=circulant" : "");
    return CM5_OK;
}

/* ---- ranka1995's k/l generator ---------------------------------------- */

/* l as "h/k", "a/b" or a decimal; *h = l * k, which must be an integer
 * with 1 <= h <= k - 1. */
static cm5_status_t wl_heavy(cm5s_wl_args_t *a, long k, long *h)
{
    const char *s = cm5s_wl_str(a, "l");
    char *end;
    double l, x;

    if (!s)
        return cm5s_wl_fail(a, "kl needs l=L (skew, e.g. l=1/32)");
    errno = 0;
    l = strtod(s, &end);
    if (*end == '/') {
        const char *den = end + 1;
        double b = strtod(den, &end);

        if (end == den || b <= 0)
            return cm5s_wl_fail(a, "l=%s is not a fraction", s);
        l /= b;
    }
    if (end == s || *end || errno || !(l > 0 && l < 1))
        return cm5s_wl_fail(a, "l=%s must be a number in (0, 1)", s);
    x = l * (double)k;
    *h = lround(x);
    if (fabs(x - (double)*h) > 1e-9 * (double)k)
        return cm5s_wl_fail(a, "l*k = %s*%ld is not an integer", s, k);
    if (*h < 1 || *h > k - 1)
        return cm5s_wl_fail(a, "l*k and (1-l)*k must both be at least 1");
    return CM5_OK;
}

static long wl_gcd(long x, long y)
{
    while (y) {
        long t = x % y;

        x = y;
        y = t;
    }
    return x;
}

/* Offsets o (distinct, 0 only when k = p) with sizes: h heavy ones share
 * (1-l) t, k-h light ones share l t, remainders to the first few.  The
 * circulant makes every row and every column sum to exactly t. */
static cm5_status_t wl_kl(cm5s_wl_args_t *a, cm5s_rng_t *r, cm5_workload_t *w)
{
    long k, h = 0, t, rel, s, th, tl, m;
    int p = w->nodes, i, *offs, *sig, *o;
    size_t *size;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "k", 1, p, 0, 1, &k)) != CM5_OK ||
        (rc = wl_heavy(a, k, &h)) != CM5_OK ||
        (rc = cm5s_wl_int(a, "t", 1, WL_MAX_SIZE, 65536, 0, &t)) != CM5_OK ||
        (rc = cm5s_wl_int(a, "relabel", 0, 1, 0, 0, &rel)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "k, l, t, relabel")) != CM5_OK)
        return rc;
    s = k - h;
    th = (long)((double)t * (double)s / (double)k + 0.5);
    tl = t - th;
    if (th < h || tl < s)
        return cm5s_wl_fail(a,
                            "t=%ld is too small: every message needs at "
                            "least one unit",
                            t);
    if ((rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    offs = malloc(sizeof(int) * p);
    sig = malloc(sizeof(int) * p);
    size = calloc((size_t)p, sizeof(size_t));
    for (i = 0; i < p; i++)
        offs[i] = sig[i] = i;
    /* k distinct offsets from 1..p-1 (all of 0..p-1 when k = p), the
     * heavy ones first: never offset 0 when k = p. */
    cm5s_rng_shuffle(r, offs + 1, p - 1);
    o = offs + 1;
    if (k == p) {
        offs[0] = offs[p - 1];
        offs[p - 1] = 0;
        o = offs;
    }
    for (m = 0; m < h; m++)
        size[o[m]] = (size_t)(th / h + (m < th % h));
    for (m = 0; m < s; m++)
        size[o[h + m]] = (size_t)(tl / s + (m < tl % s));
    if (rel)
        cm5s_rng_shuffle(r, sig, p);
    for (i = 0; i < p; i++)
        for (m = 0; m < k; m++)
            AT(w, sig[i], sig[(i + o[m]) % p]) = size[o[m]];
    free(size);
    free(sig);
    free(offs);
    m = wl_gcd(h, k);
    snprintf(w->name, sizeof(w->name), "kl:k=%ld,l=%ld/%ld,t=%ld%s", k, h / m,
             k / m, t, rel ? ",relabel=1" : "");
    return CM5_OK;
}

/* ---- liu2002's Pattern1 and Pattern2 ---------------------------------- */

/* A4's logical grid (ALGORITHMS.md 3.4.1): C = ceil(sqrt P), or
 * floor(sqrt P) when the incomplete row would be too long. */
static int wl_grid_cols(int p)
{
    int c = 1, r, rows;

    while (c * c < p)
        c++;
    rows = (p + c - 1) / c;
    r = p % c;
    if (r && r > rows - 1)
        c = (int)floor(sqrt((double)p) + 1e-9);
    return c;
}

static cm5_status_t wl_pattern(cm5s_wl_args_t *a, cm5s_rng_t *r, int two,
                               cm5_workload_t *w)
{
    long mmax, small, elem;
    int p = w->nodes, i, j, c = wl_grid_cols(w->nodes);
    char extra[96] = "";
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "m", 0, WL_MAX_SIZE, 1024, 0, &mmax)) != CM5_OK ||
        (rc = cm5s_wl_int(a, "small", 0, 1L << 30, 8, 0, &small)) != CM5_OK ||
        (rc = cm5s_wl_int(a, "elem", 1, 1L << 20, 48, 0, &elem)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "m, small, elem")) != CM5_OK)
        return rc;
    if (elem != 48 && elem != 22)
        return cm5s_wl_fail(a, "elem=%ld: liu2002 used 48 (T3D) or 22 (SP2)",
                            elem);
    if ((rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    for (i = 0; i < p; i++)
        for (j = 0; j < p; j++)
            AT(w, i, j) = cm5s_rng_below(r, (uint64_t)small + 1);
    for (i = 0; i < p; i++) {
        j = two ? (i % c) * c + i / c : (int)cm5s_rng_below(r, (uint64_t)p);
        if (j < p) /* [AMB-23]: the transpose of a non-square grid */
            AT(w, i, j) = (size_t)mmax;
    }
    w->elem_size = (size_t)elem;
    if (mmax != 1024)
        snprintf(extra, sizeof(extra), ",m=%ld", mmax);
    if (small != 8)
        snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
                 ",small=%ld", small);
    if (elem != 48)
        snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
                 ",elem=%ld", elem);
    snprintf(w->name, sizeof(w->name), "%s%s%s", a->kind, *extra ? ":" : "",
             *extra ? extra + 1 : "");
    return CM5_OK;
}

/* ---- simple test matrices --------------------------------------------- */

static cm5_status_t wl_random(cm5s_wl_args_t *a, cm5s_rng_t *r,
                              cm5_workload_t *w)
{
    long d, mx;
    int p = w->nodes, i, j;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "d", 0, p > 1 ? p - 1 : 0, p / 2, 0, &d)) !=
            CM5_OK ||
        (rc = cm5s_wl_int(a, "max", 1, WL_MAX_SIZE, 64, 0, &mx)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "d, max")) != CM5_OK ||
        (rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    /* Each off-diagonal entry is nonzero with probability d / (p-1). */
    for (i = 0; i < p; i++)
        for (j = 0; j < p; j++)
            if (i != j && cm5s_rng_below(r, (uint64_t)p - 1) < (uint64_t)d)
                AT(w, i, j) = 1 + cm5s_rng_below(r, (uint64_t)mx);
    snprintf(w->name, sizeof(w->name), "random:d=%ld,max=%ld", d, mx);
    return CM5_OK;
}

static cm5_status_t wl_hotspot(cm5s_wl_args_t *a, cm5_workload_t *w)
{
    long m;
    int i;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "m", 0, WL_MAX_SIZE, 1024, 0, &m)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "m")) != CM5_OK ||
        (rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    for (i = 1; i < w->nodes; i++)
        AT(w, i, 0) = (size_t)m;
    snprintf(w->name, sizeof(w->name), "hotspot:m=%ld", m);
    return CM5_OK;
}

/* wang1993 Table 2 (node contention): nodes 0..k-1 each send m to the
 * last node at the same time. */
static cm5_status_t wl_contention(cm5s_wl_args_t *a, cm5_workload_t *w)
{
    long k, m;
    int i;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "k", 0, w->nodes - 1, w->nodes - 1, 0, &k)) !=
            CM5_OK ||
        (rc = cm5s_wl_int(a, "m", 0, WL_MAX_SIZE, 1, 0, &m)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "k, m")) != CM5_OK ||
        (rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    for (i = 0; i < k; i++)
        AT(w, i, w->nodes - 1) = (size_t)m;
    snprintf(w->name, sizeof(w->name), "contention:k=%ld,m=%ld", k, m);
    return CM5_OK;
}

/* One message per node, to a random derangement of the nodes. */
static cm5_status_t wl_permutation(cm5s_wl_args_t *a, cm5s_rng_t *r,
                                   cm5_workload_t *w)
{
    long mx;
    int p = w->nodes, i, ok, *perm;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "max", 1, WL_MAX_SIZE, 1024, 0, &mx)) != CM5_OK ||
        (rc = cm5s_wl_leftover(a, "max")) != CM5_OK ||
        (rc = wl_alloc(a, w)) != CM5_OK)
        return rc;
    perm = malloc(sizeof(int) * p);
    do {
        for (i = 0; i < p; i++)
            perm[i] = i;
        cm5s_rng_shuffle(r, perm, p);
        for (ok = 1, i = 0; i < p && p > 1; i++)
            ok &= perm[i] != i;
    } while (!ok);
    for (i = 0; p > 1 && i < p; i++)
        AT(w, i, perm[i]) = 1 + cm5s_rng_below(r, (uint64_t)mx);
    free(perm);
    snprintf(w->name, sizeof(w->name), "permutation:max=%ld", mx);
    return CM5_OK;
}

/* ---- entry points ----------------------------------------------------- */

static const struct {
    const char *kind;
    int id;
} wl_kinds[] = {{"density", 1},  {"nonuniform", 2},  {"kl", 3},
                {"pattern1", 4}, {"pattern2", 5},    {"random", 6},
                {"hotspot", 7},  {"permutation", 8}, {"csv", 9},
                {"mesh", 10},    {"contention", 11}};

static cm5_status_t wl_make(cm5s_wl_args_t *a, int id, uint64_t seed,
                            cm5_workload_t *w)
{
    cm5s_rng_t r;
    cm5_status_t rc;

    cm5s_rng_seed(&r, seed, 0x3c7a0000u + (uint64_t)id);
    switch (id) {
    case 1:
    case 2:
        return wl_density(a, &r, id == 2, w);
    case 3:
        return wl_kl(a, &r, w);
    case 4:
    case 5:
        return wl_pattern(a, &r, id == 5, w);
    case 6:
        return wl_random(a, &r, w);
    case 7:
        return wl_hotspot(a, w);
    case 8:
        return wl_permutation(a, &r, w);
    case 9:
        return cm5s_wl_csv(a, w->nodes, w);
    case 11:
        return wl_contention(a, w);
    default:
        if (!*a->pos)
            return cm5s_wl_fail(a, "mesh needs a name (mesh:NAME)");
        rc = cm5s_wl_mesh(a, w->nodes, seed, w);
        return rc;
    }
}

cm5_status_t cm5_workload_make(const char *spec, int p, uint64_t seed,
                               cm5_workload_t *w, char *err, size_t errlen)
{
    cm5s_wl_args_t a;
    cm5_workload_t tmp;
    const char *colon;
    char kind[32];
    size_t n, i;
    int id = 0;
    cm5_status_t rc;

    memset(&a, 0, sizeof(a));
    a.spec = spec ? spec : "(null)";
    a.kind = kind;
    a.err = err;
    a.errlen = errlen;
    if (err && errlen)
        *err = 0;
    if (!spec || !w)
        return cm5s_wl_fail(&a, "no spec or no workload to fill");
    colon = strchr(spec, ':');
    n = colon ? (size_t)(colon - spec) : strlen(spec);
    snprintf(kind, sizeof(kind), "%.*s", (int)(n < 31 ? n : 31), spec);
    for (i = 0; i < sizeof(wl_kinds) / sizeof(wl_kinds[0]); i++)
        if (n == strlen(wl_kinds[i].kind) &&
            !strncmp(spec, wl_kinds[i].kind, n))
            id = wl_kinds[i].id;
    if (!id)
        return cm5s_wl_fail(&a, "unknown kind '%s' (see cm5_workload_help)",
                            kind);
    if (p < 1)
        return cm5s_wl_fail(&a, "p=%d must be at least 1", p);
    if (id == 9) {
        if (!colon || !colon[1])
            return cm5s_wl_fail(&a, "csv needs a file (csv:FILE)");
        if (strlen(colon + 1) >= sizeof(a.pos))
            return cm5s_wl_fail(&a, "file name too long");
        strcpy(a.pos, colon + 1);
    } else if ((rc = cm5s_wl_split(&a, colon ? colon + 1 : NULL, id == 10)) !=
               CM5_OK) {
        return rc;
    }
    memset(&tmp, 0, sizeof(tmp));
    tmp.nodes = p;
    tmp.elem_size = 1;
    tmp.seed = seed;
    if ((rc = wl_make(&a, id, seed, &tmp)) != CM5_OK) {
        free(tmp.com);
        return rc;
    }
    *w = tmp;
    return CM5_OK;
}

void cm5_workload_free(cm5_workload_t *w)
{
    if (!w)
        return;
    free(w->com);
    w->com = NULL;
}

const char *cm5_workload_help(void)
{
    return "density:d=N[,gen=derangements|circulant]  wang1993 test set 1: "
           "exactly N ones per row and column, off the diagonal\n"
           "nonuniform:d=N[,gen=...]  wang1993 test set 2: the same pattern, "
           "entries uniform on 1..32\n"
           "mesh:NAME[,halo=vertices|edges][,part=metis|grow][,ufactor=U]  "
           "wang1993 test set 3: halo exchange of a mesh (airfoil2800, "
           "airfoil9428, airfoil53961, copter2, or a METIS .graph path) cut "
           "into p parts by METIS or by greedy growing\n"
           "kl:k=K,l=L[,t=T][,relabel=1]  ranka1995: fan-out K, skew L "
           "(l*k heavy messages carry (1-l) t), every row and column sums to "
           "T (65536); with K = p one light message is the node's self copy\n"
           "pattern1[:m=M,small=S,elem=48|22]  liu2002: one spike of M "
           "(1024) to a random node, other entries uniform on 0..S (8)\n"
           "pattern2[:m=M,small=S,elem=48|22]  liu2002: the spike goes to "
           "the transpose in A4's grid (dropped when it is >= p)\n"
           "random[:d=N,max=M]  each off-diagonal entry nonzero with "
           "probability N/(p-1) (p/2), sizes 1..M (64)\n"
           "hotspot[:m=M]  every node sends M (1024) to node 0\n"
           "contention[:k=K,m=M]  wang1993 Table 2: nodes 0..K-1 (p-1) each "
           "send M (1) to node p-1\n"
           "permutation[:max=M]  one message of 1..M (1024) to a random "
           "derangement\n"
           "csv:FILE  a p x p matrix of non-negative integers, one row per "
           "line, separated by commas or blanks\n";
}
