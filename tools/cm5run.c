/*
 * cm5run - start a local cm5fab job of N nodes.
 *
 * cm5run forks N processes ("nodes") of a program (and, with --host, one
 * more: the host program of a CMMD host/node job), gives each one a
 * bootstrap socket, a shared doorbell segment and a job key through the
 * environment, serves the bootstrap allgather rounds over the sockets,
 * forwards the nodes' output line by line, and stops the whole job as
 * soon as one node fails, on a timeout or on a signal.
 *
 * Everything is driven by a single poll() loop: the bootstrap sockets,
 * the output pipes and a signalfd for SIGCHLD/SIGINT/SIGTERM/SIGHUP.
 *
 * A janitor process, forked first and in a session of its own, outlives a
 * cm5run that is killed outright: it kills what is left of the nodes and
 * removes the job's shared memory (issue 23).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "am_env.h"
#include "am_model_calc.h" /* a --model value is checked before any node starts */
#include "boot/boot_proto.h" /* the framing and the doorbell's layout */

#ifdef PACKAGE_VERSION
#define CM5RUN_VERSION PACKAGE_VERSION
#else
#define CM5RUN_VERSION "dev"
#endif

#define MAX_NODES       1024
#define LINE_BUF        (64 * 1024)     /* longest line kept whole */
#define KILL_GRACE_MS   1000            /* SIGTERM -> SIGKILL */
#define DRAIN_GRACE_MS  500             /* pipes kept open by others */
#define DRAIN_READS     64              /* reads per pipe at node exit */
#define EXIT_TIMEOUT    124
#define EXIT_USAGE      2

/* Command-line settings. */
struct opts {
    int nodes;
    int procs;                  /* nodes, and the host program if any */
    const char *provider;
    const char *model;          /* --model SPEC, or NULL */
    int label;
    double timeout;             /* seconds, 0 = no limit */
    char **argv;                /* PROGRAM and its arguments */
    char **host_argv;           /* --host HOSTPROG [HOSTARGS], or NULL */
    int no_aslr;                /* -R: address randomization off */
    int fixed_nodes, fixed_host; /* ... for the nodes, for the host */
};

/* One round's allgather answer, shared by all nodes until sent. */
struct reply {
    size_t len;
    size_t refs;
    unsigned char data[];
};

/* A node's stdout or stderr pipe. */
struct stream {
    int fd;                     /* read end, -1 once closed */
    int out_fd;                 /* where it goes: 1 or 2 */
    int at_bol;                 /* next byte starts a line */
    size_t len;                 /* bytes held in buf */
    char *buf;                  /* LINE_BUF bytes, allocated lazily */
};

struct node {
    int rank;
    pid_t pid;                  /* 0 if never started */
    int alive;                  /* started and not yet reaped */
    int status;                 /* wait status once reaped */
    int boot_fd;                /* our end of the bootstrap socket */
    int rx_eof;                 /* the node closed its end */
    unsigned char hdr[CM5_BOOT_PREFIX]; /* length prefix being received */
    size_t hdr_got;
    cm5_boot_len_t msg_len;
    size_t msg_got;
    unsigned char *msg;         /* this round's payload */
    int joined;                 /* contributed to the current round */
    struct reply *tx;           /* answer being sent, or NULL */
    size_t tx_off;
    struct stream out[2];
};

struct job {
    const struct opts *o;
    struct node *nodes;
    int launched;               /* nodes[0..launched) were forked */
    int alive;                  /* nodes not yet reaped */
    int joined;                 /* nodes that joined this round */
    int sigfd;
    int doorbell_fd;
    char key[17];               /* job key, 16 hex digits */
    pid_t self;
    int stopping;
    int killed;                 /* SIGKILL already sent */
    int exit_code;
    int64_t deadline;           /* timeout, 0 = none */
    int64_t kill_at;
    int64_t drain_at;
    struct pollfd *pfd;
    int *pslot;                 /* pfd index -> rank*3 + kind */
    sigset_t old_mask;
    struct sigaction old_pipe;
    struct sigaction old_chld;
    struct rlimit old_nofile;
    int nofile_raised;          /* restore old_nofile in the nodes */
    int janitor_fd;             /* our end of the janitor's socket */
    pid_t janitor;              /* the janitor, until reaped */
};

enum { SLOT_BOOT, SLOT_OUT, SLOT_ERR, SLOT_KINDS };

static char stage[2 * LINE_BUF];  /* output being assembled */
static size_t stage_len;
static int stage_fd = -1;
static int out_broken[3];         /* our stdout/stderr went away */

/* ------------------------------------------------------------------ */
/* Messages and small helpers                                          */
/* ------------------------------------------------------------------ */

