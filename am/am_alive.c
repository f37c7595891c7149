/*
 * Liveness check (CM5_PEER_TIMEOUT): a heartbeat around a ring of the
 * nodes, on endpoints and a thread of its own.
 *
 * A host whose link is cut silently makes nothing fail: libfabric's tcp
 * provider fails no operation, the kernel gives up on the connection
 * after about 15 minutes, a launcher's keepalive after minutes.  Node i
 * therefore pings node i+1 every timeout/4 and watches node i-1; after
 * `timeout` seconds without a ping from it, node i prints one line naming
 * it and stops the job (cm5i_boot_abort, and _exit within 2 s in case the
 * launcher cannot be reached from here).
 *
 * The pings go through a second libfabric instance that only this thread
 * drives, so they keep flowing while the main thread computes for as long
 * as it likes without polling (legitimate CM-5 code does): the check
 * depends on the peer's process running, never on its main thread polling.
 *
 * Watching starts when the node is up and stops when it has passed the
 * exit barrier (node i-1 is then in it or past it; it also says goodbye as
 * it leaves).  A node that fails or exits with an error watches no more:
 * its launcher reports it, and its successor only if the launcher is slow.
 *
 * The same ring carries the deadlock check (CM5_DEADLOCK) where no cm5run
 * watches the job (a PMIx launcher: mpirun, srun; on one host, where
 * there is no heartbeat, the ring runs for it alone): once a second node 0
 * sends a token around it, and each node adds its words for the check
 * (boot_proto.h's slot: blocked in a wait only a message ends, the same
 * wait as at the last round with no traffic since and steps taken, its
 * packets and tagged transfers sent and received) and what it waits in.
 * Back at node 0, CM5_DEADLOCK + 1 rounds in a row in which every node
 * was blocked, unchanged, and the job's sends and receipts balanced (at
 * the instant between two rounds every node was blocked as sampled:
 * nothing was in flight) stop the job with one line naming each node's
 * wait, as cm5run's check does on one host (tools/cm5run_deadlock.c).
 */
#include "am_alive.h"

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_sweep.h"
#include "am_util.h"
#include "am_wait.h"
#include "boot/boot.h"
#include "boot/waits.h"
#include "fabric/fab.h"

#define ALIVE_AUTO_S 10.0 /* CM5_PEER_TIMEOUT=auto across hosts */
#define ALIVE_MIN_S 0.5   /* pings are timeout/4 apart: >= 125 ms */
#define ALIVE_MAX_S 86400.0
#define ALIVE_EXIT_S 2 /* the process ends this long after a report */

enum { ALIVE_PING = 1, ALIVE_BYE = 2, ALIVE_TOKEN = 3 };

/* The heartbeat packet: 24 bytes. */
typedef struct {
    uint64_t key; /* the job's key: packets from elsewhere are dropped */
    uint32_t src;
    uint32_t seq;
    uint32_t type;
    uint32_t pad;
} alive_pkt_t;

/* The deadlock check's token (ALIVE_TOKEN; h.seq: its round): the nodes
 * it has passed, all blocked; all unchanged since the last round; their
 * traffic; then what each waits in (one byte a node). */
typedef struct {
    alive_pkt_t h;
    uint32_t blocked, same;
    uint64_t tx, rx;
    uint8_t wait[];
} alive_token_t;

#define ALIVE_DL_PERIOD_S 1.0 /* a round a second, as cm5run samples */
#define ALIVE_DL_LOST_S 5.0   /* a round not back by then is lost */

static struct {
    double timeout, interval; /* seconds; timeout 0: off */
    int on;                   /* this job has the ring (same on all) */
    int watch;                /* ... and a heartbeat on it (timeout > 0) */
    cm5i_fab_t *fab;
    int wake_fd;             /* eventfd: finalize wakes the thread */
    int nfds, fds[CM5I_NCH]; /* the provider's wait objects, if any */
    pthread_t thread;
    int started;
    pid_t pid;       /* the process that started the thread */
    atomic_int stop; /* leave the loop (and say goodbye if bye) */
    atomic_int bye;
    atomic_int size; /* the ring: nodes 0..size-1 */
    /* Watching ends (quiet) against a report under way: each side sets
     * its flag, then reads the other's (no lock: cm5_fatal may run from
     * a handler in a signal). */
    atomic_int quiet, reporting;

