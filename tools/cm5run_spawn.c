/*
 * Setting up a cm5run job and starting its nodes: signals, the job key,
 * the doorbell, the environment every node gets (boot_proto.h), and the
 * fork and exec of each node with its bootstrap socket and output pipes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include "boot_env.h"

#include "cm5run.h"

/* ------------------------------------------------------------------ */
/* Job setup                                                           */
/* ------------------------------------------------------------------ */

/* Make sure fds 0-2 are open so that no pipe or socket lands there. */
void cr_ensure_std_fds(void)
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
    sa.sa_handler = SIG_DFL; /* an ignored SIGCHLD breaks waitpid() */
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

int cr_job_init(struct job *j, const struct opts *o)
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
        nd->out[0].fd = -1;
        nd->out[0].out_fd = 1;
        nd->out[0].at_bol = 1;
        nd->out[1].fd = -1;
        nd->out[1].out_fd = 2;
        nd->out[1].at_bol = 1;
    }
    j->boot = cm5_boot_server_new(n);
    j->pfd = calloc(1 + SLOT_KINDS * n, sizeof(*j->pfd));
    j->pslot = calloc(1 + SLOT_KINDS * n, sizeof(*j->pslot));
    return j->boot && j->pfd && j->pslot ? 0 : -1;
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

static void child_fds(int stdin_ok, int boot, int out_w, int err_w, int bell)
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
static void child_exec(const struct job *j, int rank, int boot, int out_w,
                       int err_w)
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
        fprintf(stderr,
                "cm5run: cannot turn address randomization off "
                "for %s: %s\n",
                argv[0], strerror(errno));
    execvp(argv[0], argv);
    fprintf(stderr, "cm5run: cannot execute %s: %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

static void node_attach(struct job *j, int rank, pid_t pid, int boot, int out_r,
                        int err_r)
{
    struct node *nd = &j->nodes[rank];

    nd->pid = pid;
    nd->alive = 1;
    cm5_boot_server_attach(j->boot, rank, boot);
    nd->out[0].fd = out_r;
    nd->out[1].fd = err_r;
    cr_set_nonblock(out_r);
    cr_set_nonblock(err_r);
}

static int spawn_node(struct job *j, int rank)
{
    int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
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
    setpgid(pid, pid); /* also done by the child: avoids the race */
    cr_janitor_add(j, pid);
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    node_attach(j, rank, pid, sv[0], po[0], pe[0]);
    return 0;

err_close:
    cr_msg("cannot start %s: %s: %s", cr_who(j, rank), what, strerror(errno));
    cr_close_fd(&sv[0]);
    cr_close_fd(&sv[1]);
    cr_close_fd(&po[0]);
    cr_close_fd(&po[1]);
    cr_close_fd(&pe[0]);
    cr_close_fd(&pe[1]);
    return -1;
}

int cr_job_setup(struct job *j)
{
    raise_nofile(j);
    if (setup_signals(j) < 0) {
        cr_msg("cannot set up signal handling: %s", strerror(errno));
        return -1;
    }
    if (make_job_key(j) < 0) {
        cr_msg("cannot make a job key: %s", strerror(errno));
        return -1;
    }
    if (cr_janitor_start(j) < 0) {
        cr_msg("cannot start the janitor process: %s", strerror(errno));
        return -1;
    }
    if (make_doorbell(j) < 0) {
        cr_msg("cannot create the doorbell segment: %s", strerror(errno));
        return -1;
    }
    cr_deadlock_setup(j);
    if (prepare_env(j) < 0) {
        cr_msg("cannot set up the environment: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void cr_launch(struct job *j)
{
    int i;

    for (i = 0; i < j->o->procs; i++) {
        if (spawn_node(j, i) < 0) {
            cr_stop_job(j, 1);
            break;
        }
        j->launched++;
        j->alive++;
    }
    if (j->o->timeout > 0)
        j->deadline = cr_now_ms() + (int64_t)(j->o->timeout * 1000.0 + 0.5);
    if (j->alive == 0)
        j->drain_at = cr_now_ms();
}
