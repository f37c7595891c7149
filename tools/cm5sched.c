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
 * Every node parses the same arguments the same way, so all nodes agree
 * on every error without communicating; node 0 alone prints.  What only
 * node 0 can check (files, gnuplot) is agreed on by a reduction.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/sched.h>
#include <cm5/workload.h>

#define GUARD 64 /* bytes past the received data that must stay put */
#define GUARD_BYTE 0xa5
#define NU 15 /* unsigned maxima reduced per run */
#define NS 6  /* sums reduced per run */

/* STAT_MAX is for --spread only (--stat takes the first three). */
typedef enum { STAT_MEAN = 0, STAT_MIN, STAT_MEDIAN, STAT_MAX } stat_t;
static const char *const stat_names[] = {"mean", "min", "median"};

typedef struct {
    cm5_sched_alg_t alg[CM5_SCHED_NALGS];
    int nalg;
    const char **work; /* --workload specs, in order */
    int nwork;
    size_t *size; /* --sizes: message units in bytes */
    int nsize;
    int reps, warmup, matrices;
    uint64_t seed;
    int seed_given; /* -o seed=... fixes the schedule seed */
    cm5_sched_opts_t o;
    const char *csv, *plot;
    int quiet, progress;
    int spread; /* print and plot comm's min and max over the samples */
    stat_t stat;
} args_t;

/* One (workload, algorithm, size) point: every sample of every matrix
 * and rep (node 0 only). */
typedef struct {
    double *comm, *sched, *gather, *total, *once;
    double phases, msgs; /* sums, for the mean */
    int n;
} cell_t;

static int P, me;

/* ---- errors -------------------------------------------------------- */

/* A bad argument: one line from node 0, the same exit on every node
 * (they all parsed the same arguments and reached the same verdict). */
static void usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    char msg[512];

    if (me == 0) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        /* The option parser's own messages already point at --help. */
        fprintf(stderr, "cm5sched: %s%s\n", msg,
                strstr(msg, "--help") ? ""
                                      : " (cm5sched --help lists the options)");
        fflush(stderr);
    }
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (!p)
        CMMD_error("cm5sched: out of memory (%zu x %zu bytes)", n, size);
    return p;
}

/* ---- help ------------------------------------------------------------- */

static void help(void)
{
    int a;

    if (me != 0)
        return;
    printf("usage: cm5run -n P cm5sched [OPTIONS]\n"
           "\n"
           "Runs personalized-communication algorithms on workloads over a "
           "range of\nmessage sizes, verifies every byte, and prints "
           "per-size tables (times in ms,\nmax over nodes).\n"
           "\n"
           "Options:\n"
           "  --alg LIST          comma-separated algorithms, or all (rsn)\n"
           "  --workload SPEC     a workload; repeat for several "
           "(density:d=4)\n"
           "  --sizes A:B|LIST    message unit in bytes: powers of two from A "
           "to B, or a\n"
           "                      comma list (16:4096); bytes of a message = "
           "entry x unit\n"
           "                      x the workload's element size\n"
           "  --reps N            runs of every point (3)\n"
           "  --warmup N          unrecorded (but verified) runs before them "
           "(1)\n"
           "  --matrices M        matrices per workload, seeds S..S+M-1 (1; "
           "the papers\n"
           "                      used 50)\n"
           "  --seed S            first matrix seed (1)\n"
           "  --stat KIND         table statistic over matrices and reps: "
           "mean, min or\n"
           "                      median (mean, as the papers)\n"
           "  -o NAME=VALUE       set an algorithm option (below; cm5sched "
           "sets elem_size\n"
           "                      and recv_capacity itself); repeatable\n"
           "  --recv KIND         recvcounts: given, am (Generate_Recv) or "
           "concat (given)\n"
           "  --interrupts        run with CM-5 interrupts on (polling)\n"
           "  --csv FILE          one row per workload, matrix, algorithm, "
           "size and rep\n"
           "  --plot FILE.png     comm time against size, log-log (needs "
           "gnuplot)\n"
           "  --progress          progress lines on stderr (default when "
           "stderr is a tty)\n"
           "  --quiet             no tables (errors only)\n"
           "  --spread            also comm's min and max over matrices and "
           "reps,\n                      in the tables and as error bars on "
           "the plot\n"
           "  --help              this text\n"
           "  --version           the version of cm5sched and CMMD\n"
           "\nAlgorithms:");
    for (a = 0; a < CM5_SCHED_NALGS; a++)
        printf(" %s", cm5_sched_alg_name((cm5_sched_alg_t)a));
    printf("\n\nWorkloads (--workload):\n");
    {
        /* Indented like the rest. */
        const char *l = cm5_workload_help(), *e;

        for (; *l; l = *e ? e + 1 : e) {
            e = strchr(l, '\n');
            if (!e)
                e = l + strlen(l);
            printf("  %.*s\n", (int)(e - l), l);
        }
    }
    printf("\nAlgorithm options (-o):\n%s", cm5_sched_opts_help());
    printf("\nexit status: 0 all runs verified, 1 a run failed, "
           "2 bad arguments\n");
}