static void msg(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "cm5run: %s\n", line);
}

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
static void check_model(const struct opts *o)
{
    const char *spec = o->model ? o->model : getenv(CM5_ENV_MODEL);
    const char *scale = getenv(CM5_ENV_MODEL_CPU_SCALE);
    const char *floor_us = getenv(CM5_ENV_MODEL_CPU_FLOOR);
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
        fprintf(stderr, "cm5run: %s=%s: not a number >= 0 (0: computation "
                "is free)\n", CM5_ENV_MODEL_CPU_SCALE, scale);
        exit(EXIT_USAGE);
    }
    if (floor_us && cm5i_model_number(floor_us, &f) < 0) {
        fprintf(stderr, "cm5run: %s=%s: not a number of microseconds >= 0\n",
                CM5_ENV_MODEL_CPU_FLOOR, floor_us);
        exit(EXIT_USAGE);
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "node 3", or "host program NAME" for the host (in a static buffer). */
static const char *who(const struct job *j, int rank)
{
    static char buf[2][PATH_MAX + 32];
    static int k;

    k ^= 1;
    if (j->o->host_argv && rank == j->o->nodes)
        snprintf(buf[k], sizeof(buf[k]), "host program %s",
                 j->o->host_argv[0]);
    else
        snprintf(buf[k], sizeof(buf[k]), "node %d", rank);
    return buf[k];
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

static void print_help(void)
{
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
"                         cm5:KEY=VALUE,... (sets CM5_MODEL; doc/model.md)\n"
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
"Exit status: 0 if every node (and the host) exits 0; otherwise that of\n"
"the first one that failed (128+SIG if killed by signal SIG), 124 on\n"
"timeout, 128+SIG\n"
"if cm5run itself got signal SIG, 2 on bad usage.\n",
        MAX_NODES);
}

static int parse_nodes(const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MAX_NODES)
        usage_error("invalid number of nodes '%s' (expected 1 to %d)",
                    s, MAX_NODES);
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
                    "after the host program's arguments", argv[*i + 1]);
    argv[k] = NULL; /* ends the host's argv */
    *i = k;
    if (!find_program(o->host_argv[0])) {
        fprintf(stderr, "cm5run: host program '%s' not found or not "
                "executable\n", o->host_argv[0]);
        exit(EXIT_USAGE);
    }
}

static void parse_args(int argc, char **argv, struct opts *o)
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
    o->fixed_host = o->host_argv &&
                    (o->no_aslr || legacy_program(o->host_argv[0]));
}

/* ------------------------------------------------------------------ */
/* Job setup                                                           */
/* ------------------------------------------------------------------ */

/* Make sure fds 0-2 are open so that no pipe or socket lands there. */
static void ensure_std_fds(void)
{
    int fd;

    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
        ;
    if (fd > 2)
        close(fd);
}

/* Three descriptors per node: raise the soft limit as far as allowed. */
static void raise_nofile(struct job *j)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &j->old_nofile) < 0)
        return;
    rl = j->old_nofile;
    rl.rlim_cur = rl.rlim_max;
    if (rl.rlim_cur != j->old_nofile.rlim_cur &&
        setrlimit(RLIMIT_NOFILE, &rl) == 0)
        j->nofile_raised = 1;
}

static int setup_signals(struct job *j)
{
    struct sigaction sa;
    sigset_t set;

    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &j->old_pipe);
    sa.sa_handler = SIG_DFL;    /* an ignored SIGCHLD breaks waitpid() */
    sigaction(SIGCHLD, &sa, &j->old_chld);

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, &j->old_mask) < 0)
        return -1;
    j->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return j->sigfd < 0 ? -1 : 0;
}

static int make_job_key(struct job *j)
{
    uint64_t key;
    ssize_t r;

    do
        r = getrandom(&key, sizeof(key), 0);
    while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof(key))
        return -1;
    snprintf(j->key, sizeof(j->key), "%016" PRIx64, key);
    return 0;
}

static int make_doorbell(struct job *j)
{
    off_t size = (off_t)CM5_DOORBELL_SIZE(j->o->procs);

    j->doorbell_fd = memfd_create("cm5-doorbell", MFD_CLOEXEC);
    if (j->doorbell_fd < 0)
        return -1;
    return ftruncate(j->doorbell_fd, size);
}

static int set_env_int(const char *name, long v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%ld", v);
    return setenv(name, buf, 1);
}

/* Environment shared by all nodes; set in cm5run before forking. */
static int prepare_env(const struct job *j)
{
    const struct opts *o = j->o;

    if (set_env_int(CM5_ENV_SIZE, o->nodes) < 0 ||
        set_env_int(CM5_ENV_DOORBELL_FD, j->doorbell_fd) < 0 ||
        setenv(CM5_ENV_JOB_KEY, j->key, 1) < 0 ||
        set_env_int(CM5_ENV_HOST, o->host_argv != NULL) < 0 ||
        setenv(CM5_ENV_LAUNCHER, "cm5run", 1) < 0 ||
        setenv("FI_TCP_IFACE", "lo", 0) < 0 ||
        setenv("FI_SOCKETS_IFACE", "lo", 0) < 0)
        return -1;
    if (o->provider && setenv(CM5_ENV_PROVIDER, o->provider, 1) < 0)
        return -1;
    if (o->model && setenv(CM5_ENV_MODEL, o->model, 1) < 0)
        return -1;
    return 0;
}

