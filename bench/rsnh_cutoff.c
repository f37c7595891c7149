/*
 * rsnh_cutoff: RS_NH's cutoff policies ([AMB-4], ALGORITHMS.md 1.4)
 * against wang1993's own measure of them: RS_NH's phases over RS_N's,
 * 1.02 / 1.03 / 1.01 on test set 2 (Table 5, nonuniform d = 4, 16, 31)
 * and 1.30 / 1.37 / 1.46 on the airfoil meshes (Table 6; ours are
 * stand-ins, workloads(7)).  For each workload and policy: the mean
 * phases of both planners, their ratio, the ratio of their loosely
 * synchronous communication (the sum over phases of the largest piece
 * sent, in units, plus one unit a phase for its start), and RS_NH's
 * counted planning cost (what virtual time charges, plan_rsn.h).
 * Prints a Markdown table (doc/bench.md, "RS_NH's cutoff against the
 * paper's phase counts").  Pure computation: no nodes.
 *
 *   bench/rsnh_cutoff [MATRICES]
 *
 * The airfoil rows need METIS (libmetis5); without it they say so.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cm5/sched.h>
#include <cm5/workload.h>

#include "plan_rsn.h"

#define P 32

static const struct {
    const char *wl;
    double paper; /* wang1993's RS_NH / RS_N phases */
} rows[] = {
    {"nonuniform:d=4", 5.66 / 5.54},    {"nonuniform:d=16", 19.1 / 18.56},
    {"nonuniform:d=31", 34.56 / 34.2},  {"mesh:airfoil2800", 19.65 / 15.15},
    {"mesh:airfoil9428", 22.5 / 16.45}, {"mesh:airfoil53961", 26.4 / 18.05},
};

static const struct {
    const char *name;
    cm5_sched_cutoff_t cut;
    double q;
} pols[] = {
    {"quantile:0.9 (default)", CM5_SCHED_CUTOFF_QUANTILE, 0.9},
    {"quantile:0.75", CM5_SCHED_CUTOFF_QUANTILE, 0.75},
    {"critical", CM5_SCHED_CUTOFF_CRITICAL, 0},
    {"none", CM5_SCHED_CUTOFF_NONE, 0},
};

/* Phases, the comm proxy, the counted cost of one planning. */
static int plan(const cm5_workload_t *w, int heaps, int pol, uint64_t seed,
                double *phases, double *comm, double *cost)
{
    cm5_sched_opts_t o;
    cm5s_rsn_plan_t pl;

    cm5_sched_opts_init(&o);
    o.seed = seed;
    o.rsnh_cutoff = pols[pol].cut;
    if (pols[pol].cut == CM5_SCHED_CUTOFF_QUANTILE)
        o.rsnh_quantile = pols[pol].q;
    if (cm5s_plan_rsn(P, w->com, &o, heaps, &pl) != CM5_OK)
        return -1;
    *phases += pl.nphases;
    for (int q = 0; q < pl.nphases; q++) {
        size_t mx = 0;

        for (int i = 0; i < P; i++)
            if (pl.size[(size_t)q * P + (size_t)i] > mx)
                mx = pl.size[(size_t)q * P + (size_t)i];
        *comm += (double)mx + 1;
    }
    *cost += cm5s_rsn_plan_cost(&pl);
    cm5s_rsn_plan_free(&pl);
    return 0;
}

int main(int argc, char **argv)
{
    int nmat = argc > 1 ? atoi(argv[1]) : 10;
    int nrows = (int)(sizeof(rows) / sizeof(rows[0]));
    int npols = (int)(sizeof(pols) / sizeof(pols[0]));

    if (nmat < 1) {
        fprintf(stderr, "usage: rsnh_cutoff [MATRICES] (>= 1)\n");
        return 2;
    }
    printf("%d nodes, %d matrices a workload (seeds 1..%d)\n\n", P, nmat, nmat);
    printf("| workload | paper RS_NH/RS_N | policy | RS_N phases | RS_NH "
           "phases | RS_NH/RS_N | comm RS_NH/RS_N | RS_NH comp (ms) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < nrows; r++) {
        for (int k = 0; k < npols; k++) {
            double ph[2] = {0, 0}, cm[2] = {0, 0}, cost[2] = {0, 0};
            char err[200];
            int m;

            for (m = 0; m < nmat; m++) {
                cm5_workload_t w;

                if (cm5_workload_make(rows[r].wl, P, 1 + (uint64_t)m, &w, err,
                                      sizeof(err)) != CM5_OK)
                    break;
                for (int h = 0; h < 2; h++)
                    if (plan(&w, h, k, 7 + (uint64_t)m, &ph[h], &cm[h],
                             &cost[h]) < 0) {
                        fprintf(stderr, "rsnh_cutoff: planning %s failed\n",
                                rows[r].wl);
                        cm5_workload_free(&w);
                        return 1;
                    }
                cm5_workload_free(&w);
            }
            if (m < nmat) {
                printf("| %s | %.2f | -- | (%s) | | | | |\n", rows[r].wl,
                       rows[r].paper, err);
                break;
            }
            printf("| %s | %.2f | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
                   rows[r].wl, rows[r].paper, pols[k].name, ph[0] / nmat,
                   ph[1] / nmat, ph[1] / ph[0], cm[1] / cm[0],
                   cost[1] / nmat * 1e3);
        }
    }
    return 0;
}