/* ---- parsing ---------------------------------------------------------- */

static uint64_t parse_u64(const char *opt, const char *v, uint64_t min,
                          uint64_t max)
{
    unsigned long long u;
    char *end;

    errno = 0;
    if (!v || !*v || *v == '-')
        usage_error("%s: '%s' is not a non-negative integer", opt, v ? v : "");
    u = strtoull(v, &end, 10);
    if (*end || errno)
        usage_error("%s: '%s' is not a non-negative integer", opt, v);
    if (u < min || u > max)
        usage_error("%s: %llu is out of range [%" PRIu64 ", %" PRIu64 "]", opt,
                    u, min, max);
    return u;
}

static void add_alg(args_t *a, cm5_sched_alg_t alg)
{
    int i;

    for (i = 0; i < a->nalg; i++)
        if (a->alg[i] == alg)
            return;
    a->alg[a->nalg++] = alg;
}

static int is_square(int n)
{
    int r = (int)sqrt((double)n);

    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r * r == n;
}

static void parse_algs(args_t *a, const char *list)
{
    char *copy = strdup(list), *tok, *save = NULL;
    int any = 0, k;

    if (!copy)
        CMMD_error("cm5sched: out of memory");
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        cm5_sched_alg_t alg;

        any = 1;
        if (strcmp(tok, "all") == 0) {
            /* A3 needs a square number of nodes: "all" leaves it out. */
            for (k = 0; k < CM5_SCHED_NALGS; k++)
                if (k != CM5_SCHED_A3 || is_square(P))
                    add_alg(a, (cm5_sched_alg_t)k);
            continue;
        }
        if (cm5_sched_alg_parse(tok, &alg) != CM5_OK)
            usage_error("--alg: unknown algorithm '%s'", tok);
        if (alg == CM5_SCHED_A3 && !is_square(P))
            usage_error("--alg: a3 needs a square number of nodes, not %d", P);
        add_alg(a, alg);
    }
    free(copy);
    if (!any)
        usage_error("--alg: empty list '%s'", list);
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static void parse_sizes(args_t *a, const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t cap = 64;

    free(a->size);
    a->size = xcalloc(cap, sizeof(size_t));
    a->nsize = 0;
    if (colon) {
        char lo[32], *end;
        uint64_t from, to, v;

        if ((size_t)(colon - spec) >= sizeof(lo) || colon == spec)
            usage_error("--sizes: '%s' is not A:B", spec);
        memcpy(lo, spec, (size_t)(colon - spec));
        lo[colon - spec] = '\0';
        errno = 0;
        from = strtoull(lo, &end, 10);
        if (*end || errno || lo[0] == '-' || !is_pow2(from))
            usage_error("--sizes: '%s' in '%s' is not a power of two", lo,
                        spec);
        errno = 0;
        to = strtoull(colon + 1, &end, 10);
        if (!colon[1] || *end || errno || colon[1] == '-' || !is_pow2(to))
            usage_error("--sizes: '%s' in '%s' is not a power of two",
                        colon + 1, spec);
        if (from > to)
            usage_error("--sizes: %" PRIu64 " is larger than %" PRIu64, from,
                        to);
        for (v = from; v <= to && v; v <<= 1)
            a->size[a->nsize++] = (size_t)v;
        return;
    }
    {
        char *copy = strdup(spec), *tok, *save = NULL;

        if (!copy)
            CMMD_error("cm5sched: out of memory");
        for (tok = strtok_r(copy, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            if (a->nsize == (int)cap) {
                cap *= 2;
                a->size = realloc(a->size, cap * sizeof(size_t));
                if (!a->size)
                    CMMD_error("cm5sched: out of memory");
            }
            a->size[a->nsize++] =
                (size_t)parse_u64("--sizes", tok, 1, (uint64_t)INT_MAX);
        }
        free(copy);
    }
    if (a->nsize == 0)
        usage_error("--sizes: empty list '%s'", spec);
}

static void set_opt(args_t *a, const char *setting)
{
    char err[256];

    /* The driver owns these: the sizes and the discovered receive sizes
     * set them for every run. */
    if (strncmp(setting, "elem_size=", 10) == 0)
        usage_error("-o %s: the element size comes from --sizes and the "
                    "workload",
                    setting);
    if (strncmp(setting, "recv_capacity=", 14) == 0)
        usage_error("-o %s: cm5sched sets the receive capacity", setting);
    if (cm5_sched_opts_set(&a->o, setting, err, sizeof(err)) != CM5_OK)
        usage_error("-o: %s", err);
    if (strncmp(setting, "seed=", 5) == 0)
        a->seed_given = 1;
}

/* "--name value" or "--name=value"; NULL if arg is not --name. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);

    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        usage_error("%s needs a value", name);
    return argv[++*i];
}

static void parse_args(args_t *a, int argc, char **argv)
{
    const char *v;
    int i, have_alg = 0, have_sizes = 0;

    memset(a, 0, sizeof(*a));
    cm5_sched_opts_init(&a->o);
    a->reps = 3;
    a->warmup = 1;
    a->matrices = 1;
    a->seed = 1;
    a->work = xcalloc((size_t)argc, sizeof(char *));
    a->progress = isatty(2);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            help();
            exit(0);
        } else if (!strcmp(arg, "--version")) {
            if (me == 0)
                printf("cm5sched (cm5fab %s) %s\n", PACKAGE_VERSION,
                       CMMD_version());
            exit(0);
        } else if ((v = opt_value(argc, argv, &i, "--alg"))) {
            a->nalg = 0;
            parse_algs(a, v);
            have_alg = 1;
        } else if ((v = opt_value(argc, argv, &i, "--workload"))) {
            if (!*v)
                usage_error("--workload: empty specification");
            a->work[a->nwork++] = v;
        } else if ((v = opt_value(argc, argv, &i, "--sizes"))) {
            parse_sizes(a, v);
            have_sizes = 1;
        } else if ((v = opt_value(argc, argv, &i, "--reps"))) {
            a->reps = (int)parse_u64("--reps", v, 1, 1000000);
        } else if ((v = opt_value(argc, argv, &i, "--warmup"))) {
            a->warmup = (int)parse_u64("--warmup", v, 0, 1000000);
        } else if ((v = opt_value(argc, argv, &i, "--matrices"))) {
            a->matrices = (int)parse_u64("--matrices", v, 1, 1000000);
        } else if ((v = opt_value(argc, argv, &i, "--seed"))) {
            a->seed = parse_u64("--seed", v, 0, UINT64_MAX);
        } else if ((v = opt_value(argc, argv, &i, "--stat"))) {
            int k;

            for (k = 0; k < 3 && strcmp(v, stat_names[k]); k++)
                ;
            if (k == 3)
                usage_error("--stat: '%s' is not mean, min or median", v);
            a->stat = (stat_t)k;
        } else if (!strcmp(arg, "-o") || !strncmp(arg, "-o", 2)) {
            if (arg[2])
                v = arg + 2;
            else if (i + 1 < argc)
                v = argv[++i];
            else
                usage_error("-o needs NAME=VALUE");
            set_opt(a, v);
        } else if ((v = opt_value(argc, argv, &i, "--recv"))) {
            char s[64];

            snprintf(s, sizeof(s), "recv=%s", v);
            set_opt(a, s);
        } else if (!strcmp(arg, "--interrupts")) {
            a->o.interrupts = 1;
        } else if ((v = opt_value(argc, argv, &i, "--csv"))) {
            a->csv = v;
        } else if ((v = opt_value(argc, argv, &i, "--plot"))) {
            a->plot = v;
        } else if (!strcmp(arg, "--progress")) {
            a->progress = 1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "--spread")) {
            a->spread = 1;
        } else {
            usage_error("unknown argument '%s'", arg);
        }
    }
    if (!have_alg)
        add_alg(a, CM5_SCHED_RSN);
    if (!have_sizes)
        parse_sizes(a, "16:4096");
    if (a->nwork == 0)
        a->work[a->nwork++] = "density:d=4";
    if (a->plot && strchr(a->plot, '\''))
        usage_error("--plot: file name '%s' contains a quote", a->plot);
    if (a->csv && a->plot && !strcmp(a->csv, a->plot))
        usage_error("--csv and --plot name the same file '%s'", a->csv);
}

/* gnuplot in PATH (checked before anything runs). */
static int have_gnuplot(void)
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

/* ---- data pattern ----------------------------------------------------- */

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Byte k of the data node src sends node dst in run number run: a
 * different pattern for every pair and every run, so that stale data of
 * an earlier run or another pair never passes. */
static uint64_t pat_key(int src, int dst, uint64_t run)
{
    return mix(((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) ^
               mix(run + 0x5bd1e995ULL));
}

static void fill(unsigned char *b, size_t n, uint64_t key)
{
    size_t k;
    uint64_t w = 0;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        b[k] = (unsigned char)(w >> (8 * (k & 7)));
    }
}

/* Offset of the first wrong byte, or n. */
static size_t check(const unsigned char *b, size_t n, uint64_t key,
                    unsigned char *want)
{
    size_t k;
    uint64_t w = 0;

    for (k = 0; k < n; k++) {
        if ((k & 7) == 0)
            w = mix(key ^ (k >> 3));
        if (b[k] != (unsigned char)(w >> (8 * (k & 7)))) {
            *want = (unsigned char)(w >> (8 * (k & 7)));
            return k;
        }
    }
    return n;
}

/* ---- one run ------------------------------------------------------------ */

typedef struct {
    const args_t *a;
    const cm5_workload_t *w;
    int matrix;
    size_t unit;
    size_t *sc, *rc, *want_rc; /* counts in elements */
    size_t stot, rtot;         /* elements this node sends / receives */
    unsigned char *sb, *rb;
    size_t t; /* traffic bound of the matrix, units */
} point_t;

typedef struct {
    double d[6];    /* max: total, comm, sched, recv, gather, recv+gather */
    uint64_t u[NU]; /* max: phases, max_concurrent_in, nstages, stages */
    uint64_t s[NS]; /* sum: msgs, bytes sent; msgs, bytes received;
                       inquiries, denials */
} result_t;

static void point_init(point_t *pt, const args_t *a, const cm5_workload_t *w,
                       int matrix, size_t unit)
{
    size_t esz = w->elem_size * unit;
    int i, j;

    memset(pt, 0, sizeof(*pt));
    pt->a = a;
    pt->w = w;
    pt->matrix = matrix;
    pt->unit = unit;
    pt->sc = xcalloc((size_t)P * 3, sizeof(size_t));
    pt->rc = pt->sc + P;
    pt->want_rc = pt->rc + P;
    for (j = 0; j < P; j++) {
        pt->sc[j] = w->com[(size_t)me * P + j];
        pt->want_rc[j] = w->com[(size_t)j * P + me];
        pt->stot += pt->sc[j];
        pt->rtot += pt->want_rc[j];
    }
    for (i = 0; i < P; i++) {
        size_t r = 0, c = 0;

        for (j = 0; j < P; j++) {
            if (i != j) {
                r += w->com[(size_t)i * P + j];
                c += w->com[(size_t)j * P + i];
            }
        }
        pt->t = r > pt->t ? r : pt->t;
        pt->t = c > pt->t ? c : pt->t;
    }
    if ((pt->stot && esz > SIZE_MAX / pt->stot) ||
        (pt->rtot && esz > (SIZE_MAX - GUARD) / pt->rtot))
        CMMD_error("cm5sched: workload %s at size %zu: node %d's data "
                   "does not fit in memory",
                   w->name, unit, me);
    pt->sb = malloc(pt->stot * esz + 1);
    pt->rb = malloc(pt->rtot * esz + GUARD);
    if (!pt->sb || !pt->rb)
        CMMD_error("cm5sched: workload %s at size %zu: node %d cannot "
                   "allocate %zu + %zu bytes",
                   w->name, unit, me, pt->stot * esz, pt->rtot * esz);
}

static void point_free(point_t *pt)
{
    free(pt->sc);
    free(pt->sb);
    free(pt->rb);
}

static size_t rec_size; /* for rec_cmp */

static int rec_cmp(const void *x, const void *y)
{
    return memcmp(x, y, rec_size);
}

/* a4_unordered=1: this node's own records first, then, in any order,
 * exactly the records (elements) the others sent it: compared as sorted
 * lists.  Returns the bytes checked. */
static size_t verify_unordered(const point_t *pt, const char *an, int rep,
                               uint64_t run, size_t esz)
{
    size_t own = pt->want_rc[me] * esz, n = pt->rtot * esz - own, off = 0, k;
    unsigned char want = 0, *exp = malloc(n + 1), *got = pt->rb + own;
    int j;

    k = check(pt->rb, own, pat_key(me, me, run), &want);
    if (k < own)
        CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep %d: "
                   "node %d: byte %zu of its own records (first, with "
                   "a4_unordered=1) is 0x%02x, not 0x%02x",
                   an, pt->w->name, pt->unit, pt->matrix, rep, me, k, pt->rb[k],
                   want);
    if (!exp)
        CMMD_error("cm5sched: node %d cannot allocate %zu bytes", me, n);
    for (j = 0; j < P; j++) {
        if (j == me)
            continue;
        fill(exp + off, pt->want_rc[j] * esz, pat_key(j, me, run));
        off += pt->want_rc[j] * esz;
    }
    rec_size = esz;
    qsort(exp, n / esz, esz, rec_cmp);
    qsort(got, n / esz, esz, rec_cmp);
    for (k = 0; k < n && got[k] == exp[k]; k++)
        ;
    if (k < n)
        CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep %d: "
                   "node %d: the records received (a4_unordered=1) are not "
                   "those sent to it: sorted record %zu differs at byte %zu",
                   an, pt->w->name, pt->unit, pt->matrix, rep, me, k / esz,
                   k % esz);
    free(exp);
    return own + n;
}

