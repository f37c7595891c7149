/*
 * cm5_workload_bcast_make: the source distributions of hambrusch1995/1996
 * (ALGORITHMS.md 5.8, plan_bcast_dist.c) as workloads, plus random and
 * csv, with fixed or random message lengths.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_bcast.h"
#include "sched_internal.h"
#include "workload_internal.h"

typedef struct {
    const char *kind, *alias;
    int dist;          /* cm5s_bc_dist_t, or -1 random, -2 csv */
    const char *a, *b; /* the 002-style parameters, or NULL */
} wb_kind_t;

static const wb_kind_t wb_kinds[] = {
    {"row", NULL, CM5S_BC_ROW, "rows", NULL},
    {"col", "column", CM5S_BC_COL, "cols", NULL},
    {"diag_right", "dr", CM5S_BC_DIAG_R, NULL, NULL},
    {"diag_left", "dl", CM5S_BC_DIAG_L, NULL, NULL},
    {"equal", NULL, CM5S_BC_EQUAL, "step", NULL},
    {"cross", NULL, CM5S_BC_CROSS, "i", NULL},
    {"block", NULL, CM5S_BC_BLOCK, "i", "j"},
    {"band", NULL, CM5S_BC_BAND, NULL, NULL},
    {"random", NULL, -1, NULL, NULL},
    {"csv", NULL, -2, NULL, NULL},
};

/* L=N or L=A:B into lo, hi. */
static cm5_status_t wb_lengths(cm5s_wl_args_t *a, long *lo, long *hi)
{
    const char *v = cm5s_wl_str(a, "L");
    char *end;

    *lo = *hi = 1024;
    if (!v)
        return CM5_OK;
    errno = 0;
    *lo = *hi = strtol(v, &end, 10);
    if (*end == ':')
        *hi = strtol(end + 1, &end, 10);
    if (!*v || *end || errno)
        return cm5s_wl_fail(a, "L=%s is not N or A:B", v);
    if (*lo < 0 || *hi < 0)
        return cm5s_wl_fail(a, "L=%s: a length is negative", v);
    if (*lo < 1 || *hi < *lo || *hi > 1L << 30)
        return cm5s_wl_fail(a, "L=%s: lengths must be 1 <= A <= B <= 2^30", v);
    return CM5_OK;
}

/* The lengths of the marked sources: fixed, or uniform from seed (one
 * stream per rank, so a rank's length does not depend on the others). */
static void wb_fill(cm5_workload_bcast_t *w, const unsigned char *m, long lo,
                    long hi)
{
    int i;

    for (i = 0; i < w->nodes; i++) {
        cm5s_rng_t r;

        if (!m[i])
            continue;
        cm5s_rng_seed(&r, w->seed, 0x62630000u + (uint64_t)i);
        w->len[i] =
            (size_t)lo + (size_t)cm5s_rng_below(&r, (uint64_t)(hi - lo + 1));
        w->sources++;
    }
}

static cm5_status_t wb_random(cm5s_wl_args_t *a, cm5_workload_bcast_t *w, int s,
                              unsigned char *m)
{
    int *v = malloc((size_t)w->nodes * sizeof(int)), i;
    cm5s_rng_t r;

    if (!v)
        return cm5s_wl_fail(a, "out of memory");
    for (i = 0; i < w->nodes; i++)
        v[i] = i;
    cm5s_rng_seed(&r, w->seed, 0x62637200u);
    cm5s_rng_shuffle(&r, v, w->nodes);
    for (i = 0; i < s; i++)
        m[v[i]] = 1;
    free(v);
    return CM5_OK;
}

