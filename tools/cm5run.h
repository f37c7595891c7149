/*
 * cm5run, the launcher of local jobs (cm5run(1)), in parts by concern:
 *
 *   cm5run.c           the poll() loop, node exits and signals, timers
 *   cm5run_opts.c      the command line
 *   cm5run_spawn.c     the job's setup and starting the nodes
 *   cm5run_output.c    forwarding the nodes' output, line by line
 *   cm5run_teardown.c  stopping the job, the janitor, the cleanup
 *   cm5run_deadlock.c  the deadlock check (CM5_DEADLOCK)
 *   am/boot/boot_server.c  the bootstrap's rounds (the launcher's half of
 *                      boot_proto.h; the node's half is boot_local.c)
 *
 * This header is theirs alone; of am/ they see only the launcher
 * contract (boot_proto.h, boot_env.h, model_spec.h).
 */
#ifndef CM5RUN_H
#define CM5RUN_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "boot_proto.h"

#define MAX_NODES 1024
#define LINE_BUF (64 * 1024) /* longest line kept whole */
#define KILL_GRACE_MS 1000   /* SIGTERM -> SIGKILL */
#define DRAIN_GRACE_MS 500   /* pipes kept open by others */
#define DRAIN_READS 64       /* reads per pipe at node exit */
#define EXIT_TIMEOUT 124
#define EXIT_USAGE 2

/* Command-line settings. */
struct opts {
    int nodes;
    int procs; /* nodes, and the host program if any */
    const char *provider;
    const char *model; /* --model SPEC, or NULL */
    int label;
    double timeout;              /* seconds, 0 = no limit */
    char **argv;                 /* PROGRAM and its arguments */
    char **host_argv;            /* --host HOSTPROG [HOSTARGS], or NULL */
    int no_aslr;                 /* -R: address randomization off */
    int fixed_nodes, fixed_host; /* ... for the nodes, for the host */
};

/* A node's stdout or stderr pipe. */
struct stream {
    int fd;     /* read end, -1 once closed */
    int out_fd; /* where it goes: 1 or 2 */
    int at_bol; /* next byte starts a line */
    size_t len; /* bytes held in buf */
    char *buf;  /* LINE_BUF bytes, allocated lazily */
};

struct node {
    int rank;
    pid_t pid;  /* 0 if never started */
    int alive;  /* started and not yet reaped */
    int status; /* wait status once reaped */
    struct stream out[2];
};

struct job {
    const struct opts *o;
    struct node *nodes;
    int launched;            /* nodes[0..launched) were forked */
    int alive;               /* nodes not yet reaped */
    cm5_boot_server_t *boot; /* the bootstrap's rounds */
    int sigfd;
    int doorbell_fd;
    char key[17]; /* job key, 16 hex digits */
    pid_t self;
    int stopping;
    int killed; /* SIGKILL already sent */
    int exit_code;
    int64_t deadline; /* timeout, 0 = none */
    int64_t kill_at;
    int64_t drain_at;
    struct pollfd *pfd;
    int *pslot; /* pfd index -> rank*3 + kind */
    sigset_t old_mask;
    struct sigaction old_pipe;
    struct sigaction old_chld;
    struct rlimit old_nofile;
    int nofile_raised;                  /* restore old_nofile in the nodes */
    int janitor_fd;                     /* our end of the janitor's socket */
    pid_t janitor;                      /* the janitor, until reaped */
    const cm5_doorbell_slot_t *dl_bell; /* the nodes' slots, or NULL */
    size_t dl_len;
    int dl_need;             /* CM5_DEADLOCK seconds (0: no check) */
    int dl_streak;           /* samples in a row that look deadlocked */
    int64_t dl_next;         /* the next sample */
    struct dl_node *dl_prev; /* the last sample */
};

enum { SLOT_BOOT, SLOT_OUT, SLOT_ERR, SLOT_KINDS };

/* cm5run.c: messages and small helpers */
/* One line "cm5run: ..." on stderr. */
void cr_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t cr_now_ms(void);
/* "node 3", or "host program NAME" for the host (in a static buffer,
 * two in turn). */
const char *cr_who(const struct job *j, int rank);
void cr_set_nonblock(int fd);
void cr_close_fd(int *fd);

/* cm5run_opts.c */
/* Parse the command line into o; bad usage exits 2 with one line. */
void cr_parse_args(int argc, char **argv, struct opts *o);
/* A bad virtual-time setting stops the job before it starts. */
void cr_check_model(const struct opts *o);

/* cm5run_spawn.c */
/* Make sure fds 0-2 are open so that no pipe or socket lands there. */
void cr_ensure_std_fds(void);
int cr_job_init(struct job *j, const struct opts *o);
/* Signals, the job key, the janitor, the doorbell, the environment. */
int cr_job_setup(struct job *j);
/* Fork every node (a failure stops the job) and start the timeout. */
void cr_launch(struct job *j);

/* cm5run_output.c */
/* Read once from a node's pipe.  Returns 1 if data was forwarded. */
int cr_stream_read(const struct job *j, int rank, struct stream *s);
void cr_stream_close(const struct job *j, int rank, struct stream *s);
/* A node exited: forward what it wrote before it went. */
void cr_drain_output(const struct job *j, struct node *nd);
/* Output pipes still open. */
int cr_open_streams(const struct job *j);

/* cm5run_teardown.c */
int cr_janitor_start(struct job *j);
/* Hand a node just forked to the janitor. */
void cr_janitor_add(struct job *j, pid_t pid);
/* Signal every node's process group. */
void cr_signal_nodes(struct job *j, int sig);
/* Stop the job with exit code code: SIGTERM now, SIGKILL after
 * KILL_GRACE_MS.  The first call sets the code. */
void cr_stop_job(struct job *j, int code);
/* Close, free and remove everything; let the janitor go. */
void cr_job_free(struct job *j);

/* cm5run_deadlock.c */
/* Read CM5_DEADLOCK and map the doorbell (after it is made). */
void cr_deadlock_setup(struct job *j);
void cr_deadlock_free(struct job *j);
/* When the next sample is due (INT64_MAX: none). */
int64_t cr_deadlock_next(const struct job *j);
/* Sample when due; a deadlock stops the job with one line. */
void cr_deadlock_check(struct job *j);

#endif
