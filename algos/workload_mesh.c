/*
 * mesh:NAME — wang1993 test set 3 (ALGORITHMS.md 5.3, 5.9): the halo
 * exchange of an unstructured mesh cut into p parts.  COM[i][j] is the
 * number of vertices owned by part i with at least one neighbour in part
 * j (halo=edges: the number of cut edges between i and j).
 *
 * NAME is a METIS graph file (the nodal graph of the mesh): a path when
 * it contains '/', otherwise NAME.graph looked up in the build tree's
 * data/mesh, the installed $(pkgdatadir)/mesh, then Debian libmetis-doc's
 * example directory (copter2, 4elt, mdual).  The partition is METIS
 * k-way with the caller's seed, so any p works and every node computes
 * the same one; part=grow instead grows the p parts at once from p
 * random vertices (greedy graph growing), a weaker partitioner whose
 * cuts are closer to those of the paper's genetic algorithm (Mansour
 * 1992): longer messages, more of them (workloads(7)).
 *
 * METIS is loaded when first needed (libmetis.so.5) unless the build
 * linked it (HAVE_METIS): the library has no hard dependency on it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_internal.h"

#ifdef HAVE_METIS
#include <metis.h>
#endif

#ifndef CM5S_MESHDIR
#define CM5S_MESHDIR "/usr/local/share/cm5fab/mesh"
#endif
#define DEBIAN_GRAPHS "/usr/share/doc/libmetis-dev/examples/graphs"
#ifndef CM5S_METIS_SONAME
#define CM5S_METIS_SONAME "libmetis.so.5"
#endif

/* ---- METIS ------------------------------------------------------------ */

/* METIS 5 with 32-bit idx_t (Debian's build); options by index. */
typedef int (*metis_kway_t)(int32_t *, int32_t *, int32_t *, int32_t *,
                            int32_t *, int32_t *, int32_t *, int32_t *, float *,
                            float *, int32_t *, int32_t *, int32_t *);
typedef int (*metis_defaults_t)(int32_t *);
enum { M_NOPTIONS = 40, M_SEED = 8, M_UFACTOR = 16, M_OK = 1 };

#ifdef HAVE_METIS
_Static_assert(IDXTYPEWIDTH == 32, "cm5fab expects METIS with 32-bit idx_t");
_Static_assert((int)METIS_OPTION_SEED == (int)M_SEED &&
                   (int)METIS_OPTION_UFACTOR == (int)M_UFACTOR &&
                   METIS_NOPTIONS == (int)M_NOPTIONS,
               "METIS option indices");
static int metis_load(metis_kway_t *kway, metis_defaults_t *defs, char *err,
                      size_t errlen)
{
    (void)err;
    (void)errlen;
    *kway = (metis_kway_t)METIS_PartGraphKway;
    *defs = (metis_defaults_t)METIS_SetDefaultOptions;
    return 0;
}
#else
static int metis_load(metis_kway_t *kway, metis_defaults_t *defs, char *err,
                      size_t errlen)
{
    static void *h;
    void *k, *d;

    if (!h)
        h = dlopen(CM5S_METIS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen,
                 "mesh workloads need METIS (%s; install Debian's "
                 "libmetis5)",
                 dlerror());
        return -1;
    }
    k = dlsym(h, "METIS_PartGraphKway");
    d = dlsym(h, "METIS_SetDefaultOptions");
    if (!k || !d) {
        snprintf(err, errlen,
                 "mesh workloads need METIS 5 (libmetis.so.5 "
                 "lacks METIS_PartGraphKway)");
        return -1;
    }
    /* POSIX allows the cast from dlsym's object pointer. */
    memcpy(kway, &k, sizeof(*kway));
    memcpy(defs, &d, sizeof(*defs));
    return 0;
}
#endif

