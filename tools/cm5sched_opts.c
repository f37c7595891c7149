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
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "cm5sched.h"

const char *const stat_names[] = {"mean", "min", "median", "max"};

/* A bad argument: one line from node 0, the same exit on every node
 * (they all parsed the same arguments and reached the same verdict). */
void usage_error(const char *fmt, ...)
{
    va_list ap;
    char msg[512];

    if (cs_self == 0) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        /* The option parser's own messages already point at --help. */
        fprintf(stderr, "cm5sched: %s%s\n", msg,
                strstr(msg, "--help") ? ""
                                      : " (cm5sched --help lists the options)");
        fflush(stderr);
    }
    /* Every node calls it (the arguments are the same everywhere); the
     * others wait until node 0 has said it, or cm5run, seeing a node
     * exit first, could end node 0 before its line. */
    if (cs_nodes > 1)
        CMMD_sync_with_nodes();
    exit(2);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (!p)
        CMMD_error("cm5sched: out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void add_alg(args_t *a, int alg)
{
    int i;

    for (i = 0; i < a->nalg && a->alg[i] != alg; i++)
        ;
    if (i == a->nalg)
        a->alg[a->nalg++] = alg;
}

/* ---- setters ------------------------------------------------------------ */

typedef struct cli_opt cli_opt_t;

struct cli_opt {
    const char *name, *alias; /* alias: exact, flags only */
    const char *arg;          /* NULL: a flag */
    const char *help;         /* '\n' continues under the help column */
    void (*set)(args_t *a, const cli_opt_t *d, const char *v);
    size_t off;          /* the args_t field of set_flag/set_int/set_str */
    uint64_t lo, hi;     /* set_int's range; hi UINT64_MAX: a uint64_t */
    const family_t *fam; /* set_algs's */
};

static uint64_t parse_u64(const char *opt, const char *v, uint64_t min,
                          uint64_t max)
{
    unsigned long long u = 0;
    char *end = NULL;

    errno = 0;
    if (*v && *v != '-')
        u = strtoull(v, &end, 10);
    if (!end || *end || errno)
        usage_error("%s: '%s' is not a non-negative integer", opt, v);
    if (u < min || u > max)
        usage_error("%s: %llu is out of range [%" PRIu64 ", %" PRIu64 "]", opt,
                    u, min, max);
    return u;
}

static char *xstrdup(const char *s)
{
    return strcpy(xcalloc(strlen(s) + 1, 1), s);
}

/* --alg, --bcast: a list of the family's algorithms, "all" included. */
static void set_algs(args_t *a, const cli_opt_t *d, const char *list)
{
    char *copy = xstrdup(list), *tok, *save = NULL;
    int any = 0;

    if (a->nalg && a->fam != d->fam)
        usage_error("--alg and --bcast do not mix: run one family at a time");
    a->fam = d->fam;
    a->nalg = 0;
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), any = 1)
        a->fam->add_algs(a, tok);
    free(copy);
    if (!any)
        usage_error("%s: empty list '%s'", d->name, list);
}

/* One side of A:B, a power of two. */
static uint64_t pow2_of(const char *s, const char *spec)
{
    char *end;
    uint64_t u;

    errno = 0;
    u = strtoull(s, &end, 10);
    if (!*s || *end || errno || *s == '-' || !u || (u & (u - 1)))
        usage_error("--sizes: '%s' in '%s' is not a power of two", s, spec);
    return u;
}

