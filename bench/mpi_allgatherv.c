/*
 * mpi_allgatherv: Open MPI's MPI_Allgatherv on the source distributions
 * of cm5sched --bcast, the reference row of bench/reproduce.sh's
 * hambrusch section (built there with mpicc, linked with libcm5sched for
 * cm5_workload_bcast_make only: no CMMD call is made).
 *
 *   mpirun -np P mpi_allgatherv -w SPEC -m RxC -u UNIT [-r REPS] [-s SEED]
 *
 * The distribution is the one "cm5sched --bcast ... --workload SPEC --mesh
 * RxC --seed SEED" builds: source i sends len[i] x UNIT bytes (len 1
 * unless SPEC says L=).  Every run fills each source's message with a
 * pattern of (source, run, offset) and checks every byte on every rank.
 * Each run starts after an MPI_Barrier; its time is the slowest rank's.
 * Output on rank 0: "run_ms X" per recorded run (one warm-up first), then
 * "mean_ms X".  Exit status 0; 1 on a wrong byte; 2 on bad arguments.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm5/workload.h>

static unsigned char pat(int src, int run, size_t k)
{
    uint64_t z = (uint64_t)src * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)run * 0xbf58476d1ce4e5b9ULL ^ k;

    z ^= z >> 29;
    z *= 0x94d049bb133111ebULL;
    return (unsigned char)(z >> 32);
}

static int usage(int me)
{
    if (me == 0)
        fprintf(stderr, "usage: mpi_allgatherv -w SPEC -m RxC -u UNIT "
                        "[-r REPS] [-s SEED]\n");
    return 2;
}

/* The distribution on every rank, as cm5sched builds it; NULL on error. */
static size_t *lengths(const char *spec, const char *mesh, int p, uint64_t seed,
                       int me)
{
    cm5_workload_bcast_t w;
    char eff[512], err[256];
    int r, c;

    if (sscanf(mesh, "%dx%d", &r, &c) != 2 || r * c != p) {
        if (me == 0)
            fprintf(stderr, "mpi_allgatherv: mesh %s is not %d nodes\n", mesh,
                    p);
        return NULL;
    }
    snprintf(eff, sizeof(eff), "%s%s", spec,
             strstr(spec, "L=")  ? ""
             : strchr(spec, ':') ? ",L=1"
                                 : ":L=1");
    if (cm5_workload_bcast_make(eff, r, c, seed, &w, err, sizeof(err)) !=
        CM5_OK) {
        if (me == 0)
            fprintf(stderr, "mpi_allgatherv: %s\n", err);
        return NULL;
    }
    return w.len;
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *mesh = NULL;
    size_t unit = 0, *len, tot = 0, k;
    int p, me, opt, reps = 5, run, j, bad = 0;
    uint64_t seed = 1;
    int *cnt, *dsp;
    unsigned char *sb, *rb;
    double sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    while ((opt = getopt(argc, argv, "w:m:u:r:s:")) != -1) {
        if (opt == 'w')
            spec = optarg;
        else if (opt == 'm')
            mesh = optarg;
        else if (opt == 'u')
            unit = strtoul(optarg, NULL, 10);
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 's')
            seed = strtoull(optarg, NULL, 10);
        else
            return MPI_Finalize(), usage(me);
    }
    if (!spec || !mesh || !unit || reps < 1 ||
        !(len = lengths(spec, mesh, p, seed, me)))
        return MPI_Finalize(), usage(me);
    cnt = calloc((size_t)p, sizeof(int));
    dsp = calloc((size_t)p, sizeof(int));
    for (j = 0; j < p; j++) {
        cnt[j] = (int)(len[j] * unit);
        dsp[j] = (int)tot;
        tot += len[j] * unit;
    }
    sb = malloc(len[me] * unit + 1);
    rb = malloc(tot + 1);
    for (run = 0; run <= reps && !bad; run++) {
        double t0, t;

        for (k = 0; k < len[me] * unit; k++)
            sb[k] = pat(me, run, k);
        memset(rb, 0, tot);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_Allgatherv(sb, cnt[me], MPI_BYTE, rb, cnt, dsp, MPI_BYTE,
                       MPI_COMM_WORLD);
        t = MPI_Wtime() - t0;
        MPI_Reduce(me ? &t : MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, 0,
                   MPI_COMM_WORLD);
        for (j = 0; j < p && !bad; j++)
            for (k = 0; k < (size_t)cnt[j] && !bad; k++)
                if (rb[dsp[j] + k] != pat(j, run, k)) {
                    fprintf(stderr,
                            "mpi_allgatherv: rank %d: byte %zu of "
                            "source %d is wrong\n",
                            me, k, j);
                    bad = 1;
                }
        if (me == 0 && run > 0) {
            printf("run_ms %.6f\n", 1e3 * t);
            sum += t;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && !bad)
        printf("mean_ms %.6f\n", 1e3 * sum / reps);
    MPI_Finalize();
    return bad;
}