static void verify(const point_t *pt, cm5_sched_alg_t alg, int rep,
                   uint64_t run, size_t esz)
{
    const char *an = cm5_sched_alg_name(alg);
    size_t off = 0, k;
    unsigned char want = 0;
    int j, unordered = alg == CM5_SCHED_A4 && pt->a->o.a4_unordered;

    for (j = 0; j < P; j++) {
        size_t n;

        if (pt->rc[j] != pt->want_rc[j])
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: node %d: recvcounts[%d] is %zu, not %zu",
                       an, pt->w->name, pt->unit, pt->matrix, rep, me, j,
                       pt->rc[j], pt->want_rc[j]);
        if (unordered)
            continue;
        n = pt->want_rc[j] * esz;
        k = check(pt->rb + off, n, pat_key(j, me, run), &want);
        if (k < n)
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: byte %zu from node %d to node %d is 0x%02x, not "
                       "0x%02x",
                       an, pt->w->name, pt->unit, pt->matrix, rep, k, j, me,
                       pt->rb[off + k], want);
        off += n;
    }
    if (unordered)
        off = verify_unordered(pt, an, rep, run, esz);
    for (k = 0; k < GUARD; k++)
        if (pt->rb[off + k] != GUARD_BYTE)
            CMMD_error("cm5sched: %s, workload %s, size %zu, matrix %d, rep "
                       "%d: node %d: byte %zu past the received data was "
                       "overwritten",
                       an, pt->w->name, pt->unit, pt->matrix, rep, me, k);
}

