/*
 * mpi_bcast_port: the s-to-p broadcasting algorithms of hambrusch1995/1996
 * run with MPI point-to-point messages, the "MPI environment" port of
 * hambrusch1996 section 6 (issue 11).  The plans are the library's own:
 * algos/plan_bcast.c and plan_bcast_dist.c are compiled into this program
 * (reproduce.sh and tests/algos/mpi_port.sh build it with mpicc); only the
 * runner is MPI's, written as algos/run_bcast.c is: in each iteration a
 * node posts its receives (MPI_Irecv), gathers and starts its sends
 * (MPI_Isend), and goes on once its receives are in (MPI_Waitall on them);
 * it never waits for a send before its last iteration nor for a node it
 * does not receive from, so there is no global synchronisation between
 * iterations.
 *
 *   mpirun -np P mpi_bcast_port -a ALGS -w SPEC [-w SPEC ...] [-m RxC]
 *       [-z SIZES] [-r REPS] [-W WARMUP] [-M MATRICES] [-s SEED]
 *       [-o SETTING ...]
 *
 * The inputs are cm5sched --bcast's: ALGS a comma list of br_lin,
 * br_xy_source, br_xy_dim, xor, 2step, repos, part_lin, part_xy_source
 * (or all); SPEC a distribution of cm5_workload_bcast_make (source i sends
 * len[i] units, 1 unless SPEC says L=); SIZES the unit in bytes, a comma
 * list or A:B (powers of two); -o the options of cm5_sched_bcast_opts_set
 * (br_lin_order, repos_alg, ideal_lin).  Runs in cm5sched's order
 * (workload, matrix, size, algorithm, WARMUP unrecorded runs then REPS)
 * and timed the way cm5_sched_allgatherv times itself: from after a
 * barrier, CLOCK_MONOTONIC, the own message's copy into place + the plan
 * (sched_s) + the messages; comm_s = total_s - sched_s; each the maximum
 * over the ranks.  Every byte of every source is checked on every rank
 * after every run (warm-ups included), and nothing written past the end.
 *
 * Output on rank 0, CSV (the columns of the _mpi.csv files of reproduce.sh
 * and more): workload,matrix,p,mesh,s,alg,size,rep,total_s,comm_s,sched_s,
 * phases,msgs,bytes (phases: the plan's iterations; msgs, bytes: sent,
 * summed over the ranks, as cm5sched's CSV).  Exit status 0; 1 on a wrong
 * byte; 2 on bad arguments.  MPIPORT_TEST_CORRUPT=RANK:OFFSET flips that
 * byte of RANK's receive buffer after each run (for the tests).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cm5/sched.h>
#include <cm5/workload.h>

#include "plan_bcast.h"

#define MAXW 64
#define MAXZ 64
#define GUARD 64
#define GUARD_BYTE 0xa5

typedef struct {
    int algs[CM5_SCHED_BC_NALGS], nalg;
    const char *work[MAXW];
    int nwork;
    size_t size[MAXZ];
    int nsize, reps, warmup, matrices, r, c;
    uint64_t seed;
    cm5_sched_bcast_opts_t o;
} args_t;

/* One call: what the runner needs. */
typedef struct {
    int p, me;
    size_t esz;
    const size_t *len;   /* units of every rank */
    const size_t *displ; /* where each rank's message goes, units */
    unsigned char *rb;
    const cm5s_bc_plan_t *pl;
    cm5s_bc_layout_t l; /* this rank's messages (plan_bcast.c) */
    MPI_Request *req;
    uint64_t sent, bytes;
} call_t;

static int me, P;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A fault of the run (not of the data): one line, and stop the job. */
static void die(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "mpi_bcast_port: rank %d: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

/* ---- the pattern (cm5sched's: splitmix64 of source, run, word) --------- */

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t key_of(int src, uint64_t run)
{
    return mix(((uint64_t)(uint32_t)src << 32 | 0xffffffffULL) ^
               mix(run + 0x5bd1e995ULL));
}

/* Fill b[0..n) with key's pattern, or (check) the first byte that differs
 * from it (n if none). */
static size_t pattern(unsigned char *b, size_t n, uint64_t key, int check)
{
    uint64_t w = 0;
    size_t k;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        if (!check)
            b[k] = (unsigned char)(w >> (8 * (k & 7)));
        else if (b[k] != (unsigned char)(w >> (8 * (k & 7))))
            break;
    }
    return k;
}

/* ---- the runner (algos/run_bcast.c's, on MPI) -------------------------- */

/* This rank's messages placed (the library's own layout). */
static void run_setup(call_t *u)
{
    if (cm5s_bc_layout(&u->l, u->pl, u->me, (char *)u->rb, u->displ, u->esz) !=
            CM5_OK ||
        !(u->req = calloc((size_t)u->l.nop + 1, sizeof(MPI_Request))))
        die("out of memory for %d messages", u->pl->nmsg);
}

