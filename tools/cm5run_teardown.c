/*
 * Stopping a cm5run job and cleaning up: signals to the nodes' process
 * groups, the janitor that outlives a cm5run killed outright, the job's
 * shared memory, and what cm5run itself holds.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cm5run.h"

/* ------------------------------------------------------------------ */
/* The janitor                                                         */
/* ------------------------------------------------------------------ */

/* A node as the janitor knows it: its pid, and a pidfd where the kernel
 * has them (a pid alone could be reused once cm5run has reaped it). */
struct jnode {
    pid_t pid;
    int fd;
};

#define JANITOR_WAIT_MS 1500 /* for the nodes to die, after SIGKILL */

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
    struct pollfd p = {.fd = n->fd, .events = POLLIN};
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
    struct timespec ts = {0, 10 * 1000 * 1000};
    int64_t until = cr_now_ms() + JANITOR_WAIT_MS;
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
    } while (left && cr_now_ms() < until);
    remove_shm_key(key);
}

/* The janitor's life: take the nodes' pidfds as cm5run starts them; end
 * at 'Q' (cm5run ends the job itself), clean at the socket's hang-up. */
static __attribute__((noreturn)) void janitor_main(const char *key, int sock,
                                                   int procs)
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
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr m = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = cbuf,
                           .msg_controllen = sizeof(cbuf)};
        struct cmsghdr *c;
        ssize_t r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* cm5run is gone */
        if (buf[0] == 'Q')
            _exit(0);
        if (buf[0] != 'N' || r != (ssize_t)sizeof(buf) || !n || count > procs)
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

int cr_janitor_start(struct job *j)
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
void cr_janitor_add(struct job *j, pid_t pid)
{
    char buf[1 + sizeof(pid_t)] = {'N'};
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
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
        while (send(j->janitor_fd, "Q", 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
            ;
        cr_close_fd(&j->janitor_fd);
    }
    if (j->janitor > 0)
        while (waitpid(j->janitor, NULL, 0) < 0 && errno == EINTR)
            ;
    j->janitor = 0;
}

/* ------------------------------------------------------------------ */
/* Stopping                                                            */
/* ------------------------------------------------------------------ */

/* Signal every node's process group (also of nodes already reaped, to
 * catch their leftover children). */
void cr_signal_nodes(struct job *j, int sig)
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

void cr_stop_job(struct job *j, int code)
{
    if (j->stopping)
        return;
    j->stopping = 1;
    j->exit_code = code;
    j->kill_at = cr_now_ms() + KILL_GRACE_MS;
    cr_signal_nodes(j, SIGTERM);
}

/* ------------------------------------------------------------------ */
/* Cleanup                                                             */
/* ------------------------------------------------------------------ */

void cr_job_free(struct job *j)
{
    int i;

    for (i = 0; j->nodes && i < j->o->procs; i++) {
        struct node *nd = &j->nodes[i];

        cr_stream_close(j, i, &nd->out[0]);
        cr_stream_close(j, i, &nd->out[1]);
    }
    cr_deadlock_free(j);
    cm5_boot_server_free(j->boot);
    j->boot = NULL;
    cr_close_fd(&j->sigfd);
    cr_close_fd(&j->doorbell_fd);
    remove_shm_key(j->key);
    janitor_stop(j);
    free(j->nodes);
    free(j->pfd);
    free(j->pslot);
}