/* CM5SCHED_TEST_CORRUPT=NODE:OFFSET flips one received byte on NODE
 * after every call, so that the tests can see verification fail. */
static void corrupt(const point_t *pt, size_t esz)
{
    const char *v = getenv("CM5SCHED_TEST_CORRUPT");
    unsigned long long off;
    int node;

    if (!v || sscanf(v, "%d:%llu", &node, &off) != 2 || node != me)
        return;
    if (off < pt->rtot * esz)
        pt->rb[off] ^= 0x40;
}

static void run_once(const point_t *pt, cm5_sched_alg_t alg, int rep,
                     uint64_t run, result_t *r)
{
    const args_t *a = pt->a;
    cm5_sched_opts_t o = a->o;
    cm5_sched_stats_t st;
    size_t esz = pt->w->elem_size * pt->unit, off = 0;
    int j, s, n = 0;

    for (j = 0; j < P; j++) {
        fill(pt->sb + off, pt->sc[j] * esz, pat_key(me, j, run));
        off += pt->sc[j] * esz;
    }
    memset(pt->rb, GUARD_BYTE, pt->rtot * esz + GUARD);
    if (o.recv == CM5_SCHED_RECV_GIVEN)
        memcpy(pt->rc, pt->want_rc, (size_t)P * sizeof(size_t));
    else {
        memset(pt->rc, 0xff, (size_t)P * sizeof(size_t)); /* discovered */
        o.recv_capacity = pt->rtot;
    }
    o.elem_size = esz;
    if (!a->seed_given) /* a fresh schedule seed per matrix and rep */
        o.seed = mix(a->seed ^ mix((uint64_t)pt->matrix << 20 ^ (uint64_t)rep));

    CMMD_sync_with_nodes(); /* everyone starts together */
    cm5_sched_alltoallv(alg, pt->sb, pt->sc, NULL, pt->rb, pt->rc, NULL, &o,
                        &st);
    corrupt(pt, esz);
    verify(pt, alg, rep, run, esz);

    r->d[0] = st.total_s;
    r->d[1] = st.comm_s;
    r->d[2] = st.sched_s;
    r->d[3] = st.recv_s;
    r->d[4] = st.gather_s;
    r->d[5] = st.recv_s + st.gather_s;
    r->u[n++] = st.phases;
    r->u[n++] = st.max_concurrent_in;
    r->u[n++] = st.nstages;
    for (s = 0; s < CM5_SCHED_MAX_STAGES; s++) {
        r->u[n++] = st.stage[s].steps;
        r->u[n++] = st.stage[s].msgs_recv;
        r->u[n++] = st.stage[s].max_msg_elems;
    }
    r->s[0] = st.msgs_sent;
    r->s[1] = st.bytes_sent;
    r->s[2] = st.msgs_recv;
    r->s[3] = st.bytes_recv;
    r->s[4] = st.inquiries;
    r->s[5] = st.denials;
    CMMD_reduce_v(r->d, r->d, CMMD_combiner_dmax, sizeof(double), 6);
    CMMD_reduce_v(r->u, r->u, CMMD_combiner_umax, sizeof(uint64_t), NU);
    CMMD_reduce_v(r->s, r->s, CMMD_combiner_uadd, sizeof(uint64_t), NS);
}

