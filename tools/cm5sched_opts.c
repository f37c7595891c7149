/*
 * cm5sched's options: one table (name, argument, help, setter), the
 * parser that walks it, and --help, which prints it.  Every node parses
 * the same arguments the same way, so all nodes agree on every error
 * without communicating; node 0 alone prints.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

const char *const stat_names[] = {"mean", "min", "median"};

/* A bad argument: one line from node 0, the same exit on every node
 * (they all parsed the same arguments and reached the same verdict). */
void usage_error(const char *fmt, ...)
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

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (!p)
        CMMD_error("cm5sched: out of memory (%zu x %zu bytes)", n, size);
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (!d)
        CMMD_error("cm5sched: out of memory");
    return d;
}

/* ---- values ------------------------------------------------------------ */

typedef struct cli_opt cli_opt_t;

struct cli_opt {
    const char *name, *alias; /* alias: exact, flags only */
    const char *arg;          /* NULL: a flag */
    const char *help;         /* '\n' continues under the help column */
    void (*set)(args_t *a, const cli_opt_t *d, const char *v);
    size_t off;        /* the args_t field of set_flag/set_int/set_str */
    uint64_t lo, hi;   /* set_int's range */
};

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

static int is_square(int n)
{
    int r = (int)sqrt((double)n);

    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r * r == n;
}

static void add_alg(args_t *a, int alg)
{
    int i;

    for (i = 0; i < a->nalg; i++)
        if (a->alg[i] == alg)
            return;
    a->alg[a->nalg++] = alg;
}

/* One name of --alg's list ("all" included). */
static void add_alg_name(args_t *a, const char *tok)
{
    cm5_sched_alg_t alg;
    int k;

    if (strcmp(tok, "all") == 0) {
        /* A3 needs a square number of nodes: "all" leaves it out. */
        for (k = 0; k < CM5_SCHED_NALGS; k++)
            if (k != CM5_SCHED_A3 || is_square(P))
                add_alg(a, k);
        return;
    }
    if (cm5_sched_alg_parse(tok, &alg) != CM5_OK)
        usage_error("--alg: unknown algorithm '%s'", tok);
    if (alg == CM5_SCHED_A3 && !is_square(P))
        usage_error("--alg: a3 needs a square number of nodes, not %d", P);
    add_alg(a, (int)alg);
}

static void set_alg(args_t *a, const cli_opt_t *d, const char *list)
{
    char *copy = xstrdup(list), *tok, *save = NULL;
    int any = 0;

    (void)d;
    if (a->fam == &broadcast)
        usage_error("--alg and --bcast do not mix: run one family at a time");
    a->nalg = 0;
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), any = 1)
        add_alg_name(a, tok);
    free(copy);
    if (!any)
        usage_error("--alg: empty list '%s'", list);
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* One side of A:B, a power of two. */
static uint64_t pow2_of(const char *v, size_t n, const char *spec)
{
    char s[32], *end;
    uint64_t u;

    snprintf(s, sizeof(s), "%.*s", (int)(n < 31 ? n : 31), v);
    errno = 0;
    u = strtoull(s, &end, 10);
    if (!n || n >= sizeof(s) || *end || errno || s[0] == '-' || !is_pow2(u))
        usage_error("--sizes: '%s' in '%s' is not a power of two", s, spec);
    return u;
}

static void set_sizes(args_t *a, const cli_opt_t *d, const char *spec)
{
    const char *colon = strchr(spec, ':');
    char *copy, *tok, *save = NULL;
    uint64_t from, to, v;

    (void)d;
    free(a->size);
    a->size = xcalloc(64, sizeof(size_t)); /* 2^0..2^63 at most */
    a->nsize = 0;
    if (colon) {
        if (colon == spec || colon - spec >= 32)
            usage_error("--sizes: '%s' is not A:B", spec);
        from = pow2_of(spec, (size_t)(colon - spec), spec);
        to = pow2_of(colon + 1, strlen(colon + 1), spec);
        if (from > to)
            usage_error("--sizes: %" PRIu64 " is larger than %" PRIu64, from,
                        to);
        for (v = from; v <= to && v; v <<= 1)
            a->size[a->nsize++] = (size_t)v;
        return;
    }
    copy = xstrdup(spec);
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (a->nsize % 64 == 0 && a->nsize)
            a->size = realloc(a->size, (a->nsize + 64) * sizeof(size_t));
        if (!a->size)
            CMMD_error("cm5sched: out of memory");
        a->size[a->nsize++] =
            (size_t)parse_u64("--sizes", tok, 1, (uint64_t)INT_MAX);
    }
    free(copy);
    if (a->nsize == 0)
        usage_error("--sizes: empty list '%s'", spec);
}

