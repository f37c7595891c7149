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
 * Everything is driven by a single poll() loop (this file): the
 * bootstrap sockets, the output pipes and a signalfd for
 * SIGCHLD/SIGINT/SIGTERM/SIGHUP.  The other concerns are in files of
 * their own (cm5run.h lists them).
 *
 * A janitor process, forked first and in a session of its own, outlives a
 * cm5run that is killed outright: it kills what is left of the nodes and
 * removes the job's shared memory (issue 23).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "cm5run.h"

/* ------------------------------------------------------------------ */
/* Messages and small helpers                                          */
/* ------------------------------------------------------------------ */

void cr_msg(const char *fmt, ...)
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

int64_t cr_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "node 3", or "host program NAME" for the host (in a static buffer). */
const char *cr_who(const struct job *j, int rank)
{
    static char buf[2][PATH_MAX + 32];
    static int k;

    k ^= 1;
    if (j->o->host_argv && rank == j->o->nodes)
        snprintf(buf[k], sizeof(buf[k]), "host program %s", j->o->host_argv[0]);
    else
        snprintf(buf[k], sizeof(buf[k]), "node %d", rank);
    return buf[k];
}

void cr_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void cr_close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static void check_timers(struct job *j)
{
    int64_t t = cr_now_ms();

    if (!j->stopping && j->alive > 0 && j->deadline && t >= j->deadline) {
        cr_msg("timeout after %g s; stopping %d running node%s", j->o->timeout,
               j->alive, plural(j->alive));
        cr_stop_job(j, EXIT_TIMEOUT);
    }
    if (j->stopping && !j->killed && t >= j->kill_at) {
        cr_signal_nodes(j, SIGKILL);
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
    if (cr_deadlock_next(j) < next)
        next = cr_deadlock_next(j);
    if (next == INT64_MAX)
        return -1;
    d = next - cr_now_ms();
    if (d < 0)
        return 0;
    return d > INT_MAX ? INT_MAX : (int)d;
}

/* ------------------------------------------------------------------ */
/* Bootstrap (am/boot/boot_server.c serves the rounds)                 */
/* ------------------------------------------------------------------ */

/* Serve node nd's bootstrap socket, or take what it wrote before it
 * exited (gone); a fault of the node or of ours stops the job. */
static void boot_serve(struct job *j, struct node *nd, int gone)
{
    char err[160];
    int rc = gone ? cm5_boot_server_gone(j->boot, nd->rank, err, sizeof(err))
                  : cm5_boot_server_serve(j->boot, nd->rank, err, sizeof(err));

    if (rc == 0)
        return;
    if (rc == -1)
        cr_msg("%s %s; stopping the job", cr_who(j, nd->rank), err);
    else
        cr_msg("%s; stopping the job", err);
    cr_stop_job(j, 1);
}

/* A round is waiting for a node that has already exited. */
static void boot_check(struct job *j)
{
    int i;

    if (j->stopping || !cm5_boot_server_active(j->boot))
        return;
    for (i = 0; i < j->launched; i++) {
        struct node *nd = &j->nodes[i];

        if (nd->alive || cm5_boot_server_joined(j->boot, i))
            continue;
        cr_msg("%s exited before joining the bootstrap "
               "(pid %ld, exit status 0); stopping the job",
               cr_who(j, i), (long)nd->pid);
        cr_stop_job(j, 1);
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

        snprintf(buf, size, "killed by signal %d (%s)", sig, strsignal(sig));
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
    if (cm5_boot_server_active(j->boot) &&
        !cm5_boot_server_joined(j->boot, nd->rank))
        cr_msg("%s exited before joining the bootstrap (pid %ld, %s); "
               "stopping the job",
               cr_who(j, nd->rank), (long)nd->pid, what);
    else
        cr_msg("%s (pid %ld) %s; stopping the job", cr_who(j, nd->rank),
               (long)nd->pid, what);
    cr_stop_job(j, code ? code : 1);
}

static void node_exited(struct job *j, struct node *nd, int st)
{
    nd->alive = 0;
    nd->status = st;
    j->alive--;
    cr_drain_output(j, nd);
    if (!j->stopping)
        boot_serve(j, nd, 1); /* it may have joined just before */
    if (!j->stopping && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        node_failed(j, nd);
    if (j->alive == 0)
        j->drain_at = cr_now_ms() + DRAIN_GRACE_MS;
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
            j->janitor = 0; /* it died: nothing to wait for at the end */
}

static void on_signal(struct job *j, int sig)
{
    if (!j->stopping) {
        cr_msg("caught signal %d (%s); stopping %d running node%s", sig,
               strsignal(sig), j->alive, plural(j->alive));
        cr_stop_job(j, 128 + sig);
    } else if (!j->killed) {
        j->kill_at = cr_now_ms(); /* asked again: kill right away */
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

        short ev;
        int fd = j->stopping ? -1 : cm5_boot_server_pollfd(j->boot, i, &ev);

        if (fd >= 0)
            add_poll(j, &n, fd, ev, i * SLOT_KINDS);
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
            cr_stream_read(j, nd->rank, &nd->out[kind - 1]);
            continue;
        }
        if (j->stopping)
            continue;
        boot_serve(j, nd, 0);
    }
    if (j->pfd[0].revents)
        handle_signals(j);
}

static int loop_done(const struct job *j)
{
    if (j->alive > 0)
        return 0;
    return cr_open_streams(j) == 0 || cr_now_ms() >= j->drain_at;
}

static int run_loop(struct job *j)
{
    nfds_t n;
    int r;

    while (!loop_done(j)) {
        n = build_poll(j);
        r = poll(j->pfd, n, poll_timeout(j));
        if (r < 0 && errno != EINTR) {
            cr_msg("poll: %s; stopping the job", strerror(errno));
            cr_stop_job(j, 1);
            j->kill_at = cr_now_ms();
        } else if (r > 0) {
            dispatch(j, n);
        }
        boot_check(j);
        check_timers(j);
        cr_deadlock_check(j);
    }
    return j->exit_code;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct job j;
    int rc = 1;

    cr_parse_args(argc, argv, &o);
    cr_check_model(&o);
    cr_ensure_std_fds();
    if (cr_job_init(&j, &o) < 0) {
        cr_msg("out of memory");
        goto err_free;
    }
    if (cr_job_setup(&j) < 0)
        goto err_free;
    cr_launch(&j);
    rc = run_loop(&j);

err_free:
    cr_job_free(&j);
    return rc;
}