/* ---- output (node 0) ---------------------------------------------------- */

static const char csv_header[] =
    "workload,matrix,matrix_seed,p,provider,alg,size,elem_size,msg_bytes_"
    "per_unit,rep,t_units,total_s,comm_s,sched_s,recv_s,phases,max_"
    "concurrent_in,msgs,bytes,msgs_recv,bytes_recv,inquiries,denials,"
    "nstages,stage1_steps,stage1_msgs,stage1_maxlen,stage2_steps,stage2_"
    "msgs,stage2_maxlen,stage3_steps,stage3_msgs,stage3_maxlen,stage4_"
    "steps,stage4_msgs,stage4_maxlen,gather_s\n";

static void csv_row(FILE *f, const point_t *pt, cm5_sched_alg_t alg, int rep,
                    const result_t *r)
{
    int k;

    /* Workload names contain commas: quote them. */
    fprintf(f, "\"%s\",%d,%" PRIu64 ",%d,\"%s\",%s,%zu,%zu,%zu,%d,%zu",
            pt->w->name, pt->matrix, pt->w->seed, P, cm5_provider(),
            cm5_sched_alg_name(alg), pt->unit, pt->w->elem_size,
            pt->w->elem_size * pt->unit, rep, pt->t);
    for (k = 0; k < 4; k++)
        fprintf(f, ",%.9f", r->d[k]);
    fprintf(f, ",%" PRIu64 ",%" PRIu64, r->u[0], r->u[1]);
    for (k = 0; k < NS; k++)
        fprintf(f, ",%" PRIu64, r->s[k]);
    for (k = 2; k < NU; k++)
        fprintf(f, ",%" PRIu64, r->u[k]);
    fprintf(f, ",%.9f\n", r->d[4]); /* gather_s, added last */
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

static void print_table(const args_t *a, int wi, const char *wname, size_t elem,
                        size_t tmin, size_t tmax, cell_t *cells)
{
    int b, k, s;
    cell_t *row;

    printf("\n# workload %s  p=%d  provider=%s  seed=%" PRIu64
           "  matrices=%d  reps=%d  t=",
           wname, P, cm5_provider(), a->seed, a->matrices, a->reps);
    if (tmin == tmax)
        printf("%zu", tmax);
    else
        printf("%zu..%zu", tmin, tmax);
    printf(" units  elem_size=%zu  recv=%s%s\n", elem,
           a->o.recv == CM5_SCHED_RECV_GIVEN ? "given"
           : a->o.recv == CM5_SCHED_RECV_AM  ? "am"
                                             : "concat",
           a->o.interrupts ? "  interrupts" : "");
    printf("# times in ms, max over nodes, %s over matrices and reps; as "
           "wang1993's tables:\n# comm = communication cost, comp = "
           "scheduling cost (computing the schedule);\n# gather = "
           "recvcounts, matrix or counts gathered first (Generate_Recv,\n# "
           "concatenate, global max; wang1993 reports it apart, Table 3); "
           "total = the\n# whole call; perm = phases (max over nodes); msgs = "
           "network messages (all\n# nodes); size = message unit in bytes; "
           "once = comm + comp, amortised = comm\n",
           stat_names[a->stat]);
    for (b = 0; b < a->nalg; b += GROUP) {
        int e = b + GROUP < a->nalg ? b + GROUP : a->nalg;

        printf("%8s", "");
        for (k = b; k < e; k++)
            printf(" | %-*s", a->spread ? 74 : 54,
                   cm5_sched_alg_name(a->alg[k]));
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
                row = &cells[((size_t)wi * a->nalg + k) * a->nsize + s];
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
    if (a->nalg < 2)
        return;
    /* wang1993 Table 4's last column: best when the schedule is used once
     * (comm + comp, as the paper), and when it is amortised (comm). */
    printf("%8s | %-12s %-12s\n", "size", "best once", "best amortised");
    for (s = 0; s < a->nsize; s++) {
        int bo = 0, ba = 0;
        double vo = INFINITY, va = INFINITY;

        for (k = 0; k < a->nalg; k++) {
            double to, tc;

            row = &cells[((size_t)wi * a->nalg + k) * a->nsize + s];
            to = stat_of(row->once, row->n, a->stat);
            tc = stat_of(row->comm, row->n, a->stat);
            if (to < vo)
                vo = to, bo = k;
            if (tc < va)
                va = tc, ba = k;
        }
        printf("%8zu | %-12s %-12s\n", a->size[s],
               cm5_sched_alg_name(a->alg[bo]), cm5_sched_alg_name(a->alg[ba]));
    }
}

/* comm time against size, log-log, one line per algorithm (and
 * workload).  0 on success. */
static int plot(const args_t *a, char **wnames, cell_t *cells)
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
            "set title 'cm5sched: p=%d, provider %s'\n",
            a->plot, stat_names[a->stat], P, cm5_provider());
    fprintf(g, "plot");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++) {
            fprintf(g, "%s '-' using 1:2%s title '%s%s%s'",
                    first ? "" : ",",
                    a->spread ? ":3:4 with yerrorlines"
                              : " with linespoints",
                    cm5_sched_alg_name(a->alg[k]),
                    a->nwork > 1 ? " " : "", a->nwork > 1 ? wnames[wi] : "");
            first = 0;
        }
    fprintf(g, "\n");
    for (wi = 0; wi < a->nwork; wi++)
        for (k = 0; k < a->nalg; k++) {
            for (s = 0; s < a->nsize; s++) {
                cell_t *c = &cells[((size_t)wi * a->nalg + k) * a->nsize + s];
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

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    args_t a;
    FILE *csv = NULL;
    cell_t *cells;
    char **wnames;
    size_t nsamp, *elem, *tmin, *tmax;
    uint64_t run = 0;
    long done = 0, total;
    int wi, m, s, k, rep, bad = 0;

    P = CMMD_partition_size();
    me = CMMD_self_address();
    parse_args(&a, argc, argv);

    /* Every workload spec is checked (identically on every node) before
     * anything runs. */
    wnames = xcalloc((size_t)a.nwork, sizeof(char *));
    elem = xcalloc((size_t)a.nwork * 3, sizeof(size_t));
    tmin = elem + a.nwork;
    tmax = tmin + a.nwork;
    for (wi = 0; wi < a.nwork; wi++) {
        cm5_workload_t w;
        char err[256];

        memset(&w, 0, sizeof(w));
        if (cm5_workload_make(a.work[wi], P, a.seed, &w, err, sizeof(err)) !=
            CM5_OK)
            usage_error("--workload: %s", err);
        wnames[wi] = strdup(w.name[0] ? w.name : a.work[wi]);
        elem[wi] = w.elem_size ? w.elem_size : 1;
        tmin[wi] = SIZE_MAX;
        cm5_workload_free(&w);
    }

    /* What node 0 alone can check; everyone learns the verdict. */
    if (me == 0) {
        if (a.plot && !have_gnuplot()) {
            fprintf(stderr, "cm5sched: --plot needs gnuplot, which is not "
                            "in PATH\n");
            bad = 1;
        }
        if (!bad && a.csv && !(csv = fopen(a.csv, "w"))) {
            fprintf(stderr, "cm5sched: --csv %s: %s\n", a.csv, strerror(errno));
            bad = 1;
        }
        fflush(stderr);
    }
    if (CMMD_reduce_int(bad, CMMD_combiner_max))
        exit(2);
    if (csv)
        fputs(csv_header, csv);

    nsamp = (size_t)a.matrices * a.reps;
    cells = xcalloc((size_t)a.nwork * a.nalg * a.nsize, sizeof(cell_t));
    for (k = 0; k < a.nwork * a.nalg * a.nsize; k++) {
        cells[k].comm = xcalloc(nsamp * 5, sizeof(double));
        cells[k].sched = cells[k].comm + nsamp;
        cells[k].gather = cells[k].sched + nsamp;
        cells[k].total = cells[k].gather + nsamp;
        cells[k].once = cells[k].total + nsamp;
    }
    total = (long)a.nwork * a.matrices * a.nsize * a.nalg;

    for (wi = 0; wi < a.nwork; wi++) {
        for (m = 0; m < a.matrices; m++) {
            cm5_workload_t w;
            char err[256];

            memset(&w, 0, sizeof(w));
            if (cm5_workload_make(a.work[wi], P, a.seed + (uint64_t)m, &w, err,
                                  sizeof(err)) != CM5_OK)
                CMMD_error("cm5sched: --workload %s, seed %" PRIu64 ": %s",
                           a.work[wi], a.seed + (uint64_t)m, err);
            if (!w.name[0])
                snprintf(w.name, sizeof(w.name), "%s", a.work[wi]);
            if (!w.elem_size)
                w.elem_size = 1;
            for (s = 0; s < a.nsize; s++) {
                point_t pt;

                point_init(&pt, &a, &w, m, a.size[s]);
                if (pt.t < tmin[wi])
                    tmin[wi] = pt.t;
                if (pt.t > tmax[wi])
                    tmax[wi] = pt.t;
                for (k = 0; k < a.nalg; k++) {
                    cell_t *c = &cells[((size_t)wi * a.nalg + k) * a.nsize + s];

                    done++;
                    if (me == 0 && a.progress) {
                        fprintf(stderr,
                                "[%ld/%ld] %s size %zu (%s, matrix %d)\n", done,
                                total, cm5_sched_alg_name(a.alg[k]), a.size[s],
                                wnames[wi], m);
                        fflush(stderr);
                    }
                    for (rep = -a.warmup; rep < a.reps; rep++) {
                        result_t r;

                        run_once(&pt, a.alg[k], rep, ++run, &r);
                        if (me != 0 || rep < 0)
                            continue;
                        if (csv)
                            csv_row(csv, &pt, a.alg[k], rep, &r);
                        c->comm[c->n] = r.d[1];
                        c->sched[c->n] = r.d[2];
                        c->gather[c->n] = r.d[5];
                        c->total[c->n] = r.d[0];
                        c->once[c->n] = r.d[1] + r.d[2];
                        c->phases += (double)r.u[0];
                        c->msgs += (double)r.s[0];
                        c->n++;
                    }
                }
                point_free(&pt);
            }
            cm5_workload_free(&w);
        }
        if (me == 0 && !a.quiet) {
            print_table(&a, wi, wnames[wi], elem[wi], tmin[wi], tmax[wi],
                        cells);
            fflush(stdout);
        }
    }

    if (me == 0) {
        if (csv && fclose(csv) != 0) {
            fprintf(stderr, "cm5sched: --csv %s: %s\n", a.csv, strerror(errno));
            bad = 1;
        }
        if (a.plot && plot(&a, wnames, cells) != 0) {
            fprintf(stderr, "cm5sched: --plot %s: gnuplot failed\n", a.plot);
            bad = 1;
        }
    }
    bad = CMMD_reduce_int(bad, CMMD_combiner_max);
    for (k = 0; k < a.nwork * a.nalg * a.nsize; k++)
        free(cells[k].comm);
    free(cells);
    for (wi = 0; wi < a.nwork; wi++)
        free(wnames[wi]);
    free(wnames);
    free(elem);
    free(a.size);
    free(a.work);
    return bad ? 1 : 0;
}
