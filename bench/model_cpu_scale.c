/*
 * model_cpu_scale: how many times faster than a CM-5 node this host's core
 * runs the RS_N and RS_NH planners, against wang1993's comp column (Table
 * 4, test set 1; Table 5, test set 2): the CM5_MODEL_CPU_SCALE that makes
 * virtual time charge their CPU time as the CM-5 spent it (doc/model.md,
 * "Computation").  Prints a Markdown table and the scale fitted on RS_N,
 * test set 1, d = 16; the other rows validate it.
 *
 *   bench/model_cpu_scale [MATRICES [REPEATS]]
 *
 * Each planning runs REPEATS times on each of MATRICES matrices (32 nodes,
 * the workloads cm5sched builds); the table gives the median thread CPU
 * time and the planner's counted steps (what virtual time charges the
 * planning with, plan_rsn.h).  Pure computation: no nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cm5/sched.h>
#include <cm5/workload.h>

#include "plan_rsn.h"

#define P 32

static const struct {
    const char *wl;
    int d, heaps;
    double cm5_ms; /* wang1993's comp */
    const char *table;
} rows[] = {
    {"density", 4, 0, 1.57, "4"},      {"density", 16, 0, 6.27, "4"},
    {"density", 31, 0, 12.86, "4"},    {"nonuniform", 4, 0, 1.57, "5"},
    {"nonuniform", 16, 0, 6.3, "5"},   {"nonuniform", 31, 0, 12.9, "5"},
    {"nonuniform", 4, 1, 6.3, "5"},    {"nonuniform", 16, 1, 43.4, "5"},
    {"nonuniform", 31, 1, 122.0, "5"},
};
#define FIT 1 /* the row the CPU scale is fitted on */
/* CM5S_PLAN_HSTEP_S was fitted on it (CM5S_PLAN_STEP_S: FIT). */
#define HFIT 7

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Median CPU time of one row's plannings; mean steps. */
static int measure(int r, int nmat, int reps, double *med, double *steps,
                   double *hsteps)
{
    double *t = malloc((size_t)nmat * (size_t)reps * sizeof(double));
    int n = 0;

    if (!t)
        return -1;
    *steps = *hsteps = 0;
    for (int m = 0; m < nmat; m++) {
        char spec[64], err[200];
        cm5_workload_t w;
        cm5_sched_opts_t o;

        snprintf(spec, sizeof(spec), "%s:d=%d", rows[r].wl, rows[r].d);
        if (cm5_workload_make(spec, P, 1000 + (uint64_t)m, &w, err,
                              sizeof(err)) != CM5_OK) {
            fprintf(stderr, "model_cpu_scale: %s: %s\n", spec, err);
            free(t);
            return -1;
        }
        cm5_sched_opts_init(&o);
        o.seed = 7 + (uint64_t)m;
        for (int k = 0; k < reps; k++) {
            cm5s_rsn_plan_t pl;
            double t0 = cpu_s();

            if (cm5s_plan_rsn(P, w.com, &o, rows[r].heaps, &pl) != CM5_OK) {
                fprintf(stderr, "model_cpu_scale: planning %s failed\n", spec);
                cm5_workload_free(&w);
                free(t);
                return -1;
            }
            t[n++] = cpu_s() - t0;
            if (k == 0) {
                *steps += (double)pl.steps / nmat;
                *hsteps += (double)pl.hsteps / nmat;
            }
            cm5s_rsn_plan_free(&pl);
        }
        cm5_workload_free(&w);
    }
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    *med = t[n / 2];
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    int nmat = argc > 1 ? atoi(argv[1]) : 20,
        reps = argc > 2 ? atoi(argv[2]) : 10;
    int nrows = (int)(sizeof(rows) / sizeof(rows[0]));
    double med[sizeof(rows) / sizeof(rows[0])],
        st[sizeof(med) / sizeof(med[0])];
    double hst[sizeof(med) / sizeof(med[0])], scale;

    if (nmat < 1 || reps < 1) {
        fprintf(stderr, "usage: model_cpu_scale [MATRICES [REPEATS]] (>= 1)\n");
        return 2;
    }
    for (int r = 0; r < nrows; r++)
        if (measure(r, nmat, reps, &med[r], &st[r], &hst[r]) < 0)
            return 1;
    scale = rows[FIT].cm5_ms * 1e-3 / med[FIT];
    printf("CM5_MODEL_CPU_SCALE fitted on RS_N, test set 1, d = 16: %.0f\n\n",
           scale);
    printf("| wang1993 | planner | workload | CM-5 comp (ms) | host CPU "
           "median (us) | x scale (ms) | error | steps | heap steps | "
           "counted steps (ms) | error |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < nrows; r++) {
        double cm5 = rows[r].cm5_ms, cpu = med[r] * scale * 1e3;
        double counted =
            (st[r] * CM5S_PLAN_STEP_S + hst[r] * CM5S_PLAN_HSTEP_S) * 1e3;

        printf("| Table %s%s | %s | %s:d=%d | %.2f | %.1f | %.2f | %+.0f %% "
               "| %.0f | %.0f | %.2f | %+.0f %% |\n",
               rows[r].table,
               r == FIT    ? " (fit: both)"
               : r == HFIT ? " (fit: heap steps)"
                           : "",
               rows[r].heaps ? "RS_NH" : "RS_N", rows[r].wl, rows[r].d, cm5,
               med[r] * 1e6, cpu, 100 * (cpu - cm5) / cm5, st[r], hst[r],
               counted, 100 * (counted - cm5) / cm5);
    }
    return 0;
}
