/*
 * workload_dump: print the matrix cm5sched builds for a workload, so that
 * bench/alltoallv_vs_mpi.sh gives MPI_Alltoallv the identical matrix.
 *
 *   workload_dump SPEC P SEED
 *
 * Output (the csv: workload format, which bench/mpi_alltoallv.c reads):
 *   # workload NAME p=P seed=SEED elem_size=E
 *   P lines of P comma-separated units (row = source)
 * cm5sched --workload SPEC --seed SEED runs its first matrix on the same
 * cm5_workload_make(SPEC, P, SEED) call.  Exit status 0, 2 on bad
 * arguments or a bad spec.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <cm5/workload.h>

int main(int argc, char **argv)
{
    cm5_workload_t w;
    char err[256];
    int p, i, j;

    if (argc != 4 || (p = atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: %s SPEC P SEED\n", argv[0]);
        return 2;
    }
    if (cm5_workload_make(argv[1], p, strtoull(argv[3], NULL, 10), &w, err,
                          sizeof(err)) != CM5_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 2;
    }
    printf("# workload %s p=%d seed=%" PRIu64 " elem_size=%zu\n", w.name, p,
           w.seed, w.elem_size);
    for (i = 0; i < p; i++)
        for (j = 0; j < p; j++)
            printf("%zu%c", w.com[(size_t)i * (size_t)p + (size_t)j],
                   j + 1 < p ? ',' : '\n');
    cm5_workload_free(&w);
    return 0;
}
