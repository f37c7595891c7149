/*
 * cm5run's command line (cm5run(1)): options, the programs, --host, and
 * the virtual-time settings checked before any node starts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot_env.h"
#include "model_spec.h" /* a --model value is checked before any node starts */

#include "cm5run.h"

#ifdef PACKAGE_VERSION
#define CM5RUN_VERSION PACKAGE_VERSION
#else
#define CM5RUN_VERSION "dev"
#endif

static void usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("cm5run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'cm5run --help' for more information.\n", stderr);
    exit(EXIT_USAGE);
}

/* A bad virtual-time setting stops the job before it starts, with one
 * line (instead of one per node). */
void cr_check_model(const struct opts *o)
{
    const char *spec = o->model ? o->model : getenv(CM5_ENV_MODEL);
    const char *scale = getenv(CM5_ENV_MODEL_CPU_SCALE);
    const char *floor_us = getenv(CM5_ENV_MODEL_CPU_FLOOR);
    const char *sync = getenv(CM5_ENV_MODEL_SYNC);
    const char *jitter = getenv(CM5_ENV_MODEL_JITTER);
    unsigned long long seed;
    cm5i_model_params_t p;
    char err[200];
    double f;
    int on;

    if (spec && cm5i_model_parse(spec, &on, &p, err, sizeof(err)) < 0) {
        fprintf(stderr, "cm5run: %s%s: %s\n",
                o->model ? "--model " : CM5_ENV_MODEL "=", spec, err);
        exit(EXIT_USAGE);
    }
    if (scale && cm5i_model_number(scale, &f) < 0) {
        fprintf(stderr,
                "cm5run: %s=%s: not a number >= 0 (0: computation "
                "is free)\n",
                CM5_ENV_MODEL_CPU_SCALE, scale);
        exit(EXIT_USAGE);
    }
    if (floor_us && cm5i_model_number(floor_us, &f) < 0) {
        fprintf(stderr, "cm5run: %s=%s: not a number of microseconds >= 0\n",
                CM5_ENV_MODEL_CPU_FLOOR, floor_us);
        exit(EXIT_USAGE);
    }
    if (sync && strcmp(sync, "auto") != 0 && strcmp(sync, "on") != 0 &&
        strcmp(sync, "net") != 0 && strcmp(sync, "off") != 0) {
        fprintf(stderr, "cm5run: %s=%s: expected auto, on, net or off\n",
                CM5_ENV_MODEL_SYNC, sync);
        exit(EXIT_USAGE);
    }
    if (jitter && *jitter && cm5i_model_seed(jitter, &seed) < 0) {
        fprintf(stderr,
                "cm5run: %s=%s: expected a seed (a non-negative integer; 0: "
                "off)\n",
                CM5_ENV_MODEL_JITTER, jitter);
        exit(EXIT_USAGE);
    }
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

static void print_help(void)
{
    /* The help as it prints, column for column: */
    /* clang-format off */
    printf(
"Usage: cm5run -n N [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       cm5run -n N [OPTIONS] --host HOSTPROG [HOSTARGS...] -- NODEPROG\n"
"              [NODEARGS...]\n"
"Start N local nodes of PROGRAM as one cm5fab (CM-5 CMMD/CMAML) job;\n"
"with --host, also the host program of a CMMD host/node job.\n"
"\n"
"Options:\n"
"  -n, -np, --nodes N     number of nodes to start (1 to %d)\n"
"  -p, --provider NAME    libfabric provider to use (sets CM5_PROVIDER)\n"
"      --model SPEC       virtual time: off, cm5, logp:L=6,o=2.2,g=4 or\n"
"                         cm5:KEY=VALUE,... (sets CM5_MODEL; doc/model.md);\n"
"                         the nodes are synchronised (CM5_MODEL_SYNC=off: not)\n"
"  -l, --label            prefix each output line with \"[RANK] \"\n"
"                         (\"[host] \" for the host program)\n"
"      --host HOSTPROG    start HOSTPROG with the arguments up to \"--\" as\n"
"                         the host program (must come last; gets stdin)\n"
"  -t, --timeout SECONDS  stop the job after SECONDS (fractions allowed,\n"
"                         default $CM5_TIMEOUT, 0 means no limit)\n"
"  -R, --no-randomize    start the programs with address randomization\n"
"                         off (done for 32-bit programs, cm5cc --legacy)\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"A job in which every node waits for a message and none is in flight\n"
"stops after $CM5_DEADLOCK seconds (default 3; 0: never) with one line.\n"
"\n"
"Exit status: 0 if every node (and the host) exits 0; otherwise that of\n"
"the first one that failed (128+SIG if killed by signal SIG), 1 on a\n"
"deadlock, 124 on timeout, 128+SIG if cm5run itself got signal SIG, 2 on\n"
"bad usage.\n",
        MAX_NODES);
    /* clang-format on */
}

static int parse_nodes(const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MAX_NODES)
        usage_error("invalid number of nodes '%s' (expected 1 to %d)", s,
                    MAX_NODES);
    return (int)v;
}

static double parse_timeout(const char *s, const char *what)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0)
        usage_error("invalid %s '%s' (expected seconds >= 0)", what, s);
    if (v > 1e9)
        v = 1e9;
    return v;
}

/*
 * Match argv[*i] against option SHRT ("-n") or LNG ("--nodes", may be
 * NULL).  The value may be attached ("-n4", "--nodes=4") or be the next
 * word.  Returns 1 and sets *val on a match.
 */