/* A personalized -o setting. */
static void apply_o(args_t *a, const char *setting)
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

/* A --bcast -o setting: --recv's recv=KIND discovers the counts unless
 * given; the mesh is --mesh's. */
static void apply_bo(args_t *a, const char *setting)
{
    char err[256];

    if (strncmp(setting, "mesh=", 5) == 0)
        usage_error("-o %s: the mesh is --mesh RxC", setting);
    if (strncmp(setting, "recv=", 5) == 0) {
        apply_o(a, setting);
        a->bo.discover = a->o.recv != CM5_SCHED_RECV_GIVEN;
        return;
    }
    if (strncmp(setting, "elem_size=", 10) == 0 ||
        strncmp(setting, "recv_capacity=", 14) == 0)
        apply_o(a, setting); /* the same refusal */
    if (cm5_sched_bcast_opts_set(&a->bo, setting, err, sizeof(err)) != CM5_OK)
        usage_error("-o: %s", err);
}

/* -o applies after parsing, when the family is known. */
static void set_o(args_t *a, const cli_opt_t *d, const char *setting)
{
    (void)d;
    a->oset[a->noset++] = setting;
}

static void set_bcast(args_t *a, const cli_opt_t *d, const char *list)
{
    char *copy = xstrdup(list), *tok, *save = NULL;
    cm5_sched_bcast_t alg;
    int any = 0, k;

    (void)d;
    if (a->fam == &personalized && a->nalg)
        usage_error("--alg and --bcast do not mix: run one family at a time");
    a->fam = &broadcast;
    a->nalg = 0;
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), any = 1) {
        if (strcmp(tok, "all") == 0) /* the eight algorithms, not auto */
            for (k = CM5_SCHED_BC_BR_LIN; k < CM5_SCHED_BC_NALGS; k++)
                add_alg(a, k);
        else if (cm5_sched_bcast_parse(tok, &alg) == CM5_OK)
            add_alg(a, (int)alg);
        else
            usage_error("--bcast: unknown algorithm '%s'", tok);
    }
    free(copy);
    if (!any)
        usage_error("--bcast: empty list '%s'", list);
}

/* ---- the table ---------------------------------------------------------- */

#define FIELD(a, d, type) ((type *)((char *)(a) + (d)->off))

static void help(void);

static void set_help(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)a, (void)d, (void)v;
    help();
    exit(0);
}

static void set_version(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)a, (void)d, (void)v;
    if (me == 0)
        printf("cm5sched (cm5fab %s) %s\n", PACKAGE_VERSION, CMMD_version());
    exit(0);
}

static void set_flag(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)v;
    *FIELD(a, d, int) = 1;
}

static void set_str(args_t *a, const cli_opt_t *d, const char *v)
{
    *FIELD(a, d, const char *) = v;
}

static void set_int(args_t *a, const cli_opt_t *d, const char *v)
{
    *FIELD(a, d, int) = (int)parse_u64(d->name, v, d->lo, d->hi);
}

static void set_seed(args_t *a, const cli_opt_t *d, const char *v)
{
    a->seed = parse_u64(d->name, v, 0, UINT64_MAX);
}

static void set_workload(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)d;
    if (!*v)
        usage_error("--workload: empty specification");
    a->work[a->nwork++] = v;
}

static void set_stat(args_t *a, const cli_opt_t *d, const char *v)
{
    int k;

    (void)d;
    for (k = 0; k < 3 && strcmp(v, stat_names[k]); k++)
        ;
    if (k == 3)
        usage_error("--stat: '%s' is not mean, min or median", v);
    a->stat = (stat_t)k;
}

static void set_recv(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)d;
    snprintf(a->recv_opt, sizeof(a->recv_opt), "recv=%s", v);
    a->oset[a->noset++] = a->recv_opt;
}

#define AOFF(f) offsetof(args_t, f)

