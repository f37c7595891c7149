/*
 * cm5_sched_allgatherv: the s-to-p broadcasting family's calling
 * convention (<cm5/sched.h>, second section): names, options, the mesh,
 * the auto choice, then argument checks, the counts (given or discovered
 * with one concatenate on the control network), the own copy, the plan
 * and the run.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "bcast.h"

static const char *const bc_names[CM5_SCHED_BC_NALGS] = {
    [CM5_SCHED_BC_AUTO] = "auto",
    [CM5_SCHED_BC_BR_LIN] = "br_lin",
    [CM5_SCHED_BC_BR_XY_SOURCE] = "br_xy_source",
    [CM5_SCHED_BC_BR_XY_DIM] = "br_xy_dim",
    [CM5_SCHED_BC_XOR] = "xor",
    [CM5_SCHED_BC_2STEP] = "2step",
    [CM5_SCHED_BC_REPOS] = "repos",
    [CM5_SCHED_BC_PART_LIN] = "part_lin",
    [CM5_SCHED_BC_PART_XY_SOURCE] = "part_xy_source",
};

const char *cm5_sched_bcast_name(cm5_sched_bcast_t alg)
{
    if ((int)alg < 0 || alg >= CM5_SCHED_BC_NALGS)
        return "unknown";
    return bc_names[alg];
}

cm5_status_t cm5_sched_bcast_parse(const char *name, cm5_sched_bcast_t *alg)
{
    int a;

    for (a = 0; name && a < CM5_SCHED_BC_NALGS; a++)
        if (strcmp(name, bc_names[a]) == 0) {
            *alg = (cm5_sched_bcast_t)a;
            return CM5_OK;
        }
    if (name && strcmp(name, "2-step") == 0) {
        *alg = CM5_SCHED_BC_2STEP;
        return CM5_OK;
    }
    return CM5_ERR_INVALID;
}

void cm5_sched_bcast_opts_init(cm5_sched_bcast_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->elem_size = 1;
    o->repos_alg = CM5_SCHED_BC_BR_XY_SOURCE;
}

/* ---- the mesh ------------------------------------------------------------ */

void cm5_sched_mesh_default(int p, int *r, int *c)
{
    int k, best = 1;

    for (k = 1; (long)k * k <= p; k++)
        if (p % k == 0)
            best = k;
    *r = best;
    *c = p / best;
}

cm5_status_t cm5_sched_mesh_parse(const char *text, int p, int *r, int *c,
                                  char *err, size_t errlen)
{
    long a, b;
    char *end;

    if (!text || !*text)
        return cm5s_invalid(err, errlen, "mesh: empty (want RxC)");
    errno = 0;
    a = strtol(text, &end, 10);
    if (*end != 'x' || end == text || errno)
        return cm5s_invalid(err, errlen, "mesh '%s' is not RxC", text);
    text = end + 1;
    b = strtol(text, &end, 10);
    if (*end || end == text || errno)
        return cm5s_invalid(err, errlen, "mesh '%s' is not RxC", text);
    if (a < 1 || b < 1 || a > INT_MAX || b > INT_MAX)
        return cm5s_invalid(err, errlen,
                            "mesh %ld x %ld: both sides must be >= 1", a, b);
    if (a * b != p)
        return cm5s_invalid(err, errlen,
                            "mesh %ld x %ld = %ld does not match the %d nodes",
                            a, b, a * b, p);
    *r = (int)a;
    *c = (int)b;
    return CM5_OK;
}

/* ---- options --------------------------------------------------------------
 */

/* mesh=RxC: the sides only (p is checked by the call). */
static cm5_status_t opt_mesh(const cm5s_opt_t *d, const char *v, void *opts,
                             char *err, size_t errlen)
{
    cm5_sched_bcast_opts_t *o = opts;
    char *x = strchr(v, 'x');
    int r, c;
    long p;

    (void)d;
    if (!x)
        return cm5s_invalid(err, errlen, "option mesh: '%s' is not RxC", v);
    p = strtol(v, NULL, 10) * strtol(x + 1, NULL, 10);
    if (p < 1 || p > INT_MAX ||
        cm5_sched_mesh_parse(v, (int)p, &r, &c, err, errlen) != CM5_OK)
        return cm5s_invalid(err, errlen,
                            "option mesh: '%s' is not RxC (R, C >= 1)", v);
    o->mesh_r = r;
    o->mesh_c = c;
    return CM5_OK;
}

static const char *const e_order[] = {"snake", "rowmajor", NULL};
static const char *const e_ideal[] = {"left_diagonal", "prefix", NULL};
static const char *const e_repos[] = {"br_lin", "br_xy_source", NULL};

static cm5_status_t opt_repos(const cm5s_opt_t *d, const char *v, void *opts,
                              char *err, size_t errlen)
{
    cm5_sched_bcast_opts_t *o = opts;
    int k = 0;
    cm5s_opt_t e = *d;
    cm5_status_t rc;

    e.off = 0;
    rc = cm5s_opt_enum(&e, v, &k, err, errlen);
    if (rc == CM5_OK)
        o->repos_alg = k ? CM5_SCHED_BC_BR_XY_SOURCE : CM5_SCHED_BC_BR_LIN;
    return rc;
}