int cm5s_wl_metis(int n, const int32_t *xadj, const int32_t *adj, int nparts,
                  int seed, int ufactor, int32_t *part, char *err,
                  size_t errlen)
{
    metis_kway_t kway;
    metis_defaults_t defs;
    int32_t opt[M_NOPTIONS], nv = n, ncon = 1, np = nparts, cut = 0;
    int rc, v;

    if (nparts == 1) { /* METIS does not cut into one part */
        for (v = 0; v < n; v++)
            part[v] = 0;
        return 0;
    }
    if (metis_load(&kway, &defs, err, errlen))
        return -1;
    defs(opt);
    opt[M_SEED] = seed;
    if (ufactor > 0)
        opt[M_UFACTOR] = ufactor;
    rc = kway(&nv, &ncon, (int32_t *)xadj, (int32_t *)adj, NULL, NULL, NULL,
              &np, NULL, NULL, opt, &cut, part);
    if (rc != M_OK) {
        snprintf(err, errlen,
                 "METIS_PartGraphKway into %d parts failed "
                 "(status %d)",
                 nparts, rc);
        return -1;
    }
    return 0;
}

/* ---- greedy graph growing (part=grow) -------------------------------- */

typedef struct {
    int32_t *v; /* the breadth-first queue: neighbours of owned vertices */
    size_t head, n, cap;
    int size; /* vertices owned */
} grow_part_t;

/* Queue v's neighbours on part g. */
static int grow_push(grow_part_t *g, const int32_t *xadj, const int32_t *adj,
                     int v)
{
    size_t need = g->n + (size_t)(xadj[v + 1] - xadj[v]);

    if (need > g->cap) {
        size_t cap = g->cap ? g->cap : 64;
        int32_t *nv;

        while (cap < need)
            cap *= 2;
        if (!(nv = realloc(g->v, sizeof(int32_t) * cap)))
            return -1;
        g->v = nv;
        g->cap = cap;
    }
    memcpy(g->v + g->n, adj + xadj[v],
           sizeof(int32_t) * (size_t)(xadj[v + 1] - xadj[v]));
    g->n = need;
    return 0;
}

/* Grow nparts parts at once from nparts distinct random vertices: each
 * step the smallest part (lowest index on a tie) whose queue is not
 * exhausted takes the next unowned vertex of its breadth-first queue
 * and queues that vertex's neighbours.  A vertex no part can reach (a
 * disconnected graph) goes, lowest first, to the smallest part.  The same
 * seed gives the same partition on every node.  0, or -1 with err. */
int cm5s_wl_grow(int n, const int32_t *xadj, const int32_t *adj, int nparts,
                 uint64_t seed, int32_t *part, char *err, size_t errlen)
{
    grow_part_t *g = calloc((size_t)nparts, sizeof(*g));
    int *perm = malloc(sizeof(int) * (size_t)n);
    int v, k, best, left = n, next = 0, rc = -1;
    cm5s_rng_t r;

    if (!g || !perm)
        goto out;
    for (v = 0; v < n; v++) {
        perm[v] = v;
        part[v] = -1;
    }
    cm5s_rng_seed(&r, seed, 0x67726f77u /* "grow" */);
    for (k = 0; k < nparts; k++) { /* partial Fisher-Yates: the seeds */
        int j = k + (int)cm5s_rng_below(&r, (uint64_t)(n - k)), t = perm[k];

        perm[k] = perm[j];
        perm[j] = t;
        part[perm[k]] = k;
        g[k].size = 1;
        left--;
        if (grow_push(&g[k], xadj, adj, perm[k]))
            goto out;
    }
    while (left > 0) {
        for (k = 0, best = -1; k < nparts; k++)
            if (g[k].head < g[k].n && (best < 0 || g[k].size < g[best].size))
                best = k;
        if (best >= 0) {
            v = g[best].v[g[best].head++];
            if (part[v] >= 0)
                continue;
        } else { /* no part reaches an unowned vertex */
            while (part[next] >= 0)
                next++;
            v = next;
            for (k = best = 0; k < nparts; k++)
                if (g[k].size < g[best].size)
                    best = k;
        }
        part[v] = best;
        g[best].size++;
        left--;
        if (grow_push(&g[best], xadj, adj, v))
            goto out;
    }
    rc = 0;
out:
    if (rc)
        snprintf(err, errlen, "out of memory");
    if (g)
        for (k = 0; k < nparts; k++)
            free(g[k].v);
    free(g);
    free(perm);
    return rc;
}