static int job_init(struct job *j, const struct opts *o)
{
    int n = o->procs;
    int i;

    memset(j, 0, sizeof(*j));
    j->o = o;
    j->sigfd = -1;
    j->doorbell_fd = -1;
    j->janitor_fd = -1;
    j->self = getpid();
    j->nodes = calloc(n, sizeof(*j->nodes));
    if (!j->nodes)
        return -1;
    for (i = 0; i < n; i++) {
        struct node *nd = &j->nodes[i];

        nd->rank = i;
        nd->boot_fd = -1;
        nd->out[0].fd = -1;
        nd->out[0].out_fd = 1;
        nd->out[0].at_bol = 1;
        nd->out[1].fd = -1;
        nd->out[1].out_fd = 2;
        nd->out[1].at_bol = 1;
    }
    j->pfd = calloc(1 + SLOT_KINDS * n, sizeof(*j->pfd));
    j->pslot = calloc(1 + SLOT_KINDS * n, sizeof(*j->pslot));
    return j->pfd && j->pslot ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* The janitor                                                         */
/* ------------------------------------------------------------------ */

/* A node as the janitor knows it: its pid, and a pidfd where the kernel
 * has them (a pid alone could be reused once cm5run has reaped it). */
struct jnode {
    pid_t pid;
    int fd;
};

#define JANITOR_WAIT_MS 1500    /* for the nodes to die, after SIGKILL */

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static int pidfd_kill_(int fd, int sig)
{
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
#else
    (void)fd;
    (void)sig;
    errno = ENOSYS;
    return -1;
#endif
}

/* Has the node ended?  (Without a pidfd: it has no process any more, or
 * only a zombie's.) */
static int jnode_gone(const struct jnode *n)
{
    struct pollfd p = { .fd = n->fd, .events = POLLIN };
    char path[64], st = 0;
    FILE *f;

    if (n->fd >= 0)
        return poll(&p, 1, 0) > 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)n->pid);
    if (!(f = fopen(path, "r")))
        return 1;
    if (fscanf(f, "%*d (%*[^)]) %c", &st) != 1)
        st = 'Z';
    fclose(f);
    return st == 'Z' || st == 'X';
}

/* Remove the shared-memory files of the job named by key: its nodes'
 * endpoints, rings and doorbell, /dev/shm/cm5-KEY-*. */
static void remove_shm_key(const char *key)
{
    char pat[32];
    struct dirent *de;
    DIR *d;

    if (!key[0] || !(d = opendir("/dev/shm")))
        return;
    snprintf(pat, sizeof(pat), "cm5-%s-", key);
    while ((de = readdir(d)))
        if (strncmp(de->d_name, pat, strlen(pat)) == 0)
            unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
}

/* cm5run is gone without a goodbye: kill the nodes (their
 * PR_SET_PDEATHSIG has mostly done it), wait for them to end, then remove
 * the job's shared memory, which nothing can recreate any more. */
static void janitor_clean(const char *key, struct jnode *n, int count)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    int64_t until = now_ms() + JANITOR_WAIT_MS;
    int left;

    for (int i = 0; i < count; i++)
        if (!jnode_gone(&n[i])) {
            if (n[i].fd < 0 || pidfd_kill_(n[i].fd, SIGKILL) < 0)
                kill(n[i].pid, SIGKILL);
            kill(-n[i].pid, SIGKILL); /* its group: what it started */
        }
    do {
        left = 0;
        for (int i = 0; i < count; i++)
            left += !jnode_gone(&n[i]);
        if (left)
            nanosleep(&ts, NULL);
    } while (left && now_ms() < until);
    remove_shm_key(key);
}

/* The janitor's life: take the nodes' pidfds as cm5run starts them; end
 * at 'Q' (cm5run ends the job itself), clean at the socket's hang-up. */
static __attribute__((noreturn)) void janitor_main(const char *key, int sock, int procs)
{
    struct jnode *n = calloc((size_t)procs + 1, sizeof(*n));
    int count = 0, devnull;

    setsid(); /* out of cm5run's process group and terminal */
    prctl(PR_SET_NAME, "cm5run-janitor");
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_DFL);
    /* Hold nothing of cm5run's: its pipes and terminal must close when
     * it ends (a shell waits for its output's end). */
    devnull = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++)
        if (devnull >= 0 && devnull != fd)
            dup2(devnull, fd);
    if (sock != 3 && dup2(sock, 3) == 3)
        sock = 3;
#ifdef SYS_close_range
    syscall(SYS_close_range, 4, ~0u, 0);
#else
    for (int fd = 4; fd < 4096; fd++)
        close(fd);