/* One csv line "rank[,length]"; blank and '#' lines are skipped. */
static cm5_status_t wb_csv_line(cm5s_wl_args_t *a, cm5_workload_bcast_t *w,
                                char *line, int no, long deflen)
{
    char *s = line + strspn(line, " \t"), *end;
    long rank, len = deflen;

    if (!*s || *s == '#' || *s == '\n' || *s == '\r')
        return CM5_OK;
    errno = 0;
    rank = strtol(s, &end, 10);
    if (end == s || errno)
        return cm5s_wl_fail(a, "line %d: '%.40s' is not rank[,length]", no, s);
    s = end + strspn(end, " \t");
    if (*s == ',' || *s == ';') {
        len = strtol(s + 1, &end, 10);
        if (end == s + 1 || errno)
            return cm5s_wl_fail(a, "line %d: bad length", no);
        s = end;
    }
    if (*(s + strspn(s, " \t\r\n")))
        return cm5s_wl_fail(a, "line %d: '%.40s' is not rank[,length]", no,
                            line);
    if (rank < 0 || rank >= w->nodes)
        return cm5s_wl_fail(a,
                            "line %d: source %ld is outside the partition "
                            "(nodes 0..%d)",
                            no, rank, w->nodes - 1);
    if (len < 0)
        return cm5s_wl_fail(a,
                            "line %d: source %ld has a negative length "
                            "(%ld)",
                            no, rank, len);
    if (len == 0 || len > 1L << 30)
        return cm5s_wl_fail(a,
                            "line %d: source %ld: length %ld is not in "
                            "1..2^30",
                            no, rank, len);
    if (w->len[rank])
        return cm5s_wl_fail(a, "line %d: source %ld is listed twice", no, rank);
    w->len[rank] = (size_t)len;
    w->sources++;
    return CM5_OK;
}

static cm5_status_t wb_csv(cm5s_wl_args_t *a, cm5_workload_bcast_t *w,
                           long deflen)
{
    FILE *f = fopen(a->pos, "r");
    char line[256];
    int no = 0;
    cm5_status_t rc = CM5_OK;

    if (!f)
        return cm5s_wl_fail(a, "cannot open %s: %s", a->pos, strerror(errno));
    while (rc == CM5_OK && fgets(line, sizeof(line), f))
        rc = wb_csv_line(a, w, line, ++no, deflen);
    fclose(f);
    return rc;
}

/* s from s=S or the 002-style count parameter k (rows=K: K c sources). */
static cm5_status_t wb_count(cm5s_wl_args_t *a, const wb_kind_t *k,
                             const cm5_workload_bcast_t *w, long *s, long *pa,
                             long *pb)
{
    long def = (long)ceil(sqrt((double)w->nodes));
    cm5_status_t rc;

    *pa = *pb = 0;
    if ((rc = cm5s_wl_int(a, "s", 0, w->nodes, def, 0, s)) != CM5_OK)
        return rc;
    if (cm5s_wl_str(a, "s") && w->nodes < *s)
        return cm5s_wl_fail(a, "s=%ld is more than the %d nodes", *s, w->nodes);
    if (k->a && (rc = cm5s_wl_int(a, k->a, 0, w->nodes, 0, 0, pa)) != CM5_OK)
        return rc;
    if (k->b && (rc = cm5s_wl_int(a, k->b, 0, w->nodes, 0, 0, pb)) != CM5_OK)
        return rc;
    if (k->dist == CM5S_BC_ROW && *pa) {
        *s = *pa * w->cols;
        *pa = 0;
    } else if (k->dist == CM5S_BC_COL && *pa) {
        *s = *pa * w->rows;
        *pa = 0;
    }
    if (*s > w->nodes)
        return cm5s_wl_fail(a, "%ld sources do not fit %d nodes", *s, w->nodes);
    return CM5_OK;
}

static cm5_status_t wb_make(cm5s_wl_args_t *a, const wb_kind_t *k,
                            cm5_workload_bcast_t *w, unsigned char *m)
{
    long s = 0, pa, pb, lo, hi;
    const char *fill;
    cm5_status_t rc;

    if ((rc = wb_lengths(a, &lo, &hi)) != CM5_OK)
        return rc;
    if (k->dist == -2)
        return cm5s_wl_leftover(a, "L") ? CM5_ERR_INVALID : wb_csv(a, w, lo);
    if ((rc = wb_count(a, k, w, &s, &pa, &pb)) != CM5_OK)
        return rc;
    fill = cm5s_wl_str(a, "fill");
    if (fill && strcmp(fill, "balanced") && strcmp(fill, "fill"))
        return cm5s_wl_fail(a, "fill=%s is not fill or balanced", fill);
    if (fill && k->dist != CM5S_BC_ROW && k->dist != CM5S_BC_COL)
        return cm5s_wl_fail(a, "fill= is for row and col only");
    if (fill && !strcmp(fill, "balanced"))
        pa = 1;
    if ((rc = cm5s_wl_leftover(a, "s, L, fill, rows, cols, step, i, j")) !=
        CM5_OK)
        return rc;
    if (k->dist == -1)
        rc = wb_random(a, w, (int)s, m);
    else if (cm5s_bc_dist((cm5s_bc_dist_t)k->dist, w->rows, w->cols, (int)s,
                          (int)pa, (int)pb, m) < 0)
        return cm5s_wl_fail(a, "the parameters do not fit a %d x %d mesh",
                            w->rows, w->cols);
    wb_fill(w, m, lo, hi);
    return rc;
}