    /* Owned by the thread. */
    int rank, succ, pred;
    uint64_t key;
    double heard;  /* when pred last pinged (or watching began) */
    int pred_left; /* pred said goodbye */
    uint32_t seq;
    long foreign, send_errors;
    /* The deadlock check (dl_need: CM5_DEADLOCK seconds, 0: off): this
     * node's words at the last round; node 0: the round under way, when
     * it left, the rounds in a row that saw a deadlock. */
    int dl_need, dl_size;
    alive_token_t *dl_tok;
    cm5i_wait_state_t dl_prev;
    int dl_prev_ok;
    uint32_t dl_round;
    int dl_out, dl_streak;
    int dl_have; /* a token came (in dl_tok) */
    int dl_fwd;  /* dl_tok is to go to the successor */
    double dl_sent;
} alive = {.wake_fd = -1};

static int alive_parse(const char *s, double *out)
{
    static locale_t c_locale;
    char *end;
    double t;

    if (strcmp(s, "auto") == 0) {
        *out = -1;
        return 0;
    }
    if (strcmp(s, "off") == 0) {
        *out = 0;
        return 0;
    }
    /* The C locale's decimal point, whatever the program set. */
    if (!c_locale)
        c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    errno = 0;
    t = c_locale ? strtod_l(s, &end, c_locale) : strtod(s, &end);
    if (!*s || *end || errno ||
        !(t == 0 || (t >= ALIVE_MIN_S && t <= ALIVE_MAX_S)))
        return -1;
    *out = t;
    return 0;
}

cm5_status_t cm5i_alive_config(void)
{
    const char *s = cm5i_config_str(CM5_ENV_PEER_TIMEOUT);
    double t;

    if (alive_parse(s, &t) != 0) {
        cm5i_config_error(CM5_ENV_PEER_TIMEOUT
                          "=%s: expected auto, off, 0 "
                          "or a number of seconds from %g to %g",
                          s, ALIVE_MIN_S, ALIVE_MAX_S);
        return CM5_ERR_INVALID;
    }
    /* auto: launchers that start every node on this host (cm5run, mpirun
     * on one host) see a dead node's process end themselves. */
    if (t < 0)
        t = cm5i_ctx.boot.local ? 0 : ALIVE_AUTO_S;
    alive.timeout = t;
    alive.watch = t > 0 && cm5i_ctx.size > 1;
    /* The deadlock check where no cm5run reads the nodes' doorbells (a
     * PMIx launcher), on the ring, which then runs for it alone if there
     * is no heartbeat (one host).  (cm5run checks the jobs it starts
     * itself.)  A host program takes part in the check (its token comes
     * from the last node and goes on to node 0), not in the heartbeat:
     * nodes that wait for it while it computes are no deadlock. */
    alive.dl_need =
        cm5i_ctx.nep > 1 &&
                strcmp(cm5i_ctx.boot.method ? cm5i_ctx.boot.method : "",
                       "cm5run")
            ? (int)cm5i_config_long(CM5_ENV_DEADLOCK, 0, 86400)
            : 0;
    alive.on = alive.watch || alive.dl_need > 0;
    alive.interval = alive.watch ? t / 4 : ALIVE_MAX_S; /* (no pings) */
    if (cm5i_ctx.rank != 0)
        return CM5_OK;
    if (alive.watch)
        cm5i_log(CM5I_LOG_INFO, "alive",
                 "liveness check on: a node missing for %g s stops the job "
                 "(CM5_PEER_TIMEOUT=%s), pings every %g s",
                 t, s, alive.interval);
    else if (alive.on)
        cm5i_log(CM5I_LOG_INFO, "alive",
                 "liveness check off (CM5_PEER_TIMEOUT=%s%s); the ring "
                 "carries the deadlock check alone (CM5_DEADLOCK=%d)",
                 s, strcmp(s, "auto") == 0 ? ", all nodes on one host" : "",
                 alive.dl_need);
    else if (cm5i_ctx.size == 1)
        cm5i_log(CM5I_LOG_INFO, "alive", "liveness check off (one node)");
    else
        cm5i_log(CM5I_LOG_INFO, "alive",
                 "liveness check off "
                 "(CM5_PEER_TIMEOUT=%s%s)",
                 s, strcmp(s, "auto") == 0 ? ", all nodes on one host" : "");
    return CM5_OK;
}

int cm5i_alive_enabled(void) { return alive.on; }