static const cli_opt_t cli[] = {
    {"--alg", NULL, "LIST", "comma-separated algorithms, or all (rsn)",
     .set = set_alg},
    {"--bcast", NULL, "LIST", "s-to-p broadcasting algorithms instead, "
     "or all (the\neight) or auto; --workload is then a source "
     "distribution\n(equal) and --sizes the message length L in bytes",
     .set = set_bcast},
    {"--mesh", NULL, "RxC", "--bcast's logical mesh, R x C = P (the most "
     "square)", .set = set_str, .off = AOFF(mesh)},
    {"--workload", NULL, "SPEC", "a workload; repeat for several "
     "(density:d=4)", .set = set_workload},
    {"--sizes", NULL, "A:B|LIST", "message unit in bytes: powers of two from "
     "A to B, or a\ncomma list (16:4096); bytes of a message = entry x "
     "unit\nx the workload's element size", .set = set_sizes},
    {"--reps", NULL, "N", "runs of every point (3)", .set = set_int,
     .off = AOFF(reps), .lo = 1, .hi = 1000000},
    {"--warmup", NULL, "N", "unrecorded (but verified) runs before them (1)",
     .set = set_int, .off = AOFF(warmup), .lo = 0, .hi = 1000000},
    {"--matrices", NULL, "M", "matrices per workload, seeds S..S+M-1 (1; the "
     "papers\nused 50)", .set = set_int, .off = AOFF(matrices), .lo = 1,
     .hi = 1000000},
    {"--seed", NULL, "S", "first matrix seed (1)", .set = set_seed},
    {"--stat", NULL, "KIND", "table statistic over matrices and reps: mean, "
     "min or\nmedian (mean, as the papers)", .set = set_stat},
    {"-o", NULL, "NAME=VALUE", "set an algorithm option (below; cm5sched sets "
     "elem_size\nand recv_capacity itself); repeatable", .set = set_o},
    {"--recv", NULL, "KIND", "recvcounts: given, am (Generate_Recv) or "
     "concat (given)", .set = set_recv},
    {"--interrupts", NULL, NULL, "run with CM-5 interrupts on (polling)",
     .set = set_flag, .off = AOFF(o.interrupts)},
    {"--csv", NULL, "FILE", "one row per workload, matrix, algorithm, size "
     "and rep", .set = set_str, .off = AOFF(csv)},
    {"--plot", NULL, "FILE.png", "comm time against size, log-log (needs "
     "gnuplot)", .set = set_str, .off = AOFF(plot)},
    {"--trace", NULL, "FILE", "every node's messages and handlers as "
     "Chrome trace-event\nJSON (open in ui.perfetto.dev)", .set = set_str,
     .off = AOFF(trace)},
    {"--progress", NULL, NULL, "progress lines on stderr (default when "
     "stderr is a tty)", .set = set_flag, .off = AOFF(progress)},
    {"--quiet", "-q", NULL, "no tables (errors only)", .set = set_flag,
     .off = AOFF(quiet)},
    {"--spread", NULL, NULL, "also comm's min and max over matrices and "
     "reps,\nin the tables and as error bars on the plot", .set = set_flag,
     .off = AOFF(spread)},
    {"--help", "-h", NULL, "this text", .set = set_help},
    {"--version", NULL, NULL, "the version of cm5sched and CMMD",
     .set = set_version},
};

#define NCLI (sizeof(cli) / sizeof(cli[0]))

/* Its value if argv[*i] is option d ("--name value", "--name=value",
 * "-oVALUE"), "" for a flag; NULL if it is not d. */
static const char *match(const cli_opt_t *d, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    size_t n = strlen(d->name);

    if (!d->arg)
        return !strcmp(arg, d->name) || (d->alias && !strcmp(arg, d->alias))
                   ? ""
                   : NULL;
    if (strncmp(arg, d->name, n) != 0)
        return NULL;
    if (arg[n] == '=' || (n == 2 && arg[n])) /* --name=v, -ov */
        return arg + n + (arg[n] == '=' && n > 2);
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        usage_error(n == 2 ? "%s needs %s" : "%s needs a value", d->name,
                    d->arg);
    return argv[++*i];
}

static void print_opts(void)
{
    char head[64];
    const char *h, *e;
    size_t k;

    for (k = 0; k < NCLI; k++) {
        snprintf(head, sizeof(head), "%s%s%s", cli[k].name,
                 cli[k].arg ? " " : "", cli[k].arg ? cli[k].arg : "");
        printf("  %-20s", head);
        for (h = cli[k].help; *h; h = *e ? e + 1 : e) {
            e = strchr(h, '\n');
            if (!e)
                e = h + strlen(h);
            printf("%s%.*s\n", h == cli[k].help ? "" : "                      ",
                   (int)(e - h), h);
        }
    }
}