/* Iteration of op[lo..): receives posted, sends started, receives waited
 * for and checked; returns the first op of the next iteration. */
static int run_iter(call_t *u, int lo, MPI_Request *sends, int *nsend)
{
    const cm5s_bc_op_t *op = u->l.op;
    int it = op[lo].m->iter, hi = lo, j, nr = 0, got;
    MPI_Request *rq = u->req;
    MPI_Status *stv;
    const cm5s_bc_op_t **rop;

    while (hi < u->l.nop && op[hi].m->iter == it)
        hi++;
    stv = malloc((size_t)(hi - lo) * sizeof(*stv));
    rop = malloc((size_t)(hi - lo) * sizeof(*rop));
    if (!stv || !rop)
        die("out of memory in iteration %d", it);
    for (j = lo; j < hi; j++)
        if (op[j].m->to == u->me) {
            rop[nr] = &op[j];
            MPI_Irecv(op[j].buf, op[j].len, MPI_BYTE, op[j].m->from, it,
                      MPI_COMM_WORLD, &rq[nr++]);
        }
    for (j = lo; j < hi; j++) {
        const cm5s_bc_op_t *o = &op[j];

        if (o->m->from != u->me)
            continue;
        cm5s_bc_stage(&u->l, o, 1);
        MPI_Isend(o->buf, o->len, MPI_BYTE, o->m->to, it, MPI_COMM_WORLD,
                  &sends[(*nsend)++]);
        u->sent++;
        u->bytes += (uint64_t)o->len;
    }
    MPI_Waitall(nr, rq, stv);
    for (j = 0; j < nr; j++) {
        MPI_Get_count(&stv[j], MPI_BYTE, &got);
        if (got != rop[j]->len)
            die("iteration %d: got %d bytes from rank %d, the plan says %d", it,
                got, rop[j]->m->from, rop[j]->len);
        cm5s_bc_stage(&u->l, rop[j], 0);
    }
    free(stv);
    free(rop);
    return hi;
}

static void run_plan(call_t *u)
{
    MPI_Request *sends;
    int j = 0, nsend = 0;

    run_setup(u);
    sends = calloc((size_t)u->l.nop + 1, sizeof(*sends));
    if (!sends)
        die("out of memory for %d sends", u->l.nop);
    while (j < u->l.nop)
        j = run_iter(u, j, sends, &nsend);
    MPI_Waitall(nsend, sends, MPI_STATUSES_IGNORE);
    free(sends);
    cm5s_bc_layout_free(&u->l);
    free(u->req);
}

/* ---- one run ------------------------------------------------------------ */

typedef struct {
    const args_t *a;
    const cm5_workload_bcast_t *w;
    size_t unit, tot, *displ;
    unsigned char *sb, *rb;
} point_t;

/* One broadcast, timed as cm5_sched_allgatherv times itself: the own
 * message moved into place, the plan, the messages; t[0] total, t[1]
 * the plan (sched_s). */
static void one_call(const point_t *pt, int alg, call_t *u, double *t,
                     int *iters)
{
    cm5s_bc_plan_t pl;
    char err[160];
    double t0 = now(), t1;

    memset(u, 0, sizeof(*u));
    u->p = P;
    u->me = me;
    u->esz = pt->unit;
    u->len = pt->w->len;
    u->displ = pt->displ;
    u->rb = pt->rb;
    memmove(pt->rb + pt->displ[me] * pt->unit, pt->sb,
            pt->w->len[me] * pt->unit);
    t1 = now();
    if (cm5s_bc_plan((cm5_sched_bcast_t)alg, P, pt->w->rows, pt->w->cols,
                     pt->w->len, &pt->a->o, &pl, err, sizeof(err)) != CM5_OK)
        die("the plan of %s: %s", cm5_sched_bcast_name(alg), err);
    t[1] = now() - t1;
    u->pl = &pl;
    if (P > 1)
        run_plan(u);
    t[0] = now() - t0;
    *iters = pl.niters;
    cm5s_bc_plan_free(&pl);
}

/* Every source's message of run in place on this rank, the guard
 * untouched; 0, or 1 with one line on stderr. */