cm5_status_t cm5i_alive_open(void)
{
    size_t tok = sizeof(alive_token_t) + (size_t)cm5i_ctx.nep;
    cm5i_fab_params_t p = {.provider = cm5i_fab_provider(cm5i_ctx.fab),
                           .msg_size = tok,
                           .rx_bytes = 32 * tok,
                           .nch = 1, /* one endpoint: pings only */
                           .queue = 16,
                           .quiet = 1,
                           .rank = cm5i_ctx.rank};
    char tag[64];
    cm5_status_t st;
    double t0;

    if (!alive.on)
        return CM5_OK;
    alive.dl_size = cm5i_ctx.nep; /* (the host's word last) */
    alive.dl_tok = calloc(1, tok);
    if (!alive.dl_tok)
        return CM5_ERR_NO_MEMORY;
    /* Its own shm file names, under the job's prefix that cm5run sweeps. */
    snprintf(tag, sizeof(tag), "cm5-%016llx-%d-hb",
             (unsigned long long)cm5i_ctx.key, cm5i_ctx.rank);
    p.name_tag = tag;
    t0 = cm5_rtime();
    st = cm5i_fab_open(&p, &alive.fab);
    if (st != CM5_OK)
        return st;
    cm5i_log(CM5I_LOG_DEBUG, "alive", "heartbeat endpoints opened in %.3f s",
             cm5_rtime() - t0);
    alive.nfds = cm5i_fab_wait_fds(alive.fab, alive.fds);
    alive.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (alive.wake_fd < 0) {
        cm5i_log(CM5I_LOG_ERROR, "alive", "eventfd: %m");
        return CM5_ERR_NO_MEMORY;
    }
    return CM5_OK;
}

size_t cm5i_alive_address(void *buf, size_t size)
{
    return cm5i_fab_address(alive.fab, buf, size);
}

cm5_status_t cm5i_alive_set_peers(const void *addrs, size_t stride)
{
    return cm5i_fab_set_peers(alive.fab, cm5i_ctx.nep, addrs, stride);
}

/* ---- the thread ---- */

static void alive_ring(int size)
{
    int r = alive.rank;

    alive.succ = alive.pred = -1;
    if (size > 1 && r < size) {
        alive.succ = (r + 1) % size;
        alive.pred = (r - 1 + size) % size;
    }
    alive.pred_left = 0;
    alive.heard = cm5_rtime();
}

static size_t alive_tok_size(void)
{
    return sizeof(alive_token_t) + (size_t)alive.dl_size;
}

/* The deadlock token's path: the ring of nodes, and, in a host/node job,
 * the host program between the last node and node 0. */
static int alive_dl_succ(void)
{
    int host = cm5i_ctx.host;

    if (host >= 0 && alive.rank == host)
        return 0;
    if (host >= 0 && alive.rank == atomic_load(&alive.size) - 1)
        return host;
    return alive.succ;
}

static int alive_dl_from(int src)
{
    int host = cm5i_ctx.host;

    if (host >= 0 && alive.rank == host) /* (the nodes' ring may shrink) */
        return src >= 0 && src < host;
    if (host >= 0 && alive.rank == 0)
        return src == host;
    return src == alive.pred;
}

static void alive_rx(void *arg, int ch, const void *buf, size_t len)
{
    alive_pkt_t p;

    (void)arg;
    (void)ch;
    if (len < sizeof(p)) {
        alive.foreign++;
        return;
    }
    memcpy(&p, buf, sizeof(p));
    if (p.key != alive.key ||
        len != (p.type == ALIVE_TOKEN ? alive_tok_size() : sizeof(p))) {
        alive.foreign++;
        return;
    }
    if (p.type == ALIVE_TOKEN && alive.dl_need && alive_dl_from((int)p.src)) {
        memcpy(alive.dl_tok, buf, len); /* (handled by the thread's loop) */
        alive.dl_have = 1;
    }
    if ((int)p.src != alive.pred)
        return; /* a ping from before a partition resize (or the host) */
    alive.heard = cm5_rtime();
    if (p.type == ALIVE_BYE)
        alive.pred_left = 1;
}

/* Read what arrived and the completions of our sends.  A failed
 * completion is no verdict: only the timeout decides. */
static void alive_drain(void)
{
    for (int i = 0; i < 64; i++)
        if (cm5i_fab_poll(alive.fab, CM5I_CH_REQ, alive_rx, NULL) <= 0)
            break;
}

