/*
 * cm5sched's output (node 0): the CSV file, the per-size tables shaped
 * like wang1993's Tables 4-6, and the gnuplot graph.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

/* gnuplot in PATH (checked before anything runs). */
int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char dir[4096];

    while (path && *path) {
        size_t n = strcspn(path, ":");

        snprintf(dir, sizeof(dir), "%.*s/gnuplot", (int)(n ? n : 1),
                 n ? path : ".");
        if (access(dir, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* ---- CSV ---------------------------------------------------------------- */

static const char header[] =
    "workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_"
    "per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_"
    "concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,"
    "nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_"
    "msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_"
    "steps,stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,rbuf_"
    "units\n";

void csv_header(FILE *f, const family_t *fam)
{
    fprintf(f, "%.*s%s%s\n", (int)strlen(header) - 1, header,
            fam->csv_cols ? "," : "", fam->csv_cols ? fam->csv_cols : "");
}

void csv_row(FILE *f, const point_info_t *pi, const char *alg, int rep,
             const result_t *r)
{
    int k;

    /* Workload names contain commas: quote them. */
    fprintf(f, "\"%s\",%d,%" PRIu64 ",%d,\"%s\",%s,%zu,%zu,%zu,%d,%zu",
            pi->wname, pi->matrix, pi->seed, P, cm5_provider(), alg,
            pi->unit, pi->elem, pi->elem * pi->unit, rep, pi->t);
    for (k = 0; k < 4; k++)
        fprintf(f, ",%.9f", r->d[k]);
    fprintf(f, ",%" PRIu64 ",%" PRIu64, r->u[0], r->u[1]);
    for (k = 0; k < NS; k++)
        fprintf(f, ",%" PRIu64, r->s[k]);
    for (k = 2; k < NU; k++)
        fprintf(f, ",%" PRIu64, r->u[k]);
    fprintf(f, ",%.9f,%.9f,%" PRIu64 ",%" PRIu64 "%s%s\n", r->d[4], r->d[6],
            r->buf[0], r->buf[1], /* added last */
            pi->extra[0] ? "," : "", pi->extra);
}

static int dcmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

static double stat_of(const double *v, int n, stat_t s)
{
    double *c, m = 0;
    int i;

    if (n == 0)
        return NAN;
    if (s == STAT_MEAN) {
        for (i = 0; i < n; i++)
            m += v[i];
        return m / n;
    }
    c = xcalloc((size_t)n, sizeof(double));
    memcpy(c, v, (size_t)n * sizeof(double));
    qsort(c, (size_t)n, sizeof(double), dcmp);
    if (s == STAT_MIN)
        m = c[0];
    else if (s == STAT_MAX)
        m = c[n - 1];
    else
        m = n & 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

#define GROUP 3 /* algorithms per block of columns */
#define CELL(a, cells, wi, k, s)                                              \
    (&(cells)[((size_t)(wi) * (a)->nalg + (k)) * (a)->nsize + (s)])

static void table_head(const args_t *a, const char *wname, size_t elem,
                       size_t tmin, size_t tmax)
{
    printf("\n# workload %s  p=%d  provider=%s  seed=%" PRIu64
           "  matrices=%d  reps=%d  t=",
           wname, P, cm5_provider(), a->seed, a->matrices, a->reps);
    if (tmin == tmax)
        printf("%zu", tmax);
    else
        printf("%zu..%zu", tmin, tmax);
    printf(" units  elem_size=%zu  recv=%s%s", elem,
           a->o.recv == CM5_SCHED_RECV_GIVEN ? "given"
           : a->o.recv == CM5_SCHED_RECV_AM  ? "am"
                                             : "concat",
           a->o.interrupts ? "  interrupts" : "");
    if (a->fam == &broadcast)
        printf("  mesh=%dx%d", a->mesh_r, a->mesh_c);
    if (cm5_model()) /* CM5_MODEL, cm5run --model: doc/model.md */
        printf("\n# VIRTUAL TIME: model %s (the modelled CM-5's clock, "
               "not this host's)", cm5_model());
    printf("\n# times in ms, max over nodes, %s over matrices and reps; as "
           "wang1993's tables:\n# comm = communication cost, comp = "
           "scheduling cost (computing the schedule);\n# gather = "
           "recvcounts, matrix or counts gathered first (Generate_Recv,\n# "
           "concatenate, global max; wang1993 reports it apart, Table 3); "
           "total = the\n# whole call; perm = phases (max over nodes); msgs = "
           "network messages (all\n# nodes); size = message unit in bytes; "
           "once = comm + comp, amortised = comm\n",
           stat_names[a->stat]);
}

/* The columns of algorithms b..e-1, one row per size. */
static void table_block(const args_t *a, int wi, int b, int e, cell_t *cells)
{
    int k, s;

    printf("%8s", "");
    for (k = b; k < e; k++)
        printf(" | %-*s", a->spread ? 74 : 54, a->fam->alg_name(a->alg[k]));
    printf("\n%8s", "size");
    for (k = b; k < e; k++) {
        printf(" | %9s", "comm");
        if (a->spread)
            printf(" %9s %9s", "comm min", "comm max");
        printf(" %9s %9s %9s %6s %7s", "comp", "gather", "total", "perm",
               "msgs");
    }
    printf("\n");
    for (s = 0; s < a->nsize; s++) {
        printf("%8zu", a->size[s]);
        for (k = b; k < e; k++) {
            const cell_t *row = CELL(a, cells, wi, k, s);

            printf(" | %9.3f", 1e3 * stat_of(row->comm, row->n, a->stat));
            if (a->spread)
                printf(" %9.3f %9.3f",
                       1e3 * stat_of(row->comm, row->n, STAT_MIN),
                       1e3 * stat_of(row->comm, row->n, STAT_MAX));
            printf(" %9.3f %9.3f %9.3f %6.2f %7.0f",
                   1e3 * stat_of(row->sched, row->n, a->stat),
                   1e3 * stat_of(row->gather, row->n, a->stat),
                   1e3 * stat_of(row->total, row->n, a->stat),
                   row->phases / row->n, row->msgs / row->n);
        }
        printf("\n");
    }
}

/* wang1993 Table 4's last column: best when the schedule is used once
 * (comm + comp, as the paper), and when it is amortised (comm). */
static void table_best(const args_t *a, int wi, cell_t *cells)
{
    int k, s;

    printf("%8s | %-12s %-12s\n", "size", "best once", "best amortised");
    for (s = 0; s < a->nsize; s++) {
        int bo = 0, ba = 0;
        double vo = INFINITY, va = INFINITY;

        for (k = 0; k < a->nalg; k++) {
            const cell_t *row = CELL(a, cells, wi, k, s);
            double to = stat_of(row->once, row->n, a->stat);
            double tc = stat_of(row->comm, row->n, a->stat);

            if (to < vo)
                vo = to, bo = k;
            if (tc < va)
                va = tc, ba = k;
        }
        printf("%8zu | %-12s %-12s\n", a->size[s],
               a->fam->alg_name(a->alg[bo]), a->fam->alg_name(a->alg[ba]));
    }
}

void print_table(const args_t *a, int wi, const char *wname, size_t elem,
                 size_t tmin, size_t tmax, cell_t *cells)
{
    int b;

    table_head(a, wname, elem, tmin, tmax);
    for (b = 0; b < a->nalg; b += GROUP)
        table_block(a, wi, b, b + GROUP < a->nalg ? b + GROUP : a->nalg,
                    cells);
    if (a->nalg >= 2)
        table_best(a, wi, cells);
}

/* comm time against size, log-log, one line per algorithm (and
 * workload).  0 on success. */
int plot(const args_t *a, char **wnames, cell_t *cells)
{
    FILE *g = popen("gnuplot", "w");
    int wi, k, s, first = 1, rc;

    if (!g)
        return -1;
    /* pngcairo draws better; plain png (libgd) is the fallback. */
    fprintf(g,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
            "set terminal pngcairo size 1000,700 noenhanced; "
            "else set terminal png size 1000,700 noenhanced\n"
            "set output '%s'\n"
            "set logscale xy\nset grid\nset key left top\n"
            "set xlabel 'message unit (bytes)'\n"
            "set ylabel 'comm time (ms, %s, max over nodes)'\n"
            "set title 'cm5sched: p=%d, provider %s%s%s'\n",
            a->plot, stat_names[a->stat], P, cm5_provider(),
            cm5_model() ? ", virtual time, model " : "",
            cm5_model() ? cm5_model() : "");
    fprintf(g, "plot");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++) {
            fprintf(g, "%s '-' using 1:2%s title '%s%s%s'",
                    first ? "" : ",",
                    a->spread ? ":3:4 with yerrorlines"
                              : " with linespoints",
                    a->fam->alg_name(a->alg[k]),
                    a->nwork > 1 ? " " : "", a->nwork > 1 ? wnames[wi] : "");
            first = 0;
        }
    fprintf(g, "\n");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++) {
            for (s = 0; s < a->nsize; s++) {
                cell_t *c = CELL(a, cells, wi, k, s);
                double v = 1e3 * stat_of(c->comm, c->n, a->stat);

                /* log scale: a zero time cannot be drawn */
                if (v <= 0)
                    continue;
                fprintf(g, "%zu %.9g", a->size[s], v);
                if (a->spread) /* min and max: the error bar */
                    fprintf(g, " %.9g %.9g",
                            1e3 * stat_of(c->comm, c->n, STAT_MIN),
                            1e3 * stat_of(c->comm, c->n, STAT_MAX));
                fputc('\n', g);
            }
            fprintf(g, "e\n");
        }
    rc = pclose(g);
    return rc == 0 ? 0 : -1;
}
