/*
 * cm5sched's output (node 0): the CSV file, the per-size tables shaped
 * like wang1993's Tables 4-6, and the gnuplot graph.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#include "cm5sched.h"

/* ---- CSV ---------------------------------------------------------------- */

void csv_header(FILE *f, const family_t *fam)
{
    fprintf(f,
            "workload,matrix,matrix_seed,p,provider,alg,size,elem_size,"
            "msg_bytes_per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,"
            "phases,max_concurrent_in,msgs,bytes,msgs_recv,bytes_recv,"
            "inquiries,denials,nstages,stage1_steps,stage1_msgs,"
            "stage1_maxlen,stage2_steps,stage2_msgs,stage2_maxlen,"
            "stage3_steps,stage3_msgs,stage3_maxlen,stage4_steps,"
            "stage4_msgs,stage4_maxlen,gather_s,copy_s,sbuf_units,"
            "rbuf_units%s%s\n",
            fam->csv_cols ? "," : "", fam->csv_cols ? fam->csv_cols : "");
}

void csv_row(FILE *f, const point_info_t *pi, const char *alg, int rep,
             const result_t *r)
{
    int k;

    /* Workload names contain commas: quote them. */
    fprintf(f, "\"%s\",%d,%" PRIu64 ",%d,\"%s\",%s,%zu,%zu,%zu,%d,%zu",
            pi->wname, pi->matrix, pi->seed, cs_nodes, cm5_provider(), alg,
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

/* ---- statistics --------------------------------------------------------- */

static int dcmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* Statistic s of sample i of cell c, in ms. */
static double ms(const cell_t *c, int i, stat_t s)
{
    double *v, m = 0;
    int k, n = c->n;

    if (n == 0)
        return NAN;
    if (s == STAT_MEAN) {
        for (k = 0; k < n; k++)
            m += c->v[i][k];
        return 1e3 * (m / n);
    }
    v = memcpy(xcalloc((size_t)n, sizeof(double)), c->v[i],
               (size_t)n * sizeof(double));
    qsort(v, (size_t)n, sizeof(double), dcmp);
    m = s == STAT_MIN   ? v[0]
        : s == STAT_MAX ? v[n - 1]
        : n & 1         ? v[n / 2]
                        : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    return 1e3 * m;
}

/* ---- tables ------------------------------------------------------------- */

#define GROUP 3 /* algorithms per block of columns */

static void table_head(const args_t *a, const work_t *w)
{
    printf("\n# workload %s  p=%d  provider=%s  seed=%" PRIu64
           "  matrices=%d  reps=%d  t=",
           w->name, cs_nodes, cm5_provider(), a->seed, a->matrices, a->reps);
    if (w->tmin == w->tmax)
        printf("%zu", w->tmax);
    else
        printf("%zu..%zu", w->tmin, w->tmax);
    printf(" units  elem_size=%zu  recv=%s%s", w->elem,
           a->o.recv == CM5_SCHED_RECV_GIVEN ? "given"
           : a->o.recv == CM5_SCHED_RECV_AM  ? "am"
                                             : "concat",
           a->o.interrupts ? "  interrupts" : "");
    if (a->fam == &broadcast)
        printf("  mesh=%dx%d", a->mesh_r, a->mesh_c);
    if (cm5_model()) /* CM5_MODEL, cm5run --model: doc/model.md */
        printf("\n# VIRTUAL TIME: model %s (the modelled CM-5's clock, "
               "not this host's)",
               cm5_model());
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
    for (k = b; k < e; k++)
        printf(" | %9s%s %9s %9s %9s %6s %7s", "comm",
               a->spread ? "  comm min  comm max" : "", "comp", "gather",
               "total", "perm", "msgs");
    for (s = 0; s < a->nsize; s++) {
        printf("\n%8zu", a->size[s]);
        for (k = b; k < e; k++) {
            const cell_t *c = CELL(a, cells, wi, k, s);

            printf(" | %9.3f", ms(c, COMM, a->stat));
            if (a->spread)
                printf(" %9.3f %9.3f", ms(c, COMM, STAT_MIN),
                       ms(c, COMM, STAT_MAX));
            printf(" %9.3f %9.3f %9.3f %6.2f %7.0f", ms(c, SCHED, a->stat),
                   ms(c, GATHER, a->stat), ms(c, TOTAL, a->stat),
                   c->phases / c->n, c->msgs / c->n);
        }
    }
    printf("\n");
}

/* wang1993 Table 4's last column: best when the schedule is used once
 * (comm + comp, as the paper), and when it is amortised (comm). */
static void table_best(const args_t *a, int wi, cell_t *cells)
{
    int k, s;

    printf("%8s | %-12s %-12s\n", "size", "best once", "best amortised");
    for (s = 0; s < a->nsize; s++) {
        double v[2] = {INFINITY, INFINITY};
        int best[2] = {0, 0};

        for (k = 0; k < a->nalg; k++) {
            const cell_t *c = CELL(a, cells, wi, k, s);
            double t[2] = {ms(c, ONCE, a->stat), ms(c, COMM, a->stat)};

            if (t[0] < v[0])
                v[0] = t[0], best[0] = k;
            if (t[1] < v[1])
                v[1] = t[1], best[1] = k;
        }
        printf("%8zu | %-12s %-12s\n", a->size[s],
               a->fam->alg_name(a->alg[best[0]]),
               a->fam->alg_name(a->alg[best[1]]));
    }
}

void print_table(const args_t *a, int wi, const work_t *w, cell_t *cells)
{
    int b;

    table_head(a, w);
    for (b = 0; b < a->nalg; b += GROUP)
        table_block(a, wi, b, b + GROUP < a->nalg ? b + GROUP : a->nalg, cells);
    if (a->nalg >= 2)
        table_best(a, wi, cells);
}

/* comm time against size, log-log, one line per algorithm (and
 * workload).  0 on success. */
int cs_plot(const args_t *a, const work_t *w, cell_t *cells)
{
    FILE *g = popen("gnuplot", "w");
    int wi, k, s;

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
            "set title 'cm5sched: p=%d, provider %s%s%s'\nplot",
            a->plot, stat_names[a->stat], cs_nodes, cm5_provider(),
            cm5_model() ? ", virtual time, model " : "",
            cm5_model() ? cm5_model() : "");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++)
            fprintf(g, "%s '-' using 1:2%s title '%s%s%s'", wi + k ? "," : "",
                    a->spread ? ":3:4 with yerrorlines" : " with linespoints",
                    a->fam->alg_name(a->alg[k]), a->nwork > 1 ? " " : "",
                    a->nwork > 1 ? w[wi].name : "");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++) {
            fprintf(g, "\n");
            for (s = 0; s < a->nsize; s++) {
                const cell_t *c = CELL(a, cells, wi, k, s);

                if (ms(c, COMM, a->stat) <= 0) /* log scale: not drawable */
                    continue;
                fprintf(g, "%zu %.9g", a->size[s], ms(c, COMM, a->stat));
                if (a->spread) /* min and max: the error bar */
                    fprintf(g, " %.9g %.9g", ms(c, COMM, STAT_MIN),
                            ms(c, COMM, STAT_MAX));
                fputc('\n', g);
            }
            fprintf(g, "e");
        }
    fprintf(g, "\n");
    return pclose(g) == 0 ? 0 : -1;
}