#endif
    for (;;) {
        char buf[1 + sizeof(pid_t)];
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                            .msg_control = cbuf,
                            .msg_controllen = sizeof(cbuf) };
        struct cmsghdr *c;
        ssize_t r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;              /* cm5run is gone */
        if (buf[0] == 'Q')
            _exit(0);
        if (buf[0] != 'N' || r != (ssize_t)sizeof(buf) || !n ||
            count > procs)
            continue;
        memcpy(&n[count].pid, buf + 1, sizeof(pid_t));
        n[count].fd = -1;
        c = CMSG_FIRSTHDR(&m);
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&n[count].fd, CMSG_DATA(c), sizeof(int));
        count++;
    }
    if (n)
        janitor_clean(key, n, count);
    _exit(0);
}

static int janitor_start(struct job *j)
{
    int sv[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        janitor_main(j->key, sv[1], j->o->procs);
    }
    close(sv[1]);
    j->janitor_fd = sv[0];
    j->janitor = pid;
    return 0;
}

/* Hand a node just forked (not yet reaped: its pid is still its own) to
 * the janitor. */
static void janitor_add(struct job *j, pid_t pid)
{
    char buf[1 + sizeof(pid_t)] = { 'N' };
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    int fd = pidfd_open_(pid);

    if (j->janitor_fd < 0)
        return;
    memcpy(buf + 1, &pid, sizeof(pid));
    if (fd >= 0) {
        struct cmsghdr *c;

        memset(cbuf, 0, sizeof(cbuf));
        m.msg_control = cbuf;
        m.msg_controllen = sizeof(cbuf);
        c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    while (sendmsg(j->janitor_fd, &m, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
    if (fd >= 0)
        close(fd);
}

/* The job has ended and cm5run has cleaned up: the janitor may go. */
static void janitor_stop(struct job *j)
{
    if (j->janitor_fd >= 0) {
        while (send(j->janitor_fd, "Q", 1, MSG_NOSIGNAL) < 0 &&
               errno == EINTR)
            ;
        close_fd(&j->janitor_fd);
    }
    if (j->janitor > 0)
        while (waitpid(j->janitor, NULL, 0) < 0 && errno == EINTR)
            ;
    j->janitor = 0;
}

/* ------------------------------------------------------------------ */
/* Starting the nodes                                                  */
/* ------------------------------------------------------------------ */

static void child_signals(const struct job *j)
{
    sigaction(SIGPIPE, &j->old_pipe, NULL);
    sigaction(SIGCHLD, &j->old_chld, NULL);
    sigprocmask(SIG_SETMASK, &j->old_mask, NULL);
}

static void child_fds(int stdin_ok, int boot, int out_w, int err_w,
                      int bell)
{
    int fd;

    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(127);
    if (!stdin_ok) {
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, 0) < 0)
            _exit(127);
    }
    /* These must survive exec; everything else of ours is CLOEXEC. */
    if (fcntl(boot, F_SETFD, 0) < 0 || fcntl(bell, F_SETFD, 0) < 0)
        _exit(127);
}

/* In the child after fork: never returns. */
static void child_exec(const struct job *j, int rank, int boot,
                       int out_w, int err_w)
{
    int host = rank == j->o->nodes; /* the host program, if any */
    char **argv = host ? j->o->host_argv : j->o->argv;

    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != j->self)
        _exit(127);
    child_signals(j);
    if (j->nofile_raised)
        setrlimit(RLIMIT_NOFILE, &j->old_nofile);
    /* stdin goes to the host program, or else to node 0. */
    child_fds(j->o->host_argv ? host : rank == 0, boot, out_w, err_w,
              j->doorbell_fd);
    if (set_env_int(CM5_ENV_RANK, rank) < 0 ||
        set_env_int(CM5_ENV_BOOT_FD, boot) < 0)
        _exit(127);
    /* Inherited through exec: the same addresses on every node. */
    if ((host ? j->o->fixed_host : j->o->fixed_nodes) &&
        personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE) < 0)
        fprintf(stderr, "cm5run: cannot turn address randomization off "
                "for %s: %s\n", argv[0], strerror(errno));
    execvp(argv[0], argv);
    fprintf(stderr, "cm5run: cannot execute %s: %s\n",
            argv[0], strerror(errno));
    _exit(127);
}

static void node_attach(struct node *nd, pid_t pid, int boot, int out_r,
                        int err_r)
{
    nd->pid = pid;
    nd->alive = 1;
    nd->boot_fd = boot;
    nd->out[0].fd = out_r;
    nd->out[1].fd = err_r;
    set_nonblock(boot);
    set_nonblock(out_r);
    set_nonblock(err_r);
}

