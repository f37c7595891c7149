/*
 * cm5sched's runs of the s-to-p broadcasting family (--bcast,
 * cm5_sched_allgatherv on the source distributions of
 * cm5_workload_bcast_make): source i sends len[i] units of --sizes bytes
 * (len 1 unless the distribution says L=), and every node must hold every
 * source's message, exactly, packed in node order.
 */
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

typedef struct {
    const args_t *a;
    const cm5_workload_bcast_t *w;
    int matrix;
    size_t unit, tot; /* bytes per unit; units every node receives */
    size_t *rc;
    unsigned char *sb, *rb;
} point_t;

static const char *alg_name(int alg)
{
    return cm5_sched_bcast_name((cm5_sched_bcast_t)alg);
}

/* Source j's message: the same for every receiver, new every run. */
static uint64_t key_of(int j, uint64_t run) { return pat_key(j, -1, run); }

static void *point_new(const args_t *a, const void *wv, const char *wname,
                       int matrix, size_t unit, point_info_t *info)
{
    const cm5_workload_bcast_t *w = wv;
    point_t *pt = xcalloc(1, sizeof(*pt));
    int j;

    *pt = (point_t){a, w, matrix, unit, 0, NULL, NULL, NULL};
    for (j = 0; j < cs_nodes; j++)
        pt->tot += w->len[j];
    if (pt->tot && unit > (SIZE_MAX - GUARD) / pt->tot)
        CMMD_error("cm5sched: distribution %s at size %zu does not fit in "
                   "memory",
                   wname, unit);
    pt->rc = xcalloc((size_t)cs_nodes, sizeof(size_t));
    pt->sb = malloc(w->len[cs_self] * unit + 1);
    pt->rb = malloc(pt->tot * unit + GUARD);
    if (!pt->sb || !pt->rb)
        CMMD_error("cm5sched: distribution %s at size %zu: node %d cannot "
                   "allocate %zu bytes",
                   wname, unit, cs_self, pt->tot * unit);
    *info = (point_info_t){wname, matrix, w->seed, unit, 1, pt->tot, ""};
    snprintf(
        info->extra, sizeof(info->extra), "%dx%d,%d,%s", w->rows, w->cols,
        w->sources,
        alg_name(cm5_sched_bcast_auto(cs_nodes, w->rows, w->cols, w->len)));
    return pt;
}

static void point_free(void *p)
{
    point_t *pt = p;

    free(pt->rc);
    free(pt->sb);
    free(pt->rb);
    free(pt);
}

/* Every source's message at its place on this node, nothing past it. */
static void verify(const point_t *pt, int alg, int rep, uint64_t run)
{
    size_t off = 0, n;
    char where[256];
    int j;

    snprintf(where, sizeof(where), "%s, distribution %s, size %zu, rep %d",
             alg_name(alg), pt->w->name, pt->unit, rep);
    check_counts(where, pt->rc, pt->w->len);
    for (j = 0; j < cs_nodes; j++, off += n) {
        n = pt->w->len[j] * pt->unit;
        check_data(where, pt->rb + off, n, key_of(j, run),
                   "of source %d's message on node %d", j, cs_self);
    }
    check_guard(where, pt->rb + off);
}

static void run(void *p, int alg, int rep, uint64_t run, result_t *r)
{
    const point_t *pt = p;
    cm5_sched_bcast_opts_t o = pt->a->bo;
    cm5_sched_stats_t st;

    cs_fill(pt->sb, pt->w->len[cs_self] * pt->unit, key_of(cs_self, run));
    memset(pt->rb, GUARD_BYTE, pt->tot * pt->unit + GUARD);
    memcpy(pt->rc, pt->w->len, (size_t)cs_nodes * sizeof(size_t));
    if (o.discover) {
        memset(pt->rc, 0xff, (size_t)cs_nodes * sizeof(size_t));
        o.recv_capacity = pt->tot;
    }
    o.elem_size = pt->unit;
    o.mesh_r = pt->w->rows;
    o.mesh_c = pt->w->cols;
    CMMD_sync_with_nodes(); /* everyone starts together */
    cm5_sched_allgatherv((cm5_sched_bcast_t)alg, pt->sb, pt->w->len[cs_self],
                         pt->rb, pt->rc, NULL, &o, &st);
    corrupt(pt->rb, pt->tot * pt->unit);
    verify(pt, alg, rep, run);
    reduce_result(r, &st);
}

