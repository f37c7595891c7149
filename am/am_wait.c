/*
 * Waiting that shares the CPU.  A wait polls, then spins a little, then
 * yields, then sleeps: on the provider's wait object (a file descriptor)
 * where it has one, otherwise on the job's doorbell (a futex in memory
 * shared by cm5run's nodes), otherwise with a bounded backoff.  Jobs of
 * 32-64 nodes on 2 cores progress because idle nodes give the CPU away.
 */
#include "am_wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wire.h"
#include "fabric/fab.h"

static cm5_stats_t wait_count; /* this module's statistics (cm5_stats) */

static struct {
    double spin_s;
    int yields;
    int sleep_ms;
    int fds[CM5I_NCH]; /* the provider's wait objects */
    int nfds;
    cm5i_doorbell_t *slots; /* the job's slots (boot_proto.h), or NULL */
    size_t slots_len;
    cm5i_doorbell_t *doorbell; /* the slots, when waits sleep on them */
    int prefer_bell; /* sleep on the doorbell even with wait objects */
    int wake_fd;     /* a job on several hosts: the ring peers' wake-up
                        socket, polled beside the provider's fds */
    const _Atomic uint32_t *watch; /* cm5i_wait_watch, or NULL */
    uint32_t watch_val;
    /* This node's words for the deadlock check where it has no slot (a
     * job on several hosts: am_alive.c's ring reads them) */
    cm5i_doorbell_t own;
} waits = {.wake_fd = -1};

void cm5i_wait_prefer_doorbell(void) { waits.prefer_bell = 1; }

void cm5i_wait_config(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *spin = cm5i_config_str(CM5_ENV_SPIN_US);

    waits.yields = (int)cm5i_config_long(CM5_ENV_YIELDS, 0, 1000000);
    waits.sleep_ms = (int)cm5i_config_long(CM5_ENV_SLEEP_MS, 1, 1000);
    waits.spin_s = cm5i_ctx.nep > ncpu ? 0 : 50e-6; /* auto */
    if (strcmp(spin, "auto") != 0) {
        char *end;
        long us = strtol(spin, &end, 10);

        if (*spin && !*end && us >= 0 && us <= 10000000)
            waits.spin_s = us * 1e-6;
        else
            cm5i_config_error(CM5_ENV_SPIN_US
                              "=%s: expected auto or a "
                              "number of microseconds from 0 to 10000000",
                              spin);
    }
}

void *cm5i_wait_area(void)
{
    return waits.slots ? (void *)(waits.slots - CM5_DOORBELL_FIRST) : NULL;
}

int cm5i_wait_peer_pid(int node)
{
    if (!waits.slots || node < 0 || node >= cm5i_ctx.nep)
        return -1;
    return (int)atomic_load(&waits.slots[node].pid);
}

void cm5i_wait_sleep_cap(int ms)
{
    if (ms > 0 && waits.sleep_ms > ms)
        waits.sleep_ms = ms;
}

int cm5i_wait_spins(void) { return waits.spin_s > 0; }

cm5_doorbell_job_t *cm5i_wait_job(void)
{
    return waits.doorbell ? (cm5_doorbell_job_t *)cm5i_wait_area() : NULL;
}

cm5i_doorbell_t *cm5i_wait_doorbell(void)
{
    return waits.doorbell ? &waits.doorbell[cm5i_ctx.rank] : NULL;
}

int cm5i_wait_fds(int *fds)
{
    memcpy(fds, waits.fds, sizeof(waits.fds));
    return waits.nfds;
}