static int spawn_node(struct job *j, int rank)
{
    int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
    const char *what = "create its bootstrap socket";
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        goto err_close;
    what = "create its output pipes";
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
        goto err_close;
    what = "fork";
    pid = fork();
    if (pid < 0)
        goto err_close;
    if (pid == 0)
        child_exec(j, rank, sv[1], po[1], pe[1]);
    setpgid(pid, pid);      /* also done by the child: avoids the race */
    janitor_add(j, pid);
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    node_attach(&j->nodes[rank], pid, sv[0], po[0], pe[0]);
    return 0;

err_close:
    msg("cannot start %s: %s: %s", who(j, rank), what, strerror(errno));
    close_fd(&sv[0]);
    close_fd(&sv[1]);
    close_fd(&po[0]);
    close_fd(&po[1]);
    close_fd(&pe[0]);
    close_fd(&pe[1]);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Stopping                                                            */
/* ------------------------------------------------------------------ */

/* Signal every node's process group (also of nodes already reaped, to
 * catch their leftover children). */
static void signal_nodes(struct job *j, int sig)
{
    int i;

    for (i = 0; i < j->launched; i++) {
        struct node *nd = &j->nodes[i];

        if (nd->pid <= 0)
            continue;
        if (kill(-nd->pid, sig) < 0 && nd->alive)
            kill(nd->pid, sig);
    }
}

static void stop_job(struct job *j, int code)
{
    if (j->stopping)
        return;
    j->stopping = 1;
    j->exit_code = code;
    j->kill_at = now_ms() + KILL_GRACE_MS;
    signal_nodes(j, SIGTERM);
}

static void check_timers(struct job *j)
{
    int64_t t = now_ms();

    if (!j->stopping && j->alive > 0 && j->deadline && t >= j->deadline) {
        msg("timeout after %g s; stopping %d running node%s",
            j->o->timeout, j->alive, plural(j->alive));
        stop_job(j, EXIT_TIMEOUT);
    }
    if (j->stopping && !j->killed && t >= j->kill_at) {
        signal_nodes(j, SIGKILL);
        j->killed = 1;
    }
}

/* Milliseconds until the next timer, or -1. */
static int poll_timeout(const struct job *j)
{
    int64_t next = INT64_MAX, d;

    if (!j->stopping && j->alive > 0 && j->deadline)
        next = j->deadline;
    if (j->stopping && !j->killed && j->kill_at < next)
        next = j->kill_at;
    if (j->alive == 0 && j->drain_at < next)
        next = j->drain_at;
    if (next == INT64_MAX)
        return -1;
    d = next - now_ms();
    if (d < 0)
        return 0;
    return d > INT_MAX ? INT_MAX : (int)d;
}

/* ------------------------------------------------------------------ */
/* Output forwarding                                                   */
/* ------------------------------------------------------------------ */

static void write_all(int fd, const char *p, size_t n)
{
    struct pollfd pf = { .fd = fd, .events = POLLOUT };
    ssize_t r;

    while (n > 0 && !out_broken[fd]) {
        r = write(fd, p, n);
        if (r >= 0) {
            p += r;
            n -= (size_t)r;
        } else if (errno == EAGAIN) {
            poll(&pf, 1, -1);
        } else if (errno != EINTR) {
            out_broken[fd] = 1;     /* e.g. EPIPE: drop the output */
        }
    }
}

static void stage_flush(void)
{
    if (stage_len > 0)
        write_all(stage_fd, stage, stage_len);
    stage_len = 0;
}

static void stage_put(int fd, const char *p, size_t n)
{
    if (fd != stage_fd || stage_len + n > sizeof(stage))
        stage_flush();
    stage_fd = fd;
    memcpy(stage + stage_len, p, n);
    stage_len += n;
}

/* Forward one line or piece of a line. */
static void emit(const struct job *j, int rank, struct stream *s,
                 const char *p, size_t n)
{
    char pre[16];
    int len;

    if (j->o->label && s->at_bol) {
        if (j->o->host_argv && rank == j->o->nodes)
            len = snprintf(pre, sizeof(pre), "[host] ");
        else
            len = snprintf(pre, sizeof(pre), "[%d] ", rank);
        stage_put(s->out_fd, pre, (size_t)len);
    }
    stage_put(s->out_fd, p, n);
    s->at_bol = p[n - 1] == '\n';
}

/* Forward the complete lines held in s (everything if eof). */
static void stream_emit(const struct job *j, int rank, struct stream *s,
                        int eof)
{
    char *p = s->buf, *end = s->buf + s->len, *nl;
    size_t n;

    while (p < end) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl)
            n = (size_t)(nl - p) + 1;
        else if (eof || (p == s->buf && s->len == LINE_BUF))
            n = (size_t)(end - p);
        else
            break;
        emit(j, rank, s, p, n);
        p += n;
    }
    if (eof && j->o->label && !s->at_bol)
        emit(j, rank, s, "\n", 1);
    stage_flush();
    s->len = (size_t)(end - p);
    memmove(s->buf, p, s->len);
}

static void stream_close(const struct job *j, int rank, struct stream *s)
{
    if (s->buf)
        stream_emit(j, rank, s, 1);
    close_fd(&s->fd);
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
}