/* ---- METIS graph files ------------------------------------------------ */

typedef struct {
    int n;
    int32_t *xadj, *adj;
} graph_t;

static void graph_free(graph_t *g)
{
    free(g->xadj);
    free(g->adj);
}

/* Next non-comment line into *buf; 0 at end of file. */
static int graph_line(FILE *f, char **buf, size_t *cap, int *line)
{
    while (getline(buf, cap, f) >= 0) {
        ++*line;
        if ((*buf)[0] != '%')
            return 1;
    }
    return 0;
}

/* Read one vertex line: [size] [ncon weights] then (neighbour [weight])*.
 * fmt is METIS's: 1 edge weights, 10 vertex weights, 100 sizes. */
static cm5_status_t graph_vertex(cm5s_wl_args_t *a, const char *path, int line,
                                 char *s, int fmt, int ncon, graph_t *g,
                                 long *m, long cap)
{
    int skip = (fmt / 100 % 10) + (fmt / 10 % 10 ? ncon : 0), i;
    char *end;
    long u;

    for (i = 0; i < skip; i++) {
        strtol(s, &end, 10);
        if (end == s)
            return cm5s_wl_fail(a, "%s:%d: missing vertex weight", path, line);
        s = end;
    }
    for (;;) {
        u = strtol(s, &end, 10);
        if (end == s)
            break;
        s = end;
        if (fmt % 10) {
            strtol(s, &end, 10);
            if (end == s)
                return cm5s_wl_fail(a, "%s:%d: missing edge weight", path,
                                    line);
            s = end;
        }
        if (u < 1 || u > g->n)
            return cm5s_wl_fail(a, "%s:%d: neighbour %ld is not in 1..%d", path,
                                line, u, g->n);
        if (*m == cap)
            return cm5s_wl_fail(a, "%s:%d: more edges than the header says",
                                path, line);
        g->adj[(*m)++] = (int32_t)(u - 1);
    }
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (*s)
        return cm5s_wl_fail(a, "%s:%d: unexpected '%c'", path, line, *s);
    return CM5_OK;
}

static cm5_status_t graph_read(cm5s_wl_args_t *a, FILE *f, const char *path,
                               graph_t *g)
{
    char *buf = NULL;
    size_t cap = 0;
    int line = 0, v, fmt = 0, ncon = 1, k;
    long n = 0, e = 0, m = 0;
    cm5_status_t rc = CM5_OK;

    if (!graph_line(f, &buf, &cap, &line) ||
        (k = sscanf(buf, "%ld %ld %d %d", &n, &e, &fmt, &ncon)) < 2 || n < 1 ||
        n > (1L << 30) || e < 0 || e > (1L << 29)) {
        free(buf);
        return cm5s_wl_fail(a, "%s:%d: expected a METIS header 'n m [fmt]'",
                            path, line);
    }
    g->n = (int)n;
    g->xadj = malloc(sizeof(int32_t) * (size_t)(n + 1));
    g->adj = malloc(sizeof(int32_t) * (size_t)(2 * e + 1));
    if (!g->xadj || !g->adj) {
        free(buf);
        return cm5s_wl_fail(a, "%s: out of memory", path);
    }
    for (v = 0; v < n && rc == CM5_OK; v++) {
        g->xadj[v] = (int32_t)m;
        if (!graph_line(f, &buf, &cap, &line))
            rc = cm5s_wl_fail(a, "%s: %d vertex lines, the header says %ld",
                              path, v, n);
        else
            rc = graph_vertex(a, path, line, buf, fmt, ncon, g, &m, 2 * e);
    }
    g->xadj[n] = (int32_t)m;
    if (rc == CM5_OK && m != 2 * e)
        rc = cm5s_wl_fail(a, "%s: %ld edge ends, the header says %ld edges",
                          path, m, e);
    free(buf);
    return rc;
}