static cm5_status_t alive_send(int type)
{
    alive_pkt_t p = {.key = alive.key,
                     .src = (uint32_t)alive.rank,
                     .seq = alive.seq++,
                     .type = (uint32_t)type};
    cm5_status_t st;

    if (alive.succ < 0)
        return CM5_OK;
    st = cm5i_fab_send(alive.fab, CM5I_CH_REQ, alive.succ, &p, sizeof(p));
    if (st != CM5_OK && st != CM5_ERR_AGAIN && alive.send_errors++ < 3)
        cm5i_log(CM5I_LOG_DEBUG, "alive", "ping to node %d: %s", alive.succ,
                 cm5_status_string(st));
    return st;
}

/* Sleep until the next ping is due, or until something arrives where
 * the provider can tell (its wait objects), or until finalize wakes us. */
static void alive_sleep(double s)
{
    struct pollfd pfd[1 + CM5I_NCH];
    int n = 1, ms = (int)(s * 1e3) + 1;

    pfd[0].fd = alive.wake_fd;
    pfd[0].events = POLLIN;
    if (alive.nfds && cm5i_fab_trywait(alive.fab)) {
        for (int c = 0; c < alive.nfds; c++, n++) {
            pfd[n].fd = alive.fds[c];
            pfd[n].events = POLLIN;
        }
    } else if (alive.nfds && ms > 10) {
        ms = 10; /* completions to read first */
    } else if (!alive.nfds && alive.dl_need && ms > 50) {
        ms = 50; /* (no wait objects: a token waits at most this long) */
    }
    poll(pfd, (nfds_t)n, ms < 1 ? 1 : ms);
}

static int alive_watching(void)
{
    return alive.watch && alive.pred >= 0 && !alive.pred_left &&
           !atomic_load(&alive.quiet);
}

static void *alive_deadline(void *arg)
{
    struct timespec ts = {ALIVE_EXIT_S, 0};

    (void)arg;
    while (nanosleep(&ts, &ts) != 0)
        ;
    _exit(1);
}