/* Read once from a node's pipe.  Returns 1 if data was forwarded. */
static int stream_read(const struct job *j, int rank, struct stream *s)
{
    ssize_t r;

    if (s->fd < 0)
        return 0;
    if (!s->buf && !(s->buf = malloc(LINE_BUF))) {
        msg("out of memory; dropping output of %s", who(j, rank));
        close_fd(&s->fd);
        return 0;
    }
    do
        r = read(s->fd, s->buf + s->len, LINE_BUF - s->len);
    while (r < 0 && errno == EINTR);
    if (r > 0) {
        s->len += (size_t)r;
        stream_emit(j, rank, s, 0);
        return 1;
    }
    if (r < 0 && errno == EAGAIN)
        return 0;
    stream_close(j, rank, s);       /* EOF or error */
    return 0;
}

/* A node exited: forward what it wrote before it went. */
static void drain_output(const struct job *j, struct node *nd)
{
    int k, i;

    for (k = 0; k < 2; k++)
        for (i = 0; i < DRAIN_READS; i++)
            if (!stream_read(j, nd->rank, &nd->out[k]))
                break;
}

static int open_streams(const struct job *j)
{
    int i, n = 0;

    for (i = 0; i < j->launched; i++)
        n += (j->nodes[i].out[0].fd >= 0) + (j->nodes[i].out[1].fd >= 0);
    return n;
}

/* ------------------------------------------------------------------ */
/* Bootstrap allgather                                                 */
/* ------------------------------------------------------------------ */

static void reply_release(struct node *nd)
{
    if (nd->tx && --nd->tx->refs == 0)
        free(nd->tx);
    nd->tx = NULL;
    nd->tx_off = 0;
}

/* A round is in progress once any node has sent part of its message. */
static int round_active(const struct job *j)
{
    int i;

    if (j->joined > 0)
        return 1;
    for (i = 0; i < j->launched; i++)
        if (j->nodes[i].hdr_got > 0)
            return 1;
    return 0;
}

static int boot_wants_read(const struct job *j, const struct node *nd)
{
    return nd->boot_fd >= 0 && !j->stopping && !nd->rx_eof &&
           !nd->joined && !nd->tx;
}

static void put_len(unsigned char **p, cm5_boot_len_t v)
{
    memcpy(*p, &v, sizeof(v));
    *p += sizeof(v);
}

static struct reply *build_reply(struct job *j)
{
    size_t size = CM5_BOOT_PREFIX;
    struct reply *rp;
    unsigned char *p;
    int i;

    for (i = 0; i < j->o->procs; i++)
        size += CM5_BOOT_PREFIX + j->nodes[i].msg_len;
    rp = malloc(sizeof(*rp) + size);
    if (!rp)
        return NULL;
    rp->len = size;
    rp->refs = 0;
    p = rp->data;
    put_len(&p, (cm5_boot_len_t)j->o->procs);
    for (i = 0; i < j->o->procs; i++) {
        struct node *nd = &j->nodes[i];

        put_len(&p, nd->msg_len);
        if (nd->msg_len)
            memcpy(p, nd->msg, nd->msg_len);
        p += nd->msg_len;
    }
    return rp;
}

/* Every node joined: queue the answer and start the next round. */
static void complete_round(struct job *j)
{
    struct reply *rp = build_reply(j);
    int i;

    if (!rp) {
        msg("out of memory in the bootstrap; stopping the job");
        stop_job(j, 1);
        return;
    }
    for (i = 0; i < j->o->procs; i++) {
        struct node *nd = &j->nodes[i];

        free(nd->msg);
        nd->msg = NULL;
        nd->msg_len = 0;
        nd->msg_got = 0;
        nd->hdr_got = 0;
        nd->joined = 0;
        if (nd->boot_fd >= 0) {
            nd->tx = rp;
            nd->tx_off = 0;
            rp->refs++;
        }
    }
    j->joined = 0;
    if (rp->refs == 0)
        free(rp);
}

static void boot_reset_rx(struct node *nd)
{
    free(nd->msg);
    nd->msg = NULL;
    nd->msg_len = 0;
    nd->msg_got = 0;
    nd->hdr_got = 0;
}

/* The length prefix is complete: check it and make room. */
static int boot_header(struct job *j, struct node *nd)
{
    memcpy(&nd->msg_len, nd->hdr, sizeof(nd->msg_len));
    if (nd->msg_len > CM5_BOOT_MAX_RECORD) {
        msg("%s sent a bootstrap message of %" PRIu32
            " bytes (limit %u); stopping the job",
            who(j, nd->rank), nd->msg_len, CM5_BOOT_MAX_RECORD);
        stop_job(j, 1);
        return -1;
    }
    nd->msg = malloc(nd->msg_len ? nd->msg_len : 1);
    if (!nd->msg) {
        msg("out of memory in the bootstrap; stopping the job");
        stop_job(j, 1);
        return -1;
    }
    return 0;
}