static int match_opt(int argc, char **argv, int *i, const char *shrt,
                     const char *lng, const char **val)
{
    const char *a = argv[*i];
    size_t sl = strlen(shrt);
    size_t ll = lng ? strlen(lng) : 0;

    if (lng && strncmp(a, lng, ll) == 0 && a[ll] == '=') {
        *val = a + ll + 1;
        return 1;
    }
    if (strcmp(a, shrt) == 0 || (lng && strcmp(a, lng) == 0)) {
        if (*i + 1 >= argc)
            usage_error("option '%s' requires an argument", a);
        *i += 1;
        *val = argv[*i];
        return 1;
    }
    if (strncmp(a, shrt, sl) == 0 && a[sl] != '\0') {
        *val = a + sl;
        return 1;
    }
    return 0;
}

static int match_flag(const char *a, const char *shrt, const char *lng)
{
    return strcmp(a, shrt) == 0 || strcmp(a, lng) == 0;
}

/* Handle one option at argv[*i]; returns 0 if it is not an option. */
static int parse_one(int argc, char **argv, int *i, struct opts *o)
{
    const char *a = argv[*i];
    const char *v;

    if (a[0] != '-' || a[1] == '\0')
        return 0;
    if (match_flag(a, "-h", "--help")) {
        print_help();
        exit(0);
    }
    if (match_flag(a, "-V", "--version")) {
        printf("cm5run (cm5fab) %s\n", CM5RUN_VERSION);
        exit(0);
    }
    if (match_flag(a, "-l", "--label"))
        o->label = 1;
    else if (match_flag(a, "-R", "--no-randomize"))
        o->no_aslr = 1;
    else if (match_opt(argc, argv, i, "-np", "--np", &v) ||
             match_opt(argc, argv, i, "-n", "--nodes", &v))
        o->nodes = parse_nodes(v);
    else if (match_opt(argc, argv, i, "-p", "--provider", &v)) {
        if (*v == '\0')
            usage_error("empty provider name");
        o->provider = v;
    } else if (match_opt(argc, argv, i, "--model", "--model", &v))
        o->model = v;
    else if (match_opt(argc, argv, i, "-t", "--timeout", &v))
        o->timeout = parse_timeout(v, "timeout");
    else
        usage_error("unrecognized option '%s'", a);
    return 1;
}

/* The file PROG names, directly or found in $PATH, into buf; 0 if none
 * is executable. */
static int program_path(const char *prog, char *buf, size_t size)
{
    const char *path = getenv("PATH");

    if (strchr(prog, '/')) {
        snprintf(buf, size, "%s", prog);
        return access(prog, X_OK) == 0;
    }
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        int n = snprintf(buf, size, "%.*s/%s", (int)len, path, prog);

        if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

/* Is PROG a file we can execute, directly or found in $PATH? */
static int find_program(const char *prog)
{
    char buf[PATH_MAX];

    return program_path(prog, buf, sizeof(buf));
}

/* Is PROG a 32-bit ELF program (cm5cc --legacy)?  Legacy code ships
 * addresses between nodes, so such a program starts with address
 * randomization off (DESIGN.md decision 5). */
static int legacy_program(const char *prog)
{
    char buf[PATH_MAX];
    unsigned char id[5];
    int fd, n;

    if (!program_path(prog, buf, sizeof(buf)) ||
        (fd = open(buf, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    n = (int)read(fd, id, sizeof(id));
    close(fd);
    return n == 5 && memcmp(id, "\177ELF\001", 5) == 0; /* ELFCLASS32 */
}

/* --host HOSTPROG [HOSTARGS...] --: argv[*i] is "--host"; the host's
 * words end at "--", which is cut out of argv. */
static void parse_host(int argc, char **argv, int *i, struct opts *o)
{
    int k = *i + 1;

    if (k >= argc || strcmp(argv[k], "--") == 0)
        usage_error("--host needs the host program: --host HOSTPROG "
                    "[HOSTARGS...] -- NODEPROG [NODEARGS...]");
    o->host_argv = argv + k;
    while (k < argc && strcmp(argv[k], "--") != 0)
        k++;
    if (k >= argc)
        usage_error("--host %s: missing \"--\" and the node program "
                    "after the host program's arguments",
                    argv[*i + 1]);
    argv[k] = NULL; /* ends the host's argv */
    *i = k;
    if (!find_program(o->host_argv[0])) {
        fprintf(stderr,
                "cm5run: host program '%s' not found or not "
                "executable\n",
                o->host_argv[0]);
        exit(EXIT_USAGE);
    }
}

void cr_parse_args(int argc, char **argv, struct opts *o)
{
    const char *env = getenv(CM5_ENV_TIMEOUT);
    int i;

    memset(o, 0, sizeof(*o));
    if (env && *env)
        o->timeout = parse_timeout(env, CM5_ENV_TIMEOUT " value");
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--host") == 0) {
            parse_host(argc, argv, &i, o);
            i++;
            break;
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (!parse_one(argc, argv, &i, o))
            break;
    }
    if (o->nodes == 0)
        usage_error("missing the number of nodes (-n N)");
    if (i >= argc)
        usage_error("missing the %sprogram to run",
                    o->host_argv ? "node " : "");
    o->argv = argv + i;
    o->procs = o->nodes + (o->host_argv != NULL);
    o->fixed_nodes = o->no_aslr || legacy_program(o->argv[0]);
    o->fixed_host =
        o->host_argv && (o->no_aslr || legacy_program(o->host_argv[0]));
}