/* ---- the family --------------------------------------------------------- */

/* Is key given in spec's parameters ("kind:k=v,...")? */
static int has_key(const char *spec, const char *key)
{
    const char *p = strchr(spec, ':');
    size_t n = strlen(key);

    for (; p; p = strchr(p + 1, ','))
        if (!strncmp(p + 1, key, n) && p[1 + n] == '=')
            return 1;
    return 0;
}

static int work_make(const args_t *a, const char *spec, uint64_t seed,
                     void **wp, point_info_t *pi, char *err, size_t errlen)
{
    cm5_workload_bcast_t *w = xcalloc(1, sizeof(*w));
    const char *add = has_key(spec, "L")  ? ""
                      : strchr(spec, ':') ? ",L=1"
                                          : ":L=1";
    char eff[512], *at;

    /* One unit per source unless the spec says L=: --sizes is then the
     * message length in bytes, the papers' L. */
    snprintf(eff, sizeof(eff), "%s%s", spec, add);
    if (cm5_workload_bcast_make(eff, a->mesh_r, a->mesh_c, seed, w, err,
                                errlen) != CM5_OK) {
        if (*add && (at = strstr(err, eff))) /* name the user's spec */
            memmove(at + strlen(spec), at + strlen(eff),
                    strlen(at + strlen(eff)) + 1);
        free(w);
        return -1;
    }
    snprintf(w->name, sizeof(w->name), "%s", spec);
    pi->wname = w->name;
    pi->elem = 1;
    *wp = w;
    return 0;
}

static void work_free(void *w)
{
    cm5_workload_bcast_free(w);
    free(w);
}

/* One name of --bcast's list; "all" is the eight algorithms, not auto. */
static void add_algs(args_t *a, const char *tok)
{
    cm5_sched_bcast_t alg;
    int k;

    if (strcmp(tok, "all") == 0)
        for (k = CM5_SCHED_BC_BR_LIN; k < CM5_SCHED_BC_NALGS; k++)
            add_alg(a, k);
    else if (cm5_sched_bcast_parse(tok, &alg) == CM5_OK)
        add_alg(a, (int)alg);
    else
        usage_error("--bcast: unknown algorithm '%s'", tok);
}

/* A -o setting: --recv's recv=KIND discovers the counts unless given;
 * the mesh is --mesh's; the driver's own are refused as personalized. */
static void opt(args_t *a, const char *setting)
{
    char err[256];

    if (strncmp(setting, "mesh=", 5) == 0)
        usage_error("-o %s: the mesh is --mesh RxC", setting);
    if (strncmp(setting, "recv=", 5) == 0) {
        personalized.opt(a, setting);
        a->bo.discover = a->o.recv != CM5_SCHED_RECV_GIVEN;
        return;
    }
    if (strncmp(setting, "elem_size=", 10) == 0 ||
        strncmp(setting, "recv_capacity=", 14) == 0)
        personalized.opt(a, setting); /* the same refusal */
    if (cm5_sched_bcast_opts_set(&a->bo, setting, err, sizeof(err)) != CM5_OK)
        usage_error("-o: %s", err);
}

/* The mesh, the default distribution, --interrupts. */
static void setup(args_t *a)
{
    char err[256];

    if (!a->mesh)
        cm5_sched_mesh_default(cs_nodes, &a->mesh_r, &a->mesh_c);
    else if (cm5_sched_mesh_parse(a->mesh, cs_nodes, &a->mesh_r, &a->mesh_c,
                                  err, sizeof(err)) != CM5_OK)
        usage_error("--mesh: %s", err);
    if (a->nwork == 0)
        a->work[a->nwork++] = "equal";
    a->bo.interrupts = a->o.interrupts;
}

static void help(void)
{
    print_names("Broadcast algorithms (--bcast):", alg_name,
                CM5_SCHED_BC_NALGS);
    printf("\nSource distributions (--workload with --bcast; lengths in "
           "units of --sizes\nbytes, L=1 unless given):\n");
    print_lines(cm5_workload_bcast_help(), "", 2);
    printf("\nBroadcast options (-o with --bcast; --mesh sets the mesh, "
           "--recv am discovers\nthe counts):\n%s",
           cm5_sched_bcast_opts_help());
}

const family_t broadcast = {
    "mesh,s,auto_picks", alg_name,  add_algs,  opt,        setup, help,
    work_make,           work_free, point_new, point_free, run};