static void boot_joined(struct job *j, struct node *nd)
{
    nd->joined = 1;
    if (++j->joined == j->o->procs)
        complete_round(j);
}

/* Read what a node's socket holds (without blocking). */
static void boot_read(struct job *j, struct node *nd)
{
    ssize_t r;

    while (boot_wants_read(j, nd)) {
        if (nd->hdr_got < sizeof(nd->hdr))
            r = read(nd->boot_fd, nd->hdr + nd->hdr_got,
                     sizeof(nd->hdr) - nd->hdr_got);
        else
            r = read(nd->boot_fd, nd->msg + nd->msg_got,
                     nd->msg_len - nd->msg_got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return;
        if (r <= 0) {               /* EOF or error: stop listening */
            nd->rx_eof = 1;
            boot_reset_rx(nd);
            return;
        }
        if (nd->hdr_got < sizeof(nd->hdr)) {
            nd->hdr_got += (size_t)r;
            if (nd->hdr_got == sizeof(nd->hdr) && boot_header(j, nd) < 0)
                return;
        } else {
            nd->msg_got += (size_t)r;
        }
        if (nd->hdr_got == sizeof(nd->hdr) && nd->msg_got == nd->msg_len)
            boot_joined(j, nd);
    }
}

/* Send as much of the pending answer as the socket takes. */
static void boot_write(struct node *nd)
{
    ssize_t r;

    while (nd->tx) {
        r = send(nd->boot_fd, nd->tx->data + nd->tx_off,
                 nd->tx->len - nd->tx_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return;
        if (r < 0) {                /* the node is gone: drop it */
            reply_release(nd);
            nd->rx_eof = 1;
            return;
        }
        nd->tx_off += (size_t)r;
        if (nd->tx_off == nd->tx->len)
            reply_release(nd);
    }
}

/* A round is waiting for a node that has already exited. */
static void boot_check(struct job *j)
{
    int i;

    if (j->stopping || !round_active(j))
        return;
    for (i = 0; i < j->launched; i++) {
        struct node *nd = &j->nodes[i];

        if (nd->alive || nd->joined)
            continue;
        msg("%s exited before joining the bootstrap "
            "(pid %ld, exit status 0); stopping the job",
            who(j, i), (long)nd->pid);
        stop_job(j, 1);
        return;
    }
}

/* ------------------------------------------------------------------ */
/* Node exits and signals                                              */
/* ------------------------------------------------------------------ */

/* Describe a wait status; *code gets the matching exit code. */
static void describe_status(int st, char *buf, size_t size, int *code)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);

        snprintf(buf, size, "killed by signal %d (%s)", sig,
                 strsignal(sig));
        *code = 128 + sig;
    } else {
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
        *code = WEXITSTATUS(st);
    }
}

static void node_failed(struct job *j, struct node *nd)
{
    char what[128];
    int code;

    describe_status(nd->status, what, sizeof(what), &code);
    if (round_active(j) && !nd->joined)
        msg("%s exited before joining the bootstrap (pid %ld, %s); "
            "stopping the job", who(j, nd->rank), (long)nd->pid, what);
    else
        msg("%s (pid %ld) %s; stopping the job",
            who(j, nd->rank), (long)nd->pid, what);
    stop_job(j, code ? code : 1);
}