static const wb_kind_t *wb_kind(const char *spec, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof(wb_kinds) / sizeof(wb_kinds[0]); i++)
        if ((strlen(wb_kinds[i].kind) == n &&
             !strncmp(spec, wb_kinds[i].kind, n)) ||
            (wb_kinds[i].alias && strlen(wb_kinds[i].alias) == n &&
             !strncmp(spec, wb_kinds[i].alias, n)))
            return &wb_kinds[i];
    return NULL;
}

cm5_status_t cm5_workload_bcast_make(const char *spec, int r, int c,
                                     uint64_t seed, cm5_workload_bcast_t *w,
                                     char *err, size_t errlen)
{
    cm5s_wl_args_t a;
    cm5_workload_bcast_t t;
    const char *colon;
    const wb_kind_t *k;
    unsigned char *m;
    char kind[32];
    size_t n;
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
    if (r < 1 || c < 1 || (long)r * c > 1L << 24)
        return cm5s_wl_fail(&a, "mesh %d x %d: both sides must be >= 1", r, c);
    colon = strchr(spec, ':');
    n = colon ? (size_t)(colon - spec) : strlen(spec);
    snprintf(kind, sizeof(kind), "%.*s", (int)(n < 31 ? n : 31), spec);
    if (!(k = wb_kind(spec, n)))
        return cm5s_wl_fail(&a,
                            "unknown distribution '%s' (see "
                            "cm5_workload_bcast_help)",
                            kind);
    if ((rc = cm5s_wl_split(&a, colon ? colon + 1 : NULL, k->dist == -2)) !=
        CM5_OK)
        return rc;
    if (k->dist == -2 && !a.pos[0])
        return cm5s_wl_fail(&a, "csv needs a file (csv:FILE)");
    memset(&t, 0, sizeof(t));
    t.rows = r;
    t.cols = c;
    t.nodes = r * c;
    t.seed = seed;
    snprintf(t.name, sizeof(t.name), "%s", spec);
    t.len = calloc((size_t)t.nodes, sizeof(size_t));
    m = calloc((size_t)t.nodes, 1);
    if (!t.len || !m)
        rc = cm5s_wl_fail(&a, "out of memory for %d nodes", t.nodes);
    else
        rc = wb_make(&a, k, &t, m);
    free(m);
    if (rc != CM5_OK) {
        free(t.len);
        return rc;
    }
    *w = t;
    return CM5_OK;
}

void cm5_workload_bcast_free(cm5_workload_bcast_t *w)
{
    if (!w)
        return;
    free(w->len);
    w->len = NULL;
}

const char *cm5_workload_bcast_help(void)
{
    /* cm5sched --help indents these by two: 78 columns at most */
    return "row[:s=S|rows=K][,fill=balanced]  ceil(s/c) rows at floor(m r/k), "
           "filled\n    (the last partial)\n"
           "col[:s=S|cols=K][,fill=balanced]  the same with columns\n"
           "diag_right[:s=S] (dr)  ceil(s/r) wrapped diagonals (x, x+d)\n"
           "diag_left[:s=S] (dl)  ceil(s/r) wrapped diagonals (x, c-1-x-d)\n"
           "equal[:s=S|step=I]  ranks floor(m p/s) (or 0, I, 2I, ...)\n"
           "cross[:s=S|i=I]  ceil(s/2) as row, the rest as col (or I full "
           "rows and\n    I full columns)\n"
           "block[:s=S|i=I,j=J]  a ceil(sqrt s) square from (0,0), row by row "
           "(or the\n    I x J block)\n"
           "band[:s=S]  ceil(sqrt(s/r)) bands of round(sqrt(s/r)) wrapped "
           "diagonals\n"
           "random[:s=S]  s distinct random ranks\n"
           "csv:FILE  lines rank[,length]\n"
           "every kind: s defaults to ceil(sqrt p); L=N (1024) or L=A:B "
           "lengths in\n    elements\n";
}