/* Open NAME (a path, or NAME.graph in the data directories). */
static FILE *graph_open(const char *name, char *path, size_t len)
{
    const char *dirs[] = {
#ifdef CM5S_MESHDIR_BUILD
        CM5S_MESHDIR_BUILD,
#endif
        CM5S_MESHDIR, DEBIAN_GRAPHS};
    size_t i;
    FILE *f;

    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return fopen(path, "r");
    }
    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(path, len, "%s/%s.graph", dirs[i], name);
        if ((f = fopen(path, "r")))
            return f;
    }
    snprintf(path, len, "%s.graph", name);
    return NULL;
}

/* ---- the matrix ------------------------------------------------------- */

static void mesh_com(const graph_t *g, const int32_t *part, int edges,
                     cm5_workload_t *w, int *stamp)
{
    int v, q, p = w->nodes;
    int32_t k;

    for (q = 0; q < p; q++)
        stamp[q] = -1;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
            q = part[g->adj[k]];
            if (q == part[v] || (!edges && stamp[q] == v))
                continue;
            stamp[q] = v; /* each neighbouring part counts v once */
            w->com[(size_t)part[v] * p + q]++;
        }
}

cm5_status_t cm5s_wl_mesh(cm5s_wl_args_t *a, int p, uint64_t seed,
                          cm5_workload_t *w)
{
    const char *halo = cm5s_wl_str(a, "halo");
    const char *how = cm5s_wl_str(a, "part");
    char path[1200], err[256];
    graph_t g = {0, NULL, NULL};
    int32_t *part = NULL;
    int *stamp = NULL, edges = 0, grow = 0, i;
    long uf;
    FILE *f;
    cm5_status_t rc;

    if ((rc = cm5s_wl_int(a, "ufactor", 1, 100000, 0, 0, &uf)) != CM5_OK)
        return rc;
    if (halo && !strcmp(halo, "edges"))
        edges = 1;
    else if (halo && strcmp(halo, "vertices"))
        return cm5s_wl_fail(a, "halo=%s: expected vertices or edges", halo);
    if (how && !strcmp(how, "grow"))
        grow = 1;
    else if (how && strcmp(how, "metis"))
        return cm5s_wl_fail(a, "part=%s: expected metis or grow", how);
    if (grow && uf)
        return cm5s_wl_fail(a, "ufactor is METIS's: not with part=grow");
    for (i = 0; i < a->nkv; i++)
        if (!a->kv[i].used)
            return cm5s_wl_fail(a,
                                "unknown parameter '%s' for mesh (known: "
                                "halo, part, ufactor)",
                                a->kv[i].key);
    if (!(f = graph_open(a->pos, path, sizeof(path))))
        return cm5s_wl_fail(a, "cannot open mesh graph %s: %s", path,
                            strerror(errno));
    rc = graph_read(a, f, path, &g);
    fclose(f);
    if (rc != CM5_OK)
        goto out;
    if (p > g.n) {
        rc = cm5s_wl_fail(a, "%d parts for a %d-vertex mesh", p, g.n);
        goto out;
    }
    part = malloc(sizeof(int32_t) * (size_t)g.n);
    stamp = malloc(sizeof(int) * (size_t)p);
    w->com = calloc((size_t)p * p, sizeof(size_t));
    if (!part || !stamp || !w->com) {
        rc = cm5s_wl_fail(a, "out of memory");
        goto out;
    }
    if (grow ? cm5s_wl_grow(g.n, g.xadj, g.adj, p, seed, part, err, sizeof(err))
             : cm5s_wl_metis(g.n, g.xadj, g.adj, p, (int)(seed % 2147483647u),
                             (int)uf, part, err, sizeof(err))) {
        rc = cm5s_wl_fail(a, "%s", err);
        goto out;
    }
    mesh_com(&g, part, edges, w, stamp);
    snprintf(w->name, sizeof(w->name), "mesh:%.100s%s%s%s", a->pos,
             edges ? ",halo=edges" : "", grow ? ",part=grow" : "",
             uf ? ",ufactor=" : "");
    if (uf)
        snprintf(w->name + strlen(w->name), sizeof(w->name) - strlen(w->name),
                 "%ld", uf);
out:
    free(stamp);
    free(part);
    graph_free(&g);
    return rc;
}