/* Each line of text, indented by two spaces. */
static void print_indented(const char *l)
{
    const char *e;

    for (; *l; l = *e ? e + 1 : e) {
        e = strchr(l, '\n');
        if (!e)
            e = l + strlen(l);
        printf("  %.*s\n", (int)(e - l), l);
    }
}

static void help(void)
{
    int a;

    if (me != 0)
        return;
    printf("usage: cm5run -n P cm5sched [OPTIONS]\n\n"
           "Runs personalized-communication algorithms on workloads over a "
           "range of\nmessage sizes, verifies every byte, and prints "
           "per-size tables (times in ms,\nmax over nodes).\n\nOptions:\n");
    print_opts();
    printf("\nAlgorithms:");
    for (a = 0; a < CM5_SCHED_NALGS; a++)
        printf(" %s", cm5_sched_alg_name((cm5_sched_alg_t)a));
    printf("\n\nWorkloads (--workload):\n");
    print_indented(cm5_workload_help());
    printf("\nAlgorithm options (-o):\n%s", cm5_sched_opts_help());
    printf("\nBroadcast algorithms (--bcast):");
    for (a = 0; a < CM5_SCHED_BC_NALGS; a++)
        printf(" %s", cm5_sched_bcast_name((cm5_sched_bcast_t)a));
    printf("\n\nSource distributions (--workload with --bcast; lengths in "
           "units of --sizes\nbytes, L=1 unless given):\n");
    print_indented(cm5_workload_bcast_help());
    printf("\nBroadcast options (-o with --bcast; --mesh sets the mesh, "
           "--recv am discovers\nthe counts):\n%s",
           cm5_sched_bcast_opts_help());
    printf("\nexit status: 0 all runs verified, 1 a run failed, "
           "2 bad arguments\n");
}

/* ---- parsing ------------------------------------------------------------ */

static void defaults(args_t *a, int argc)
{
    memset(a, 0, sizeof(*a));
    a->fam = &personalized;
    cm5_sched_opts_init(&a->o);
    a->reps = 3;
    a->warmup = 1;
    a->matrices = 1;
    a->seed = 1;
    a->work = xcalloc((size_t)argc, sizeof(char *));
    a->oset = xcalloc((size_t)argc, sizeof(char *));
    cm5_sched_bcast_opts_init(&a->bo);
    a->progress = isatty(2);
}

/* --bcast: the mesh, the default distribution, --interrupts. */
static void bcast_defaults(args_t *a)
{
    char err[256];

    if (!a->mesh)
        cm5_sched_mesh_default(P, &a->mesh_r, &a->mesh_c);
    else if (cm5_sched_mesh_parse(a->mesh, P, &a->mesh_r, &a->mesh_c, err,
                                  sizeof(err)) != CM5_OK)
        usage_error("--mesh: %s", err);
    if (a->nwork == 0)
        a->work[a->nwork++] = "equal";
    a->bo.interrupts = a->o.interrupts;
}

void parse_args(args_t *a, int argc, char **argv)
{
    const char *v = NULL;
    size_t k;
    int i;

    defaults(a, argc);
    for (i = 1; i < argc; i++) {
        for (k = 0; k < NCLI && !(v = match(&cli[k], argc, argv, &i)); k++)
            ;
        if (k == NCLI)
            usage_error("unknown argument '%s'", argv[i]);
        cli[k].set(a, &cli[k], v);
    }
    for (i = 0; i < a->noset; i++)
        (a->fam == &broadcast ? apply_bo : apply_o)(a, a->oset[i]);
    if (a->fam == &broadcast)
        bcast_defaults(a);
    else if (a->mesh)
        usage_error("--mesh %s: the mesh is for --bcast", a->mesh);
    if (a->nalg == 0)
        add_alg(a, CM5_SCHED_RSN);
    if (!a->size)
        set_sizes(a, NULL, "16:4096");
    if (a->nwork == 0)
        a->work[a->nwork++] = "density:d=4";
    if (a->plot && strchr(a->plot, '\''))
        usage_error("--plot: file name '%s' contains a quote", a->plot);
    if (a->csv && a->plot && !strcmp(a->csv, a->plot))
        usage_error("--csv and --plot name the same file '%s'", a->csv);
    if (a->trace && ((a->csv && !strcmp(a->csv, a->trace)) ||
                     (a->plot && !strcmp(a->plot, a->trace))))
        usage_error("--trace names the file of --csv or --plot: '%s'",
                    a->trace);
}