static int alive_spawn(pthread_t *t, void *(*fn)(void *))
{
    sigset_t all, old;
    int rc;

    /* Signals stay with the main thread (interrupts, the program's). */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(t, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static void alive_bye(void);

/* Say line once (area: the log's) and take the job down; lost: the node
 * lost, whose files on this host are swept too (-1: none).  The process
 * ends within ALIVE_EXIT_S even if the launcher does not answer (a
 * cut-off host may not reach it).  Goodbye to the successor first: this
 * node stops pinging now, and if the launcher takes longer than the
 * timeout to stop the job (seen under TSan), the successor would report
 * this node as a second lost node.  Returns when finalize or a failure
 * came first. */
static void alive_stop_job(const char *area, const char *line, int lost,
                           const char *why)
{
    pthread_t t;

    atomic_store(&alive.reporting, 1);
    if (atomic_load(&alive.quiet)) { /* finalize or a failure came first */
        atomic_store(&alive.reporting, 0);
        return;
    }
    if (alive_spawn(&t, alive_deadline) == 0)
        pthread_detach(t);
    alive_bye();
    if (cm5i_log_level < CM5I_LOG_ERROR)
        cm5i_log_level = CM5I_LOG_ERROR;
    cm5i_log(CM5I_LOG_ERROR, area, "%s", line);
    cm5i_fab_abandon(cm5i_ctx.fab);
    cm5i_fab_abandon(alive.fab);
    cm5i_sweep_node(cm5i_ctx.rank); /* (see am_init.c's ctx_die) */
    if (lost >= 0)
        cm5i_sweep_node(lost); /* the lost node's, if on this host */
    fflush(NULL);
    cm5i_boot_abort(&cm5i_ctx.boot, 1, why);
    _exit(1);
}

/* The predecessor is silent: say so once and take the job down. */
static void alive_lost(double silent)
{
    char where[160] = "", addr[128], line[512];

    if (!cm5i_ctx.boot.local) {
        cm5i_fab_peer_string(alive.fab, alive.pred, addr, sizeof(addr));
        if (addr[0])
            snprintf(where, sizeof(where), " at %s", addr);
    }
    snprintf(line, sizeof(line),
             "lost node %d%s: no heartbeat for %.1f s (CM5_PEER_TIMEOUT=%g): "
             "the node is stopped or hung, or its host or network link is "
             "down; stopping the job",
             alive.pred, where, silent, alive.timeout);
    alive_stop_job("alive", line, alive.pred,
                   "cm5fab: a node was lost (see above)");
}

/* ---- the deadlock check (where no cm5run watches) ---- */

/* This node's words into the token t (node 0: a new round's first). */
static void alive_dl_add(alive_token_t *t)
{
    cm5i_wait_state_t s;
    int blocked, same;

    cm5i_wait_state(&s);
    blocked = s.wait != 0 && s.wait < CM5_WAIT_KINDS;
    same = alive.dl_prev_ok && s.wait == alive.dl_prev.wait &&
           s.wait_seq == alive.dl_prev.wait_seq && s.tx == alive.dl_prev.tx &&
           s.rx == alive.dl_prev.rx && s.steps != alive.dl_prev.steps;
    alive.dl_prev = s;
    alive.dl_prev_ok = 1;
    t->blocked &= (uint32_t)blocked;
    t->same &= (uint32_t)same;
    t->tx += s.tx;
    t->rx += s.rx;
    if (alive.rank < alive.dl_size)
        t->wait[alive.rank] = (uint8_t)(blocked ? s.wait : 0);
}

/* Node 0: a round came back.  A deadlock once CM5_DEADLOCK + 1 rounds in
 * a row found every node blocked, the last CM5_DEADLOCK of them
 * unchanged, and the traffic balanced. */
static void alive_dl_judge(const alive_token_t *t)
{
    uint32_t *w;
    char what[1024], line[1200];

    if (!t->blocked || t->tx != t->rx) {
        alive.dl_streak = 0;
        return;
    }
    alive.dl_streak = t->same ? alive.dl_streak + 1 : 1;
    if (alive.dl_streak <= alive.dl_need)
        return;
    w = calloc((size_t)alive.dl_size, sizeof(*w));
    if (!w)
        return;
    for (int i = 0; i < alive.dl_size; i++)
        w[i] = t->wait[i];
    cm5_waits_describe(w, cm5i_ctx.size, cm5i_ctx.host, what, sizeof(what));
    free(w);
    snprintf(line, sizeof(line),
             "every node has waited for a message for %d s and none is in "
             "flight: %s; stopping the job (%s=0: no check)",
             alive.dl_need, what, CM5_ENV_DEADLOCK);
    alive_stop_job("deadlock", line, -1,
                   "cm5fab: the job is deadlocked (see above)");
}

static cm5_status_t alive_dl_send(void)
{
    alive_token_t *t = alive.dl_tok;

    t->h.key = alive.key;
    t->h.src = (uint32_t)alive.rank;
    t->h.type = ALIVE_TOKEN;
    return cm5i_fab_send(alive.fab, CM5I_CH_REQ, alive_dl_succ(), t,
                         alive_tok_size());
}

/* The thread's step: pass on a token that came (node 0: judge it), and
 * node 0 begins a round each period (again if one was lost: a node
 * left). */
static void alive_dl_step(double now)
{
    if (!alive.dl_need || alive_dl_succ() < 0)
        return;
    if (alive.dl_have) {
        alive.dl_have = 0;
        if (alive.rank != 0) {
            alive_dl_add(alive.dl_tok);
            alive.dl_fwd = 1;
        } else if (alive.dl_out && alive.dl_tok->h.seq == alive.dl_round) {
            alive.dl_out = 0;
            alive_dl_judge(alive.dl_tok);
        }
    }
    if (alive.rank == 0 && now >= alive.dl_sent + ALIVE_DL_PERIOD_S &&
        (!alive.dl_out || now >= alive.dl_sent + ALIVE_DL_LOST_S)) {
        alive_token_t *t = alive.dl_tok;

        if (alive.dl_out)
            alive.dl_streak = 0;
        memset(t, 0, alive_tok_size());
        t->h.seq = ++alive.dl_round;
        t->blocked = t->same = 1;
        alive_dl_add(t);
        alive.dl_out = 1;
        alive.dl_sent = now;
        alive.dl_fwd = 1;
    }
    if (alive.dl_fwd && alive_dl_send() != CM5_ERR_AGAIN)
        alive.dl_fwd = 0;
}

/* Goodbye to the successor, so that it stops watching us now; wait a
 * little for the message to leave before the endpoint closes. */
static void alive_bye(void)
{
    double until = cm5_rtime() + 0.2;
    cm5_status_t st;

    cm5i_fab_track_sends(alive.fab);
    while ((st = alive_send(ALIVE_BYE)) == CM5_ERR_AGAIN && cm5_rtime() < until)
        alive_drain();
    while (st == CM5_OK && cm5i_fab_sends_pending(alive.fab) > 0 &&
           cm5_rtime() < until)
        alive_drain();
}

static void *alive_thread(void *arg)
{
    double now = cm5_rtime(), next_ping = now, last = now, wake;
    int size = -1, watching;

    (void)arg;
    while (!atomic_load(&alive.stop)) {
        now = cm5_rtime();
        /* This node itself did not run (stopped, host suspended or
         * starved): the silence is ours, blame nobody. */
        if (!alive.watch || now - last > alive.timeout / 2)
            alive.heard = now;
        last = now;
        if (atomic_load(&alive.size) != size)
            alive_ring(size = atomic_load(&alive.size));
        alive_drain();
        if (alive.watch && now >= next_ping) {
            alive_send(ALIVE_PING);
            next_ping = now + alive.interval;
        }
        watching = alive_watching();
        if (watching && now - alive.heard > alive.timeout)
            alive_lost(now - alive.heard);
        if (!atomic_load(&alive.quiet))
            alive_dl_step(now);
        wake = next_ping;
        if (alive.dl_need && alive.rank == 0 &&
            alive.dl_sent + ALIVE_DL_PERIOD_S < wake)
            wake = alive.dl_sent + ALIVE_DL_PERIOD_S;
        if (alive.dl_fwd && now + 0.01 < wake)
            wake = now + 0.01; /* (a token to send again) */
        if (watching && alive.heard + alive.timeout < wake)
            wake = alive.heard + alive.timeout;
        alive_sleep(wake - cm5_rtime());
    }
    if (atomic_load(&alive.bye))
        alive_bye();
    if (alive.foreign)
        cm5i_log(CM5I_LOG_DEBUG, "alive",
                 "dropped %ld packets from outside the job", alive.foreign);
    return NULL;
}

cm5_status_t cm5i_alive_start(void)
{
    /* The ring is the partition's; a host program joins the deadlock
     * check's path, not the heartbeat (cm5run watches a host program, a
     * PMIx launcher sees its process end). */
    if (!alive.on || alive.started ||
        (cm5i_ctx.rank >= cm5i_ctx.size &&
         !(cm5i_ctx.rank == cm5i_ctx.host && alive.dl_need)))
        return CM5_OK;
    alive.rank = cm5i_ctx.rank;
    alive.key = cm5i_ctx.key;
    atomic_store(&alive.size, cm5i_ctx.size);
    alive.pid = getpid();
    atomic_store(&alive.quiet, 0); /* a start that failed stopped it */
    if (alive_spawn(&alive.thread, alive_thread) != 0) {
        cm5i_log(CM5I_LOG_ERROR, "alive",
                 "cannot start the heartbeat "
                 "thread");
        return CM5_ERR_NO_MEMORY;
    }
    alive.started = 1;
    if (alive.watch && alive.rank < cm5i_ctx.size)
        cm5i_ctx.watch_s = alive.timeout; /* (am_progress.c waits for it) */
    return CM5_OK;
}

void cm5i_alive_resize(int size) { atomic_store(&alive.size, size); }

void cm5i_alive_quiet(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};

    atomic_store(&alive.quiet, 1);
    cm5i_ctx.watch_s = 0; /* (it names nobody now) */
    /* The heartbeat thread is taking the process down: do not close the
     * endpoints it still uses.  (If it saw quiet in time, it backs off.) */
    while (atomic_load(&alive.reporting) && alive.pid == getpid())
        nanosleep(&ts, NULL);
}

void cm5i_alive_abandon(void)
{
    cm5i_alive_quiet();
    cm5i_fab_abandon(alive.fab);
}

void cm5i_alive_stop(int bye)
{
    uint64_t one = 1;

    cm5i_alive_quiet();
    if (alive.started && alive.pid == getpid()) {
        atomic_store(&alive.bye, bye);
        atomic_store(&alive.stop, 1);
        if (write(alive.wake_fd, &one, sizeof(one)) < 0)
            cm5i_log(CM5I_LOG_DEBUG, "alive", "eventfd write: %m");
        pthread_join(alive.thread, NULL);
    }
    alive.started = 0;
    cm5i_fab_close(alive.fab);
    alive.fab = NULL;
    free(alive.dl_tok);
    alive.dl_tok = NULL;
    if (alive.wake_fd >= 0)
        close(alive.wake_fd);
    alive.wake_fd = -1;
}
