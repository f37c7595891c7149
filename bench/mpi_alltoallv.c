/*
 * mpi_alltoallv: MPI_Alltoallv on a matrix read from a file, the MPI side
 * of bench/alltoallv_vs_mpi.sh (built there with mpicc of Open MPI and of
 * MPICH).
 *
 *   mpirun -np P mpi_alltoallv -f MATRIX.csv -u UNIT [-r REPS] [-w WARMUP]
 *
 * MATRIX.csv: P lines of P non-negative integers separated by commas or
 * blanks, lines starting with '#' skipped (bench/workload_dump's output);
 * rank i sends entry (i, j) x UNIT bytes to rank j, as cm5sched does with
 * --sizes UNIT / elem_size.  Every run fills the send buffers with a
 * pattern of (source, destination, run, offset) and checks every byte
 * received.  Each run starts after an MPI_Barrier; its time is the
 * slowest rank's.  Output on rank 0: one "run_ms X" line per recorded run,
 * then "median_ms X".  Exit status 0; 1 when a byte is wrong (one line
 * "mpi_alltoallv: rank R: ..." per rank); 2 on bad arguments or file.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The matrix, p x p, or NULL with a reason on stderr. */
static long *read_matrix(const char *path, int p)
{
    long *m = calloc((size_t)p * (size_t)p, sizeof(long));
    FILE *f = fopen(path, "r");
    char line[1 << 16];
    int row = 0;

    if (!m || !f) {
        fprintf(stderr, "mpi_alltoallv: cannot read %s\n", path);
        free(m);
        if (f)
            fclose(f);
        return NULL;
    }
    while (row < p && fgets(line, sizeof(line), f)) {
        char *s = line, *e;
        int j;

        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        for (j = 0; j < p; j++) {
            m[(size_t)row * (size_t)p + (size_t)j] = strtol(s, &e, 10);
            if (e == s || m[(size_t)row * (size_t)p + (size_t)j] < 0)
                break;
            s = e + strspn(e, ", \t");
        }
        if (j < p) {
            fprintf(stderr, "mpi_alltoallv: %s: row %d: need %d entries\n",
                    path, row + 1, p);
            break;
        }
        row++;
    }
    fclose(f);
    if (row < p) {
        if (row > 0)
            fprintf(stderr, "mpi_alltoallv: %s: %d rows for %d ranks\n", path,
                    row, p);
        free(m);
        return NULL;
    }
    return m;
}

static unsigned char pat(int src, int dst, int run, size_t off)
{
    uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)dst * 40503u ^
                 (uint32_t)run * 97u ^ (uint32_t)off;

    x ^= x >> 13;
    return (unsigned char)(x * 0x5bd1e995u >> 24);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long unit = 0, *m;
    int reps = 5, warm = 1, self, p, opt, bad = 0, errs = 0, i, j, run;
    int *sc, *sd, *rc, *rd;
    size_t stot = 0, rtot = 0;
    unsigned char *sb, *rb;
    double *t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    while ((opt = getopt(argc, argv, "f:u:r:w:")) != -1) {
        if (opt == 'f')
            path = optarg;
        else if (opt == 'u')
            unit = atol(optarg);
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'w')
            warm = atoi(optarg);
        else
            bad = 1;
    }
    if (bad || !path || unit < 1 || reps < 1 || warm < 0) {
        if (self == 0)
            fprintf(stderr,
                    "usage: mpirun -np P %s -f MATRIX -u UNIT "
                    "[-r REPS] [-w WARMUP]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    m = read_matrix(path, p);
    if (!m) {
        MPI_Finalize();
        return 2;
    }
    sc = malloc(4 * (size_t)p * sizeof(int));
    t = malloc((size_t)reps * sizeof(double));
    if (!sc || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    sd = sc + p, rc = sd + p, rd = rc + p;
    for (j = 0; j < p; j++) {
        long s = m[(size_t)self * (size_t)p + (size_t)j] * unit;
        long r = m[(size_t)j * (size_t)p + (size_t)self] * unit;

        if (s > INT32_MAX || r > INT32_MAX || stot + (size_t)s > INT32_MAX ||
            rtot + (size_t)r > INT32_MAX)
            MPI_Abort(MPI_COMM_WORLD, 2); /* int counts and displacements */
        sc[j] = (int)s, sd[j] = (int)stot, stot += (size_t)s;
        rc[j] = (int)r, rd[j] = (int)rtot, rtot += (size_t)r;
    }
    sb = malloc(stot + 1);
    rb = malloc(rtot + 1);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (run = -warm; run < reps; run++) {
        double t0, dt;

        for (j = 0; j < p; j++)
            for (i = 0; i < sc[j]; i++)
                sb[sd[j] + i] = pat(self, j, run, (size_t)i);
        memset(rb, 0, rtot + 1);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE,
                      MPI_COMM_WORLD);
        dt = MPI_Wtime() - t0;
        for (j = 0; j < p; j++)
            for (i = 0; i < rc[j]; i++)
                if (rb[rd[j] + i] != pat(j, self, run, (size_t)i)) {
                    if (errs++ == 0)
                        fprintf(stderr,
                                "mpi_alltoallv: rank %d: run %d: "
                                "byte %d from rank %d is wrong\n",
                                self, run, i, j);
                    break;
                }
        MPI_Reduce(self == 0 ? MPI_IN_PLACE : &dt, &dt, 1, MPI_DOUBLE, MPI_MAX,
                   0, MPI_COMM_WORLD);
        if (run >= 0)
            t[run] = dt * 1e3;
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (self == 0) {
        for (run = 0; run < reps; run++)
            printf("run_ms %.4f\n", t[run]);
        qsort(t, (size_t)reps, sizeof(double), cmp_double);
        printf("bytes %zu per rank 0, verified %s\n", stot,
               errs ? "NO" : "yes");
        printf("median_ms %.4f\n", t[reps / 2]);
    }
    free(sb), free(rb), free(sc), free(t), free(m);
    MPI_Finalize();
    return errs ? 1 : 0;
}