static long wait_futex(_Atomic uint32_t *addr, int op, uint32_t val,
                       const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/* The wake-up socket of node k: an abstract Unix name (its host's
 * network namespace; ring peers share one) after the job's key. */
static socklen_t wait_wake_addr(int node, struct sockaddr_un *a)
{
    int n;

    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "cm5-%016llx-w%d",
                 (unsigned long long)cm5i_ctx.boot.key, node);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int wait_wake_open(void)
{
    struct sockaddr_un a;
    socklen_t len = wait_wake_addr(cm5i_ctx.rank, &a);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0) {
        cm5i_log(CM5I_LOG_WARN, "wait",
                 "no wake-up socket (%m): waits on the rings will back off");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    waits.wake_fd = fd;
    return 0;
}

/* Wake a ring peer asleep in a poll.  A full socket already wakes it. */
static void wait_wake_send(int node)
{
    struct sockaddr_un a;
    socklen_t len = wait_wake_addr(node, &a);
    char b = 0;

    (void)sendto(waits.wake_fd, &b, 1, MSG_DONTWAIT, (struct sockaddr *)&a,
                 len);
}

/* The provider's descriptors of the channels in chmask, each once (one
 * endpoint: both channels' entries are the same). */
static nfds_t wait_fill(struct pollfd *pfd, int chmask)
{
    nfds_t n = 0;

    for (int c = 0; c < waits.nfds; c++)
        if ((chmask & CM5I_CH_BIT(c)) &&
            (n == 0 || pfd[n - 1].fd != waits.fds[c]))
            pfd[n++] = (struct pollfd){.fd = waits.fds[c], .events = POLLIN};
    return n;
}

/* Sleep until the fabric or a ring peer wakes it, or ms pass (fds_ok:
 * the provider's descriptors may be slept on, fi_trywait said so). */
static void wait_poll_both(int ms, int fds_ok)
{
    struct pollfd pfd[CM5I_NCH + 1];
    nfds_t n = fds_ok ? wait_fill(pfd, CM5I_CH_ALL) : 0;
    char buf[64];

    pfd[n++] = (struct pollfd){.fd = waits.wake_fd, .events = POLLIN};
    if (poll(pfd, n, ms) < 0 && errno != EINTR)
        cm5i_log(CM5I_LOG_WARN, "wait", "poll: %m");
    while (recv(waits.wake_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
        ;
}

int cm5i_wait_both(void) { return waits.wake_fd >= 0; }

cm5_status_t cm5i_wait_setup(void)
{
    size_t len = CM5_DOORBELL_SIZE(cm5i_ctx.nep);
    void *p;

    cm5i_stats_part(&wait_count);
    waits.nfds = cm5i_fab_wait_fds(cm5i_ctx.fab, waits.fds);
    /* The slots: the doorbell's, and what the launcher's deadlock check
     * reads, whichever way the node sleeps. */
    if (cm5i_ctx.boot.doorbell_fd >= 0) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
                 cm5i_ctx.boot.doorbell_fd, 0);
        if (p == MAP_FAILED)
            cm5i_log(CM5I_LOG_WARN, "wait",
                     "cannot map the doorbell (%m): waits will back off");
        else {
            waits.slots = (cm5i_doorbell_t *)p + CM5_DOORBELL_FIRST;
            waits.slots_len = len;
            atomic_store(&waits.slots[cm5i_ctx.rank].pid, (uint32_t)getpid());
        }
    }
    if (waits.slots && !waits.nfds && !cm5i_ctx.boot.local &&
        (waits.nfds = cm5i_fab_endpoint_fds(cm5i_ctx.fab, waits.fds)) > 0) {
        /* Ring peers on this host and the fabric to the others: a sleep
         * polls the provider's descriptors and a socket the ring peers
         * write to when they find the node asleep. */
        if (wait_wake_open() == 0) {
            waits.doorbell = waits.slots;
            cm5i_log(CM5I_LOG_INFO, "wait",
                     "waits sleep on the provider's file descriptors and the "
                     "host's doorbell (a wake-up socket)");
            return CM5_OK;
        }
        waits.nfds = 0;
    }
    if (waits.nfds && !(waits.prefer_bell && waits.slots)) {
        cm5i_log(CM5I_LOG_INFO, "wait",
                 "waits sleep on the provider's file descriptors");
        return CM5_OK;
    }
    if (!waits.slots) {
        cm5i_log(CM5I_LOG_INFO, "wait",
                 "waits back off: the provider has no wait object and the "
                 "launcher gave no doorbell");
        return CM5_OK;
    }
    waits.doorbell = waits.slots;
    cm5i_log(CM5I_LOG_INFO, "wait", "waits sleep on the job's doorbell");
    return CM5_OK;
}

void cm5i_wait_teardown(void)
{
    if (waits.slots)
        munmap(waits.slots - CM5_DOORBELL_FIRST, waits.slots_len);
    if (waits.wake_fd >= 0)
        close(waits.wake_fd);
    waits.wake_fd = -1;
    waits.slots = waits.doorbell = NULL;
    waits.slots_len = 0;
    waits.nfds = 0;
    waits.prefer_bell = 0;
    waits.watch = NULL;
}

/* Ring node's doorbell if it sleeps (or, irq, takes interrupts). */
static void wait_ring(int node, int irq)
{
    cm5i_doorbell_t *d;

    if (!waits.doorbell)
        return;
    d = &waits.doorbell[node];
    if (atomic_load(&d->sleeping) || (irq && atomic_load(&d->irq))) {
        atomic_fetch_add(&d->seq, 1);
        if (waits.wake_fd >= 0)
            wait_wake_send(node);
        else
            wait_futex(&d->seq, FUTEX_WAKE, INT_MAX, NULL);
    }
}

void cm5i_doorbell_ring(int node) { wait_ring(node, 1); }

void cm5i_doorbell_wake(int node) { wait_ring(node, 0); }

uint32_t cm5i_doorbell_arm(void)
{
    cm5i_doorbell_t *d = &waits.doorbell[cm5i_ctx.rank];

    atomic_store(&d->sleeping, 1);
    return atomic_load(&d->seq);
}

void cm5i_doorbell_wait(uint32_t seq, int ms, int fds_ok)
{
    cm5i_doorbell_t *d = &waits.doorbell[cm5i_ctx.rank];
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    if (ms <= 0)
        return;
    if (waits.wake_fd < 0)
        wait_futex(&d->seq, FUTEX_WAIT, seq, &ts);
    else if (atomic_load(&d->seq) == seq) /* (not rung meanwhile) */
        wait_poll_both(ms, fds_ok);
}

void cm5i_doorbell_sleep(uint32_t seq, int ms)
{
    /* (the runtime's own thread: it may ask the provider) */
    if (ms > 0 && waits.wake_fd >= 0 && !cm5i_fab_trywait(cm5i_ctx.fab))
        ms = 0; /* completions wait: no sleep */
    cm5i_doorbell_wait(seq, ms, 1);
    atomic_store(&waits.doorbell[cm5i_ctx.rank].sleeping, 0);
}

static int wait_sleep_doorbell(int chmask, int ms)
{
    uint32_t seq = cm5i_doorbell_arm();
    /* A sender that saw sleeping == 0 delivered before this poll; a
     * writer of the watched word that saw it wrote before this load. */
    int n = cm5i_progress(chmask);

    if (n == 0 && waits.watch && atomic_load(waits.watch) != waits.watch_val) {
        waits.watch = NULL; /* (seen: whoever waits for it looks next) */
        n = 1;
    }

    cm5i_doorbell_sleep(seq, n == 0 ? ms : 0);
    return n;
}

static int wait_sleep_fds(int chmask, int ms)
{
    struct pollfd pfd[CM5I_NCH];
    nfds_t n;

    if (!cm5i_fab_trywait(cm5i_ctx.fab))
        return cm5i_progress(chmask);
    n = wait_fill(pfd, chmask);
    if (poll(pfd, n, ms) < 0 && errno != EINTR)
        cm5i_log(CM5I_LOG_WARN, "wait", "poll: %m");
    return 0;
}

/* Back to the first step of the back-off (progress was made). */
static void wait_reset(cm5i_waiter_t *w)
{
    w->t0 = -1;
    w->empty = 0;
    w->yields = 0;
    w->sleep_us = 20;
    w->crowded = 0;
}

void cm5i_wait_watch(const _Atomic uint32_t *word, uint32_t val)
{
    waits.watch_val = val;
    waits.watch = word;
}

void cm5i_wait_unwatch(void) { waits.watch = NULL; }

#define WAIT_NAME(k, name, blocked) name,
#define WAIT_BLOCKED(k, name, blocked) blocked,
static const char *const wait_names[] = {"probe", CM5_WAITS(WAIT_NAME)};
static const uint8_t wait_blocked[] = {0, CM5_WAITS(WAIT_BLOCKED)};
#undef WAIT_NAME
#undef WAIT_BLOCKED

const char *cm5i_wait_name(int what)
{
    return what >= 0 && what < CM5I_WAIT_KINDS ? wait_names[what] : "?";
}

uint64_t cm5i_traffic_tx, cm5i_traffic_rx;

/* The named waits under way, innermost last (a handler run inside a
 * wait may wait): the innermost is what the node waits in. */
#define WAIT_NEST 16
static int wait_stack[WAIT_NEST];
static int wait_depth;

int cm5i_wait_level(void) { return wait_depth; }

int cm5i_wait_innermost(void)
{
    return wait_depth > 0 && wait_depth <= WAIT_NEST
               ? wait_stack[wait_depth - 1]
               : CM5I_WAIT_NONE;
}

/* This node's slot (its own words where the job has no slots), with
 * its traffic as it stands. */
static cm5i_doorbell_t *wait_slot_traffic(void)
{
    cm5i_doorbell_t *d = waits.slots ? &waits.slots[cm5i_ctx.rank] : &waits.own;

    atomic_store_explicit(&d->tx, cm5i_traffic_tx, memory_order_relaxed);
    atomic_store_explicit(&d->rx, cm5i_traffic_rx, memory_order_relaxed);
    return d;
}

void cm5i_wait_state(cm5i_wait_state_t *s)
{
    const cm5i_doorbell_t *d =
        waits.slots ? &waits.slots[cm5i_ctx.rank] : &waits.own;

    s->steps = atomic_load_explicit(&d->steps, memory_order_acquire);
    s->wait = atomic_load_explicit(&d->wait, memory_order_acquire);
    s->wait_seq = atomic_load_explicit(&d->wait_seq, memory_order_relaxed);
    s->tx = atomic_load_explicit(&d->tx, memory_order_relaxed);
    s->rx = atomic_load_explicit(&d->rx, memory_order_relaxed);
}

/* What the doorbell slot says for the deadlock check (boot_proto.h). */
static void wait_publish(int begun)
{
    cm5i_doorbell_t *d = wait_slot_traffic();
    int top = wait_depth > 0 && wait_depth <= WAIT_NEST
                  ? wait_stack[wait_depth - 1]
                  : CM5I_WAIT_NONE;

    if (begun)
        atomic_fetch_add_explicit(&d->wait_seq, 1, memory_order_relaxed);
    atomic_store_explicit(&d->wait, wait_blocked[top] ? (uint32_t)top : 0,
                          memory_order_release);
}

/* A step of a named wait that found nothing: the node still looks
 * (after tx, rx).  A probe loop's steps do not count: the program's loop
 * may end on anything. */
static void wait_publish_step(const cm5i_waiter_t *w)
{
    cm5i_doorbell_t *d = w->begun ? wait_slot_traffic() : NULL;

    if (!d)
        return;
    atomic_fetch_add_explicit(&d->steps, 1, memory_order_release);
}

void cm5i_waiter_init(cm5i_waiter_t *w)
{
    wait_reset(w);
    w->what = CM5I_WAIT_NONE;
    w->begun = 0;
}

void cm5i_waiter_start(cm5i_waiter_t *w, int what)
{
    cm5i_waiter_init(w);
    w->what = what;
}

void cm5i_waiter_end(cm5i_waiter_t *w)
{
    if (w->begun) {
        w->begun = 0;
        if (wait_depth > 0 && --wait_depth < WAIT_NEST)
            wait_publish(0);
        CM5I_EV(wait_end, w->what);
    }
}

/* Spinning only pays when the node we wait for runs on another CPU.  On
 * a busy machine the scheduler often puts two nodes of a job on one CPU;
 * each then spins its whole CM5_SPIN_US before the other may run, and a
 * shm round trip takes 2 x 50 us instead of 2 us (doc/bench.md, item 1).
 * So each node publishes the CPU it waits on in its doorbell slot, and a
 * waiter skips the spin while another node of the job that is not
 * asleep last waited on the same CPU. */
static int wait_crowded(void)
{
    cm5i_doorbell_t *db = waits.doorbell;
    int me = cm5i_ctx.rank, cpu = sched_getcpu();

    if (!db || cpu < 0)
        return 0;
    /* Written only when it changes: each write takes the line from the
     * peers that read it here (a round trip's worth of transfers). */
    if (atomic_load_explicit(&db[me].cpu, memory_order_relaxed) !=
        (uint32_t)cpu + 1)
        atomic_store(&db[me].cpu, (uint32_t)cpu + 1);
    for (int j = 0; j < cm5i_ctx.nep; j++)
        if (j != me && atomic_load(&db[j].cpu) == (uint32_t)cpu + 1 &&
            !atomic_load(&db[j].sleeping))
            return 1;
    return 0;
}

static void wait_sleep(cm5i_waiter_t *w, int chmask)
{
    wait_count.sleeps++;
    if (waits.nfds && !waits.doorbell) {
        wait_sleep_fds(chmask, waits.sleep_ms);
    } else if (waits.doorbell) {
        wait_sleep_doorbell(chmask, waits.sleep_ms);
    } else {
        struct timespec ts = {0, w->sleep_us * 1000L};

        nanosleep(&ts, NULL);
        if (w->sleep_us < waits.sleep_ms * 1000)
            w->sleep_us *= 2;
    }
}

void cm5i_wait_step(cm5i_waiter_t *w, int chmask)
{
    if (CM5I_UNLIKELY(!cm5i_ctx.exit_hooked))
        cm5i_exit_hook();
    if (w->what && !w->begun) {
        w->begun = 1;
        if (wait_depth++ < WAIT_NEST) {
            wait_stack[wait_depth - 1] = w->what;
            wait_publish(1);
        }
        CM5I_EV(wait_begin, w->what);
    }
    if (cm5i_progress(chmask) > 0) {
        wait_reset(w);
        return;
    }
    if (w->empty++ == 0) {
        w->t0 = cm5_rtime();
        if (waits.spin_s > 0)
            w->crowded = wait_crowded();
        return;
    }
    /* Spinning: the clock is read on every 8th empty pass only (a read
     * costs as much as a pass; doc/bench.md, "Profile of the same-host
     * path"). */
    if (waits.spin_s > 0 && !w->crowded &&
        ((w->empty & 7) != 0 || cm5_rtime() - w->t0 < waits.spin_s)) {
        if ((w->empty & 63) == 0)
            w->crowded = wait_crowded();
        return;
    }
    wait_publish_step(w);
    if (w->yields < waits.yields || cm5i_fab_bulk_pending(cm5i_ctx.fab) > 0) {
        w->yields++;
        sched_yield();
        if (waits.spin_s > 0) /* (the CPU may have changed) */
            w->crowded = wait_crowded();
        return;
    }
    wait_sleep(w, chmask);
}

/* A legacy program waits by calling a probe in a loop with nothing else
 * in it: CMAML_poll, or `while (!CMMD_msg_done(mcb));`, `while
 * (!CMMD_msg_pending(node, tag));`, `while (!CMMD_sync_done());`.  On the
 * CM-5 each node had its processor; here 32 nodes may share one, and a
 * probe that never gives it away makes every spinning node burn its time
 * slice before the node it waits for may run.  So after many empty
 * passes in quick succession a probe starts to yield and then sleep,
 * like a wait (woken by what arrives).  Calls spaced out by the
 * program's own work never sleep.  Outside handlers only. */
/* Empty passes in a row before a probe backs off as a wait, where waits
 * spin; where they do not (more nodes than CPUs: the node a probe waits
 * for needs this CPU), one: 64 passes of a scan of 4-8 message blocks
 * held the CPU for 100-250 us while nodes of the job had not yet started
 * their part (an 8-node all-to-all of small messages on 2 CPUs: 0.12 ms
 * with 64, 0.06 ms with 1; doc/bench.md). */
#define PROBE_PASSES 64
static cm5i_waiter_t probe_waiter = {.t0 = -1, .sleep_us = 20};
static double probe_last;
static unsigned probe_clock_spins;

void cm5i_probe_progress(void)
{
    double now = cm5_rtime();

    /* In virtual time a loop that reads the clock between probes (`while
     * (cm5_wtime() < wake) CMAML_poll();`, DRS_N's retry wait) waits for
     * its own clock, which only its reads advance: sleeping in real time
     * there would stretch a millisecond of virtual time into seconds.
     * It polls and only yields now and then. */
    if (cm5i_ev_probe()) {
        if (cm5i_progress(CM5I_CH_ALL) == 0 && ++probe_clock_spins % 64 == 0)
            sched_yield();
        probe_last = cm5_rtime();
        return;
    }
    if (now - probe_last > 20e-6) /* the program worked in between */
        cm5i_waiter_init(&probe_waiter);
    if (probe_waiter.empty < (waits.spin_s > 0 ? PROBE_PASSES : 1)) {
        if (cm5i_progress(CM5I_CH_ALL) > 0)
            cm5i_waiter_init(&probe_waiter);
        else
            probe_waiter.empty++;
    } else {
        cm5i_wait_step(&probe_waiter, CM5I_CH_ALL);
    }
    probe_last = cm5_rtime();
}

int cm5i_probe_cn;

void cm5i_probe_progress_cn(void)
{
    cm5i_probe_cn = 1;
    cm5i_probe_progress();
    cm5i_probe_cn = 0;
}

/* A probe of one of several objects a program tests in turn (`for each
 * mcb: CMMD_msg_done(mcb)`, the legacy way to reap sends): a scan of many
 * objects is not a spin, and backing off inside it would sleep once per
 * object after the first 64 (a scan of 128 MCBs slept 64 times while the
 * messages that complete them waited for the program to leave it).  So
 * only a repeat (the same object again, or the scan's first one) counts
 * as a pass that may back off; the others poll, and so does nothing
 * more, unless SCAN_MAX of them in a row brought nothing (a scan whose
 * first object went away). */
#define SCAN_MAX 1024
void cm5i_probe_progress_of(const void *what)
{
    static const void *first, *last;
    static int plain;

    /* (Synchronised virtual time: every probe is a poll of its cost,
     * whichever object it names; which addresses repeat is the
     * allocator's business.) */
    if (what == last || what == first || !first || plain >= SCAN_MAX ||
        cm5i_clock_orders) {
        first = what == last ? first : what;
        last = what;
        plain = 0;
        cm5i_probe_progress();
        return;
    }
    last = what;
    if (cm5i_progress(CM5I_CH_ALL) > 0)
        plain = 0;
    else
        plain++;
    probe_last = cm5_rtime();
}

/* Inside a handler only replies are served: request handlers never nest. */
static int wait_mask(void)
{
    return cm5i_depth.in_handler ? CM5I_CH_BIT(CM5I_CH_REP) : CM5I_CH_ALL;
}

void cm5_wait_until(int (*pred)(void *arg), void *arg)
{
    CM5I_GUARD();
    cm5i_waiter_t w;

    cm5i_ensure_init();
    cm5i_waiter_start(&w, CM5I_WAIT_UNTIL);
    while (!pred(arg))
        cm5i_wait_step(&w, wait_mask());
    cm5i_waiter_end(&w);
}

void cm5_wait_while_lt(volatile int *flag, int value)
{
    CM5I_GUARD();
    cm5i_waiter_t w;

    cm5i_ensure_init();
    cm5i_waiter_start(&w, CM5I_WAIT_WHILE_LT);
    while (*flag < value)
        cm5i_wait_step(&w, wait_mask());
    cm5i_waiter_end(&w);
}