static int verify(const point_t *pt, int alg, uint64_t run)
{
    size_t n, k;
    int j;

    for (j = 0; j < P; j++) {
        n = pt->w->len[j] * pt->unit;
        k = pattern(pt->rb + pt->displ[j] * pt->unit, n, key_of(j, run), 1);
        if (k < n) {
            fprintf(stderr,
                    "mpi_bcast_port: rank %d: %s, distribution %s, "
                    "size %zu: byte %zu of source %d's message is "
                    "wrong\n",
                    me, cm5_sched_bcast_name(alg), pt->w->name, pt->unit, k, j);
            return 1;
        }
    }
    for (k = 0; k < GUARD; k++)
        if (pt->rb[pt->tot * pt->unit + k] != GUARD_BYTE) {
            fprintf(stderr,
                    "mpi_bcast_port: rank %d: %s, distribution %s, "
                    "size %zu: written past the end\n",
                    me, cm5_sched_bcast_name(alg), pt->w->name, pt->unit);
            return 1;
        }
    return 0;
}

static void corrupt(unsigned char *rb, size_t n)
{
    const char *v = getenv("MPIPORT_TEST_CORRUPT");
    unsigned long long off;
    int rank;

    if (v && sscanf(v, "%d:%llu", &rank, &off) == 2 && rank == me && off < n)
        rb[off] ^= 0x40;
}

/* One run of alg, numbered run (every source's bytes differ from run to
 * run, so stale data never passes): d = {total, comm, sched} and
 * c = {sent messages, bytes} reduced over the ranks; 1 if any rank saw
 * a wrong byte. */
static int one_run(const point_t *pt, int alg, uint64_t run, double *d,
                   uint64_t *c, int *iters)
{
    call_t u;
    double t[2];
    int bad;

    pattern(pt->sb, pt->w->len[me] * pt->unit, key_of(me, run), 0);
    memset(pt->rb, GUARD_BYTE, pt->tot * pt->unit + GUARD);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone starts together */
    one_call(pt, alg, &u, t, iters);
    corrupt(pt->rb, pt->tot * pt->unit);
    bad = verify(pt, alg, run);
    d[0] = t[0];
    d[1] = t[0] - t[1];
    d[2] = t[1];
    c[0] = u.sent;
    c[1] = u.bytes;
    MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, c, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return bad;
}

/* Every algorithm on one distribution and unit: warm-ups, then the
 * recorded runs as CSV rows; 1 on a wrong byte. */
static int point(const args_t *a, const cm5_workload_bcast_t *w, int matrix,
                 size_t unit, uint64_t *run)
{
    point_t pt = {a, w, unit, 0, NULL, NULL, NULL};
    int k, rep, j, iters, bad = 0;
    size_t at = 0;

    pt.displ = calloc((size_t)P, sizeof(size_t));
    for (j = 0; j < P; j++) {
        pt.displ[j] = at;
        at += w->len[j];
    }
    pt.tot = at;
    pt.sb = malloc(w->len[me] * unit + 1);
    pt.rb = malloc(pt.tot * unit + GUARD);
    if (!pt.displ || !pt.sb || !pt.rb)
        die("distribution %s: out of memory (%zu bytes)", w->name,
            pt.tot * unit);
    for (k = 0; k < a->nalg && !bad; k++)
        for (rep = -a->warmup; rep < a->reps && !bad; rep++) {
            double d[3];
            uint64_t c[2];

            bad = one_run(&pt, a->algs[k], ++*run, d, c, &iters);
            if (me == 0 && rep >= 0 && !bad)
                printf("\"%s\",%d,%d,%dx%d,%d,%s,%zu,%d,%.9f,%.9f,%.9f,%d,"
                       "%llu,%llu\n",
                       w->name, matrix, P, w->rows, w->cols, w->sources,
                       cm5_sched_bcast_name(a->algs[k]), unit, rep, d[0], d[1],
                       d[2], iters, (unsigned long long)c[0],
                       (unsigned long long)c[1]);
        }
    if (me == 0)
        fflush(stdout);
    free(pt.displ);
    free(pt.sb);
    free(pt.rb);
    return bad;
}

/* ---- arguments ---------------------------------------------------------- */

static int usage(const char *why, const char *what)
{
    if (me == 0) {
        if (why)
            fprintf(stderr, "mpi_bcast_port: %s%s\n", why, what);
        fprintf(stderr, "usage: mpi_bcast_port -a ALGS -w SPEC [-w SPEC ...] "
                        "[-m RxC] [-z SIZES] [-r REPS]\n"
                        "       [-W WARMUP] [-M MATRICES] [-s SEED] "
                        "[-o SETTING ...]\n");
    }
    return 2;
}

static int parse_algs(args_t *a, char *list)
{
    cm5_sched_bcast_t alg;
    char *tok, *save;
    int k;

    for (tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) { /* the eight, not auto */
            for (a->nalg = 0, k = CM5_SCHED_BC_BR_LIN; k < CM5_SCHED_BC_NALGS;
                 k++)
                a->algs[a->nalg++] = k;
            continue;
        }
        if (cm5_sched_bcast_parse(tok, &alg) != CM5_OK ||
            alg == CM5_SCHED_BC_AUTO || a->nalg == CM5_SCHED_BC_NALGS)
            return usage("-a: unknown algorithm or too many: ", tok);
        a->algs[a->nalg++] = (int)alg;
    }
    return a->nalg ? 0 : usage("-a: no algorithm", "");
}