#define BOFF(f) offsetof(cm5_sched_bcast_opts_t, f)

/* Their help, with the values, is cm5_sched_bcast_opts_help's. */
static const cm5s_opt_t bc_opts[] = {
    {"elem_size", cm5s_opt_size, BOFF(elem_size), NULL, 1, 0, NULL},
    {"mesh", opt_mesh, 0, NULL, 0, 0, NULL},
    {"discover", cm5s_opt_bool, BOFF(discover), NULL, 0, 0, NULL},
    {"recv_capacity", cm5s_opt_size, BOFF(recv_capacity), NULL, 0, 0, NULL},
    {"interrupts", cm5s_opt_bool, BOFF(interrupts), NULL, 0, 0, NULL},
    {"br_lin_order", cm5s_opt_enum, BOFF(br_lin_rowmajor), e_order, 0, 0, NULL},
    {"repos_alg", opt_repos, 0, e_repos, 0, 0, NULL},
    {"ideal_lin", cm5s_opt_enum, BOFF(ideal_lin_prefix), e_ideal, 0, 0, NULL},
};

#define BC_NOPTS (sizeof(bc_opts) / sizeof(bc_opts[0]))

cm5_status_t cm5_sched_bcast_opts_set(cm5_sched_bcast_opts_t *opts,
                                      const char *setting, char *err,
                                      size_t errlen)
{
    return cm5s_opts_set(bc_opts, BC_NOPTS, opts, setting, "broadcast option",
                         "", err, errlen);
}

const char *cm5_sched_bcast_opts_help(void)
{
    return "  elem_size=N          bytes per element (1)\n"
           "  mesh=RxC             logical mesh, R * C = p (most square)\n"
           "  discover=0|1         discover the counts (0; 1 when NULL)\n"
           "  recv_capacity=N      receive buffer elements when discovered\n"
           "  interrupts=0|1       run with interrupts on (0: polling)\n"
           "  br_lin_order=snake|rowmajor  br_lin's linear order (snake)\n"
           "  repos_alg=br_lin|br_xy_source  what repos runs "
           "(br_xy_source)\n"
           "  ideal_lin=left_diagonal|prefix  br_lin's ideal distribution "
           "(left_diagonal)\n";
}

cm5_sched_bcast_t cm5_sched_bcast_auto(int p, int r, int c,
                                       const size_t *counts)
{
    int i, s = 0;

    (void)c;
    for (i = 0; i < p; i++)
        s += counts[i] > 0;
    if (s <= 1 || r == 1)
        return CM5_SCHED_BC_BR_LIN;
    return CM5_SCHED_BC_REPOS;
}

/* ---- the call -------------------------------------------------------------
 */

/* The counts: given (checked against sendcount) or discovered with one
 * concatenate of every node's sendcount. */
static void bc_counts(cm5s_bc_xfer_t *x, size_t sendcount, size_t *recvcounts,
                      int discover, size_t *counts)
{
    int i;

    if (discover) {
        uint64_t mine = sendcount, *all = malloc((size_t)x->p * 8);

        if (!all)
            cm5s_bc_fatal(x, "out of memory for %d counts", x->p);
        CMMD_concat_with_nodes(&mine, all, (int)sizeof(mine));
        for (i = 0; i < x->p; i++)
            counts[i] = (size_t)all[i];
        free(all);
        if (recvcounts)
            memcpy(recvcounts, counts, (size_t)x->p * sizeof(size_t));
        return;
    }
    memcpy(counts, recvcounts, (size_t)x->p * sizeof(size_t));
    if (counts[x->me] != sendcount)
        cm5s_bc_fatal(x, "node %d sends %zu elements but recvcounts[%d] = %zu",
                      x->me, sendcount, x->me, counts[x->me]);
}

/* Every count fits a CMMD message (an int of bytes) even combined; a
 * "negative" count (a signed value cast to size_t) is named as such. */
static void bc_check_counts(cm5s_bc_xfer_t *x, const size_t *counts,
                            size_t *total)
{
    int i;

    *total = 0;
    for (i = 0; i < x->p; i++) {
        if ((ptrdiff_t)counts[i] < 0)
            cm5s_bc_fatal(x, "recvcounts[%d] is negative (%td)", i,
                          (ptrdiff_t)counts[i]);
        if (counts[i] > (size_t)INT_MAX / x->esz ||
            *total + counts[i] > (size_t)INT_MAX / x->esz)
            cm5s_bc_fatal(x,
                          "the messages (%zu elements of %zu bytes with "
                          "node %d's) exceed a CMMD message (%d bytes)",
                          *total + counts[i], x->esz, i, INT_MAX);
        *total += counts[i];
    }
}