static void node_exited(struct job *j, struct node *nd, int st)
{
    nd->alive = 0;
    nd->status = st;
    j->alive--;
    drain_output(j, nd);
    if (!j->stopping && nd->boot_fd >= 0) {
        reply_release(nd);          /* nobody left to read it */
        boot_read(j, nd);           /* it may have joined just before */
    }
    if (!j->stopping && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        node_failed(j, nd);
    if (j->alive == 0)
        j->drain_at = now_ms() + DRAIN_GRACE_MS;
}

static struct node *find_node(struct job *j, pid_t pid)
{
    int i;

    for (i = 0; i < j->launched; i++)
        if (j->nodes[i].pid == pid && j->nodes[i].alive)
            return &j->nodes[i];
    return NULL;
}

static void reap_children(struct job *j)
{
    struct node *nd;
    pid_t pid;
    int st;

    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
        if ((nd = find_node(j, pid)))
            node_exited(j, nd, st);
        else if (pid == j->janitor)
            j->janitor = 0;     /* it died: nothing to wait for at the end */
}

static void on_signal(struct job *j, int sig)
{
    if (!j->stopping) {
        msg("caught signal %d (%s); stopping %d running node%s",
            sig, strsignal(sig), j->alive, plural(j->alive));
        stop_job(j, 128 + sig);
    } else if (!j->killed) {
        j->kill_at = now_ms();      /* asked again: kill right away */
    }
}

static void handle_signals(struct job *j)
{
    struct signalfd_siginfo si;

    while (read(j->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        if (si.ssi_signo != SIGCHLD)
            on_signal(j, (int)si.ssi_signo);
    reap_children(j);
}

/* ------------------------------------------------------------------ */
/* Main loop                                                           */
/* ------------------------------------------------------------------ */

static void add_poll(struct job *j, nfds_t *n, int fd, short ev, int slot)
{
    j->pfd[*n].fd = fd;
    j->pfd[*n].events = ev;
    j->pfd[*n].revents = 0;
    j->pslot[*n] = slot;
    (*n)++;
}

static nfds_t build_poll(struct job *j)
{
    nfds_t n = 0;
    int i;

    add_poll(j, &n, j->sigfd, POLLIN, -1);
    for (i = 0; i < j->launched; i++) {
        struct node *nd = &j->nodes[i];

        if (nd->boot_fd >= 0 && !j->stopping && nd->tx)
            add_poll(j, &n, nd->boot_fd, POLLOUT, i * SLOT_KINDS);
        else if (boot_wants_read(j, nd))
            add_poll(j, &n, nd->boot_fd, POLLIN, i * SLOT_KINDS);
        if (nd->out[0].fd >= 0)
            add_poll(j, &n, nd->out[0].fd, POLLIN, i * SLOT_KINDS + 1);
        if (nd->out[1].fd >= 0)
            add_poll(j, &n, nd->out[1].fd, POLLIN, i * SLOT_KINDS + 2);
    }
    return n;
}

static void dispatch(struct job *j, nfds_t n)
{
    nfds_t k;

    for (k = 1; k < n; k++) {
        struct node *nd = &j->nodes[j->pslot[k] / SLOT_KINDS];
        int kind = j->pslot[k] % SLOT_KINDS;

        if (!j->pfd[k].revents)
            continue;
        if (kind != SLOT_BOOT) {
            stream_read(j, nd->rank, &nd->out[kind - 1]);
            continue;
        }
        if (j->stopping)
            continue;
        if (nd->tx)
            boot_write(nd);
        boot_read(j, nd);
    }
    if (j->pfd[0].revents)
        handle_signals(j);
}

static int loop_done(const struct job *j)
{
    if (j->alive > 0)
        return 0;
    return open_streams(j) == 0 || now_ms() >= j->drain_at;
}

static int run_loop(struct job *j)
{
    nfds_t n;
    int r;

    while (!loop_done(j)) {
        n = build_poll(j);
        r = poll(j->pfd, n, poll_timeout(j));
        if (r < 0 && errno != EINTR) {
            msg("poll: %s; stopping the job", strerror(errno));
            stop_job(j, 1);
            j->kill_at = now_ms();
        } else if (r > 0) {
            dispatch(j, n);
        }
        boot_check(j);
        check_timers(j);
    }
    return j->exit_code;
}

/* ------------------------------------------------------------------ */
/* Cleanup                                                             */
/* ------------------------------------------------------------------ */

static void job_free(struct job *j)
{
    int i;

    for (i = 0; j->nodes && i < j->o->procs; i++) {
        struct node *nd = &j->nodes[i];

        stream_close(j, i, &nd->out[0]);
        stream_close(j, i, &nd->out[1]);
        close_fd(&nd->boot_fd);
        reply_release(nd);
        free(nd->msg);
    }
    close_fd(&j->sigfd);
    close_fd(&j->doorbell_fd);
    remove_shm_key(j->key);
    janitor_stop(j);
    free(j->nodes);
    free(j->pfd);
    free(j->pslot);
}

static int job_setup(struct job *j)
{
    raise_nofile(j);
    if (setup_signals(j) < 0) {
        msg("cannot set up signal handling: %s", strerror(errno));
        return -1;
    }
    if (make_job_key(j) < 0) {
        msg("cannot make a job key: %s", strerror(errno));
        return -1;
    }
    if (janitor_start(j) < 0) {
        msg("cannot start the janitor process: %s", strerror(errno));
        return -1;
    }
    if (make_doorbell(j) < 0) {
        msg("cannot create the doorbell segment: %s", strerror(errno));
        return -1;
    }
    if (prepare_env(j) < 0) {
        msg("cannot set up the environment: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void launch(struct job *j)
{
    int i;

    for (i = 0; i < j->o->procs; i++) {
        if (spawn_node(j, i) < 0) {
            stop_job(j, 1);
            break;
        }
        j->launched++;
        j->alive++;
    }
    if (j->o->timeout > 0)
        j->deadline = now_ms() + (int64_t)(j->o->timeout * 1000.0 + 0.5);
    if (j->alive == 0)
        j->drain_at = now_ms();
}

int main(int argc, char **argv)
{
    struct opts o;
    struct job j;
    int rc = 1;

    parse_args(argc, argv, &o);
    check_model(&o);
    ensure_std_fds();
    if (job_init(&j, &o) < 0) {
        msg("out of memory");
        goto err_free;
    }
    if (job_setup(&j) < 0)
        goto err_free;
    launch(&j);
    rc = run_loop(&j);

err_free:
    job_free(&j);
    return rc;
}
