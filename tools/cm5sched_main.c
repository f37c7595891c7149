/*
 * cm5sched: the experiment driver.  Runs the papers' personalized-
 * communication algorithms (<cm5/sched.h>) on the papers' workloads
 * (<cm5/workload.h>) over a range of message sizes, verifies every byte
 * of every run, and prints tables shaped like wang1993's Tables 4-6 (per
 * size: comm, comp, gather, total, phases and messages, one column group
 * per algorithm), a CSV file of every run and a gnuplot graph.
 *
 *   cm5run -n 32 cm5sched --alg rsn,lp,drsn --workload density:d=16 \
 *       --sizes 16:131072 --reps 5
 *
 * Every node parses the same arguments the same way (cm5sched_opts.c);
 * node 0 alone prints.  What only node 0 can check (files, gnuplot) is
 * agreed on by a reduction.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

#include "cm5sched.h"

int cs_nodes, cs_self;

/* What the loop carries from point to point. */
typedef struct {
    const args_t *a;
    FILE *csv;
    cell_t *cells;
    double *samples; /* the cells' */
    work_t *w;       /* per workload */
    uint64_t run;
    long done, total;
} loop_t;

/* Every workload spec is checked (identically on every node) before
 * anything runs; so are the files and gnuplot, by node 0 (everyone
 * learns the verdict). */
static void check_args(loop_t *l)
{
    const args_t *a = l->a;
    int wi, bad = 0;

    l->w = xcalloc((size_t)a->nwork, sizeof(work_t));
    for (wi = 0; wi < a->nwork; wi++) {
        point_info_t pi;
        char err[256];
        void *w;

        if (a->fam->work_make(a, a->work[wi], a->seed, &w, &pi, err,
                              sizeof(err)) != 0)
            usage_error("--workload: %s", err);
        l->w[wi] = (work_t){strdup(pi.wname), pi.elem, SIZE_MAX, 0};
        a->fam->work_free(w);
    }
    if (cs_self == 0 && a->plot &&
        system("command -v gnuplot >/dev/null 2>&1")) {
        fprintf(stderr, "cm5sched: --plot needs gnuplot, which is not in "
                        "PATH\n");
        bad = 1;
    }
    if (cs_self == 0 && !bad && a->csv && !(l->csv = fopen(a->csv, "w"))) {
        fprintf(stderr, "cm5sched: --csv %s: %s\n", a->csv, strerror(errno));
        bad = 1;
    }
    fflush(stderr);
    if (CMMD_reduce_int(bad, CMMD_combiner_max))
        exit(2);
    if (l->csv)
        csv_header(l->csv, a->fam);
}

/* One cell per workload, algorithm and size; every sample in one array. */
static void cells_new(loop_t *l)
{
    const args_t *a = l->a;
    size_t nsamp = (size_t)a->matrices * a->reps, k;
    size_t n = (size_t)a->nwork * a->nalg * a->nsize;

    l->cells = xcalloc(n, sizeof(cell_t));
    l->samples = xcalloc(n * NSAMPLE * nsamp, sizeof(double));
    for (k = 0; k < n * NSAMPLE; k++)
        l->cells[k / NSAMPLE].v[k % NSAMPLE] = l->samples + k * nsamp;
    l->total = (long)a->nwork * a->matrices * a->nsize * a->nalg;
}

static void record(cell_t *c, const result_t *r)
{
    const double v[NSAMPLE] = {r->d[1], r->d[2], r->d[5], r->d[0],
                               r->d[1] + r->d[2]};
    int i;

    for (i = 0; i < NSAMPLE; i++)
        c->v[i][c->n] = v[i];
    c->phases += (double)r->u[0];
    c->msgs += (double)r->s[0];
    c->n++;
}

/* Algorithm k at one point: the warm-up and the recorded reps. */
static void run_alg(loop_t *l, void *pt, const point_info_t *pi, int wi, int k,
                    int s)
{
    const args_t *a = l->a;
    cell_t *c = CELL(a, l->cells, wi, k, s);
    const char *an = a->fam->alg_name(a->alg[k]);
    int rep;

    l->done++;
    if (cs_self == 0 && a->progress) {
        fprintf(stderr, "[%ld/%ld] %s size %zu (%s, matrix %d)\n", l->done,
                l->total, an, a->size[s], l->w[wi].name, pi->matrix);
        fflush(stderr);
    }
    for (rep = -a->warmup; rep < a->reps; rep++) {
        result_t r;

        a->fam->run(pt, a->alg[k], rep, ++l->run, &r);
        if (cs_self != 0 || rep < 0)
            continue;
        if (l->csv)
            csv_row(l->csv, pi, an, rep, &r);
        record(c, &r);
    }
}

/* Every matrix, size and algorithm of workload wi, then its table. */
static void run_workload(loop_t *l, int wi)
{
    const args_t *a = l->a;
    const char *spec = a->work[wi];
    int m, s, k;

    for (m = 0; m < a->matrices; m++) {
        uint64_t seed = a->seed + (uint64_t)m;
        point_info_t pi;
        char err[256];
        void *w;

        if (a->fam->work_make(a, spec, seed, &w, &pi, err, sizeof(err)) != 0)
            CMMD_error("cm5sched: --workload %s, seed %" PRIu64 ": %s", spec,
                       seed, err);
        for (s = 0; s < a->nsize; s++) {
            void *pt = a->fam->point_new(a, w, pi.wname, m, a->size[s], &pi);

            l->w[wi].tmin = pi.t < l->w[wi].tmin ? pi.t : l->w[wi].tmin;
            l->w[wi].tmax = pi.t > l->w[wi].tmax ? pi.t : l->w[wi].tmax;
            for (k = 0; k < a->nalg; k++)
                run_alg(l, pt, &pi, wi, k, s);
            a->fam->point_free(pt);
        }
        a->fam->work_free(w);
    }
    if (cs_self == 0 && !a->quiet) {
        print_table(a, wi, &l->w[wi], l->cells);
        fflush(stdout);
    }
}

/* Close the CSV and draw the plot; 1 if either failed (on every node). */
static int finish(loop_t *l)
{
    const args_t *a = l->a;
    int bad = 0, k;

    if (cs_self == 0) {
        if (l->csv && fclose(l->csv) != 0) {
            fprintf(stderr, "cm5sched: --csv %s: %s\n", a->csv,
                    strerror(errno));
            bad = 1;
        }
        if (a->plot && cs_plot(a, l->w, l->cells) != 0) {
            fprintf(stderr, "cm5sched: --plot %s: gnuplot failed\n", a->plot);
            bad = 1;
        }
    }
    free(l->samples);
    free(l->cells);
    for (k = 0; k < a->nwork; k++)
        free(l->w[k].name);
    free(l->w);
    return CMMD_reduce_int(bad, CMMD_combiner_max);
}

int main(int argc, char **argv)
{
    args_t a;
    loop_t l;
    int wi, bad;

    cs_nodes = CMMD_partition_size();
    cs_self = CMMD_self_address();
    parse_args(&a, argc, argv);
    memset(&l, 0, sizeof(l));
    l.a = &a;
    check_args(&l);
    cells_new(&l);
    /* From here on: the runs, not the set-up (written at exit). */
    if (a.trace && cm5_trace_start(a.trace) != CM5_OK)
        CMMD_error("cm5sched: --trace %s: cannot start the trace", a.trace);
    for (wi = 0; wi < a.nwork; wi++)
        run_workload(&l, wi);
    bad = finish(&l);
    free(a.size);
    free(a.work);
    free(a.oset);
    return bad ? 1 : 0;
}
