/*
 * prog_workload SPEC P [SEED] [--print]: build a workload
 * (<cm5/workload.h>) on one node and print its statistics: fan-out
 * (nonzeros per row) max/min/avg, fan-in max, message length max/min/avg
 * over the nonzero off-diagonal entries, and t (the largest row or
 * column sum).  --print also prints the matrix.  The form of the numbers
 * is the one of ALGORITHMS.md 5.3's table; the shell tests check them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm5/workload.h>

static void stats(const cm5_workload_t *w)
{
    int p = w->nodes, i, j, fmax = 0, fmin = p, gmax = 0;
    size_t lmax = 0, lmin = (size_t)-1, tot = 0, nnz = 0, t = 0, sum;

    for (i = 0; i < p; i++) {
        int f = 0, g = 0;

        for (sum = 0, j = 0; j < p; j++) {
            size_t v = w->com[(size_t)i * p + j];

            sum += v;
            g += i != j && w->com[(size_t)j * p + i] > 0;
            if (i == j || !v)
                continue;
            f++;
            nnz++;
            tot += v;
            lmax = v > lmax ? v : lmax;
            lmin = v < lmin ? v : lmin;
        }
        t = sum > t ? sum : t;
        for (sum = 0, j = 0; j < p; j++)
            sum += w->com[(size_t)j * p + i];
        t = sum > t ? sum : t;
        fmax = f > fmax ? f : fmax;
        fmin = f < fmin ? f : fmin;
        gmax = g > gmax ? g : gmax;
    }
    printf("workload %s p=%d seed=%llu elem=%zu fanout_max=%d fanout_min=%d "
           "fanout_avg=%.2f fanin_max=%d len_max=%zu len_min=%zu "
           "len_avg=%.2f t=%zu\n",
           w->name, p, (unsigned long long)w->seed, w->elem_size, fmax, fmin,
           (double)nnz / p, gmax, lmax, nnz ? lmin : 0,
           nnz ? (double)tot / (double)nnz : 0.0, t);
}

int main(int argc, char **argv)
{
    cm5_workload_t w;
    char err[512];
    int i, j;

    if (argc < 3) {
        fprintf(stderr, "usage: prog_workload SPEC P [SEED] [--print]\n%s",
                cm5_workload_help());
        return 2;
    }
    if (cm5_workload_make(argv[1], atoi(argv[2]),
                          argc > 3 && strcmp(argv[3], "--print")
                              ? strtoull(argv[3], NULL, 0)
                              : 1,
                          &w, err, sizeof(err)) != CM5_OK) {
        fprintf(stderr, "prog_workload: %s\n", err);
        return 1;
    }
    stats(&w);
    if (!strcmp(argv[argc - 1], "--print"))
        for (i = 0; i < w.nodes; i++)
            for (j = 0; j < w.nodes; j++)
                printf("%zu%c", w.com[(size_t)i * w.nodes + j],
                       j + 1 < w.nodes ? ' ' : '\n');
    cm5_workload_free(&w);
    return 0;
}