static void bc_mesh(cm5s_bc_xfer_t *x, const cm5_sched_bcast_opts_t *o)
{
    if (o->mesh_r == 0 && o->mesh_c == 0) {
        cm5_sched_mesh_default(x->p, &x->r, &x->c);
        return;
    }
    if (o->mesh_r < 1 || o->mesh_c < 1 || (long)o->mesh_r * o->mesh_c != x->p)
        cm5s_bc_fatal(x, "mesh %d x %d does not match the %d nodes", o->mesh_r,
                      o->mesh_c, x->p);
    x->r = o->mesh_r;
    x->c = o->mesh_c;
}

static void bc_layout(cm5s_bc_xfer_t *x, const size_t *displs, int discover,
                      const cm5_sched_bcast_opts_t *o)
{
    size_t total;
    int i;

    bc_check_counts(x, x->count, &total);
    if (discover && displs)
        cm5s_bc_fatal(x, "displs must be NULL when the counts are discovered");
    if (discover && total > o->recv_capacity)
        cm5s_bc_fatal(x,
                      "node %d receives %zu elements, more than "
                      "opts->recv_capacity (%zu)",
                      x->me, total, o->recv_capacity);
    for (i = 0, total = 0; i < x->p; i++) {
        x->displ[i] = displs ? displs[i] : total;
        total += x->count[i];
    }
}

static void bc_run_plan(cm5s_bc_xfer_t *x, cm5_sched_bcast_t alg,
                        const cm5_sched_bcast_opts_t *o)
{
    cm5s_bc_plan_t pl;
    char err[160];
    double t0 = cm5_wtime();

    if (cm5s_bc_plan(alg, x->p, x->r, x->c, x->count, o, &pl, err,
                     sizeof(err)) != CM5_OK)
        cm5s_bc_fatal(x, "%s", err);
    x->st->sched_s = cm5_wtime() - t0;
    if (x->p > 1)
        cm5s_bc_run(x, &pl);
    x->st->phases = (uint32_t)pl.niters;
    cm5s_bc_plan_free(&pl);
}

cm5_status_t cm5_sched_allgatherv(cm5_sched_bcast_t alg, const void *sendbuf,
                                  size_t sendcount, void *recvbuf,
                                  size_t *recvcounts, const size_t *displs,
                                  const cm5_sched_bcast_opts_t *opts,
                                  cm5_sched_stats_t *stats)
{
    cm5_sched_bcast_opts_t defaults;
    cm5_sched_stats_t local;
    cm5s_bc_xfer_t x;
    int discover, irq_was = 0;
    double t0;

    memset(&x, 0, sizeof(x));
    x.p = CMMD_partition_size();
    x.me = CMMD_self_address();
    snprintf(x.call, sizeof(x.call), "cm5_sched_allgatherv(%s)",
             cm5_sched_bcast_name(alg));
    if ((int)alg < 0 || alg >= CM5_SCHED_BC_NALGS)
        cm5s_bc_fatal(&x, "unknown algorithm %d", (int)alg);
    if (!opts) {
        cm5_sched_bcast_opts_init(&defaults);
        opts = &defaults;
    }
    x.st = stats ? stats : &local;
    memset(x.st, 0, sizeof(*x.st));
    x.esz = opts->elem_size;
    if (x.esz == 0)
        cm5s_bc_fatal(&x, "opts->elem_size is 0");
    if ((ptrdiff_t)sendcount < 0)
        cm5s_bc_fatal(&x, "sendcount is negative (%td)", (ptrdiff_t)sendcount);
    if ((sendcount && !sendbuf) || !recvbuf)
        cm5s_bc_fatal(&x, "%s is NULL", recvbuf ? "sendbuf" : "recvbuf");
    bc_mesh(&x, opts);
    discover = !recvcounts || opts->discover;
    x.count = malloc(2 * (size_t)x.p * sizeof(size_t));
    if (!x.count)
        cm5s_bc_fatal(&x, "out of memory for %d counts", x.p);
    x.displ = x.count + x.p;
    if (opts->interrupts)
        irq_was = CMAML_enable_interrupts();
    t0 = cm5_wtime();
    bc_counts(&x, sendcount, recvcounts, discover, x.count);
    x.st->recv_s = cm5_wtime() - t0;
    bc_layout(&x, displs, discover, opts);
    x.rbuf = recvbuf;
    if (sendcount)
        memmove(x.rbuf + x.displ[x.me] * x.esz, sendbuf, sendcount * x.esz);
    if (alg == CM5_SCHED_BC_AUTO)
        alg = cm5_sched_bcast_auto(x.p, x.r, x.c, x.count);
    snprintf(x.call, sizeof(x.call), "cm5_sched_allgatherv(%s)",
             cm5_sched_bcast_name(alg));
    bc_run_plan(&x, alg, opts);
    x.st->total_s = cm5_wtime() - t0;
    x.st->comm_s = x.st->total_s - x.st->recv_s - x.st->sched_s;
    if (opts->interrupts && !irq_was)
        CMAML_disable_interrupts();
    free(x.count);
    return CM5_OK;
}