static void set_sizes(args_t *a, const cli_opt_t *d, const char *spec)
{
    char *copy = xstrdup(spec), *colon = strchr(copy, ':'), *tok, *save;
    uint64_t from, to;

    (void)d;
    free(a->size);
    /* 2^0..2^63 at most, or fewer entries than characters */
    a->size = xcalloc(strlen(spec) + 64, sizeof(size_t));
    a->nsize = 0;
    if (colon) {
        if (colon == copy || colon - copy >= 32)
            usage_error("--sizes: '%s' is not A:B", spec);
        *colon = '\0';
        from = pow2_of(copy, spec);
        to = pow2_of(colon + 1, spec);
        if (from > to)
            usage_error("--sizes: %" PRIu64 " is larger than %" PRIu64, from,
                        to);
        for (; from <= to && from; from <<= 1)
            a->size[a->nsize++] = (size_t)from;
    }
    for (tok = colon ? NULL : strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        a->size[a->nsize++] =
            (size_t)parse_u64("--sizes", tok, 1, (uint64_t)INT_MAX);
    free(copy);
    if (a->nsize == 0)
        usage_error("--sizes: empty list '%s'", spec);
}

#define FIELD(a, d, type) ((type *)((char *)(a) + (d)->off))

static void help(void);

static void set_exit(args_t *a, const cli_opt_t *d, const char *v)
{
    (void)a, (void)v;
    if (strcmp(d->name, "--help") == 0)
        help();
    else if (cs_self == 0)
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
    uint64_t u = parse_u64(d->name, v, d->lo, d->hi);

    if (d->hi == UINT64_MAX)
        *FIELD(a, d, uint64_t) = u;
    else
        *FIELD(a, d, int) = (int)u;
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

/* -o (and --recv KIND, which is -o recv=KIND) apply after parsing, when
 * the family is known. */
static void set_o(args_t *a, const cli_opt_t *d, const char *v)
{
    if (strcmp(d->name, "--recv") == 0) {
        snprintf(a->recv_opt, sizeof(a->recv_opt), "recv=%s", v);
        v = a->recv_opt;
    }
    a->oset[a->noset++] = v;
}

/* ---- the table ---------------------------------------------------------- */

#define AOFF(f) offsetof(args_t, f)

static const cli_opt_t cli[] = {
    {"--alg", NULL, "LIST", "comma-separated algorithms, or all (rsn)",
     .set = set_algs, .fam = &personalized},
    {"--bcast", NULL, "LIST",
     "s-to-p broadcasting algorithms instead, "
     "or all (the\neight) or auto; --workload is then a source "
     "distribution\n(equal) and --sizes the message length L in bytes",
     .set = set_algs, .fam = &broadcast},
    {"--mesh", NULL, "RxC",
     "--bcast's logical mesh, R x C = P (the most "
     "square)",
     .set = set_str, .off = AOFF(mesh)},
    {"--workload", NULL, "SPEC",
     "a workload; repeat for several "
     "(density:d=4)",
     .set = set_workload},
    {"--sizes", NULL, "A:B|LIST",
     "message unit in bytes: powers of two from "
     "A to B, or a\ncomma list (16:4096); bytes of a message = entry x "
     "unit\nx the workload's element size",
     .set = set_sizes},
    {"--reps", NULL, "N", "runs of every point (3)", .set = set_int,
     .off = AOFF(reps), .lo = 1, .hi = 1000000},
    {"--warmup", NULL, "N", "unrecorded (but verified) runs before them (1)",
     .set = set_int, .off = AOFF(warmup), .lo = 0, .hi = 1000000},
    {"--matrices", NULL, "M",
     "matrices per workload, seeds S..S+M-1 (1; the "
     "papers\nused 50)",
     .set = set_int, .off = AOFF(matrices), .lo = 1, .hi = 1000000},
    {"--seed", NULL, "S", "first matrix seed (1)", .set = set_int,
     .off = AOFF(seed), .hi = UINT64_MAX},
    {"--stat", NULL, "KIND",
     "table statistic over matrices and reps: mean, "
     "min or\nmedian (mean, as the papers)",
     .set = set_stat},
    {"-o", NULL, "NAME=VALUE",
     "set an algorithm option (below; cm5sched sets "
     "elem_size\nand recv_capacity itself); repeatable",
     .set = set_o},
    {"--recv", NULL, "KIND",
     "recvcounts: given, am (Generate_Recv) or "
     "concat (given)",
     .set = set_o},
    {"--interrupts", NULL, NULL, "run with CM-5 interrupts on (polling)",
     .set = set_flag, .off = AOFF(o.interrupts)},
    {"--csv", NULL, "FILE",
     "one row per workload, matrix, algorithm, size "
     "and rep",
     .set = set_str, .off = AOFF(csv)},
    {"--plot", NULL, "FILE.png",
     "comm time against size, log-log (needs "
     "gnuplot)",
     .set = set_str, .off = AOFF(plot)},
    {"--trace", NULL, "FILE",
     "every node's messages and handlers as "
     "Chrome trace-event\nJSON (open in ui.perfetto.dev)",
     .set = set_str, .off = AOFF(trace)},
    {"--progress", NULL, NULL,
     "progress lines on stderr (default when "
     "stderr is a tty)",
     .set = set_flag, .off = AOFF(progress)},
    {"--quiet", "-q", NULL, "no tables (errors only)", .set = set_flag,
     .off = AOFF(quiet)},
    {"--spread", NULL, NULL,
     "also comm's min and max over matrices and "
     "reps,\nin the tables and as error bars on the plot",
     .set = set_flag, .off = AOFF(spread)},
    {"--help", "-h", NULL, "this text", .set = set_exit},
    {"--version", NULL, NULL, "the version of cm5sched and CMMD",
     .set = set_exit},
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

/* Each line of text, the first after lead, all in a column of indent. */
/* How much of p..e fits in room columns: up to its last blank there (a
 * word longer than room whole). */
static int fit(const char *p, const char *e, int room)
{
    int n = (int)(e - p), cut = room;

    if (n <= room)
        return n;
    while (cut > 0 && p[cut] != ' ')
        cut--;
    if (cut > 0)
        return cut;
    while (cut < n && p[cut] != ' ')
        cut++;
    return cut;
}

/* text's lines, the first after lead, each indented by indent; a line
 * longer than 80 columns wraps at blanks, continued 4 columns deeper
 * than its own first word. */
void print_lines(const char *text, const char *lead, int indent)
{
    const char *e, *p;

    for (; *text; text = *e ? e + 1 : e, lead = "") {
        int pad = indent, n;

        e = text + strcspn(text, "\n");
        for (p = text; p < e || p == text; p += n, lead = "") {
            n = fit(p, e, 80 - pad);
            printf("%-*s%.*s\n", pad, lead, n, p);
            if (p == text)
                pad = indent + (int)strspn(text, " ") + 4;
            while (p + n < e && p[n] == ' ')
                n++;
            if (n == 0)
                break;
        }
    }
}

/* head, then the n names, in lines of at most 80 columns. */
void print_names(const char *head, const char *(*name)(int), int n)
{
    int k, col = printf("\n%s", head) - 1;

    for (k = 0; k < n; k++) {
        if (col + 1 + (int)strlen(name(k)) > 80)
            col = printf("\n ") - 1;
        col += printf(" %s", name(k));
    }
    printf("\n");
}

static void help(void)
{
    char head[64];
    size_t k;

    if (cs_self != 0)
        return;
    printf("usage: cm5run -n P cm5sched [OPTIONS]\n\n"
           "Runs personalized-communication algorithms on workloads over a "
           "range of\nmessage sizes, verifies every byte, and prints "
           "per-size tables (times in ms,\nmax over nodes).\n\nOptions:\n");
    for (k = 0; k < NCLI; k++) {
        snprintf(head, sizeof(head), "  %s%s%s", cli[k].name,
                 cli[k].arg ? " " : "", cli[k].arg ? cli[k].arg : "");
        print_lines(cli[k].help, head, 22);
    }
    personalized.help();
    broadcast.help();
    printf("\nexit status: 0 all runs verified, 1 a run failed, "
           "2 bad arguments\n");
}

/* ---- parsing ------------------------------------------------------------ */

void parse_args(args_t *a, int argc, char **argv)
{
    const char *v = NULL;
    size_t k;
    int i;

    *a = (args_t){.fam = &personalized,
                  .reps = 3,
                  .warmup = 1,
                  .matrices = 1,
                  .seed = 1,
                  .progress = isatty(2)};
    cm5_sched_opts_init(&a->o);
    cm5_sched_bcast_opts_init(&a->bo);
    a->work = xcalloc((size_t)argc, sizeof(char *));
    a->oset = xcalloc((size_t)argc, sizeof(char *));
    for (i = 1; i < argc; i++) {
        for (k = 0; k < NCLI && !(v = match(&cli[k], argc, argv, &i)); k++)
            ;
        if (k == NCLI)
            usage_error("unknown argument '%s'", argv[i]);
        cli[k].set(a, &cli[k], v);
    }
    for (i = 0; i < a->noset; i++)
        a->fam->opt(a, a->oset[i]);
    a->fam->setup(a);
    if (!a->size)
        set_sizes(a, NULL, "16:4096");
    if (a->plot && strchr(a->plot, '\''))
        usage_error("--plot: file name '%s' contains a quote", a->plot);
    if (a->csv && a->plot && !strcmp(a->csv, a->plot))
        usage_error("--csv and --plot name the same file '%s'", a->csv);
    if (a->trace && ((a->csv && !strcmp(a->csv, a->trace)) ||
                     (a->plot && !strcmp(a->plot, a->trace))))
        usage_error("--trace names the file of --csv or --plot: '%s'",
                    a->trace);
}