/* A comma list of units, or A:B: the powers of two from A to B. */
static int parse_sizes(args_t *a, char *spec)
{
    unsigned long x, y;
    char *tok, *save, *end;

    if (sscanf(spec, "%lu:%lu", &x, &y) == 2) {
        if (!x || x > y || (x & (x - 1)) || (y & (y - 1)))
            return usage("-z: not powers of two A <= B: ", spec);
        for (; x <= y && a->nsize < MAXZ; x *= 2)
            a->size[a->nsize++] = x;
        return 0;
    }
    for (tok = strtok_r(spec, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        x = strtoul(tok, &end, 10);
        if (!x || *end || a->nsize == MAXZ)
            return usage("-z: not a byte count: ", tok);
        a->size[a->nsize++] = x;
    }
    return 0;
}

static int parse(int argc, char **argv, args_t *a)
{
    const char *mesh = NULL;
    char err[256];
    int opt;

    memset(a, 0, sizeof(*a));
    a->reps = 3;
    a->warmup = 1;
    a->matrices = 1;
    a->seed = 1;
    cm5_sched_bcast_opts_init(&a->o);
    while ((opt = getopt(argc, argv, "a:w:m:z:r:W:M:s:o:")) != -1) {
        if (opt == 'a' && parse_algs(a, optarg))
            return 2;
        else if (opt == 'w' && a->nwork < MAXW)
            a->work[a->nwork++] = optarg;
        else if (opt == 'm')
            mesh = optarg;
        else if (opt == 'z' && parse_sizes(a, optarg))
            return 2;
        else if (opt == 'r')
            a->reps = atoi(optarg);
        else if (opt == 'W')
            a->warmup = atoi(optarg);
        else if (opt == 'M')
            a->matrices = atoi(optarg);
        else if (opt == 's')
            a->seed = strtoull(optarg, NULL, 10);
        else if (opt == 'o' && cm5_sched_bcast_opts_set(&a->o, optarg, err,
                                                        sizeof(err)) != CM5_OK)
            return usage("-o: ", err);
        else if (!strchr("awmzrWMso", opt))
            return usage(NULL, "");
    }
    if (optind < argc)
        return usage("unexpected argument ", argv[optind]);
    if (!a->nalg || !a->nwork || a->reps < 1 || a->warmup < 0 ||
        a->matrices < 1)
        return usage("need -a and -w; -r, -M >= 1, -W >= 0", "");
    if (!a->nsize)
        a->size[a->nsize++] = 1;
    if (!mesh)
        cm5_sched_mesh_default(P, &a->r, &a->c);
    else if (cm5_sched_mesh_parse(mesh, P, &a->r, &a->c, err, sizeof(err)) !=
             CM5_OK)
        return usage("-m: ", err);
    return 0;
}

/* cm5sched's distribution: L=1 unless the spec gives L. */
static int make(const args_t *a, const char *spec, uint64_t seed,
                cm5_workload_bcast_t *w)
{
    char eff[512], err[256];
    const char *colon = strchr(spec, ':');
    int has_l = colon && (strstr(colon, ":L=") || strstr(colon, ",L="));

    snprintf(eff, sizeof(eff), "%s%s", spec,
             has_l   ? ""
             : colon ? ",L=1"
                     : ":L=1");
    if (cm5_workload_bcast_make(eff, a->r, a->c, seed, w, err, sizeof(err)) !=
        CM5_OK)
        return usage("-w: ", err);
    snprintf(w->name, sizeof(w->name), "%s", spec);
    return 0;
}

int main(int argc, char **argv)
{
    args_t a;
    uint64_t run = 0;
    int wi, m, z, rc = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rc = parse(argc, argv, &a);
    if (me == 0 && !rc)
        printf("workload,matrix,p,mesh,s,alg,size,rep,total_s,comm_s,sched_s,"
               "phases,msgs,bytes\n");
    for (wi = 0; wi < a.nwork && !rc; wi++)
        for (m = 0; m < a.matrices && !rc; m++) {
            cm5_workload_bcast_t w;

            rc = make(&a, a.work[wi], a.seed + (uint64_t)m, &w);
            if (rc)
                break;
            for (z = 0; z < a.nsize && !rc; z++)
                rc = point(&a, &w, m, a.size[z], &run);
            cm5_workload_bcast_free(&w);
        }
    MPI_Finalize();
    return rc;
}
