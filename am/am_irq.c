/*
 * Interrupt mode, emulated.  On the CM-5 an interrupt meant that a
 * message had arrived; here too.
 *
 * While interrupts are enabled, a thread drives the network whenever the
 * main thread is outside the runtime: it sleeps until something may have
 * arrived (on this node's doorbell, which senders ring while interrupts
 * are armed, or on the provider's wait descriptors), takes the runtime
 * (see "ownership" below), runs the progress engine with user work held
 * (as a control-network call holds it: CM5I_CN_HOLD), gives the runtime
 * back, and only if user work is waiting (a handler to run, an RPC, a
 * completion callback) signals the main thread.  The runtime's own traffic
 * (credits, barrier rounds, message protocol steps) never interrupts.
 *
 * The signal handler runs only the held user work, in the main thread:
 * the provider and the allocator stay in the interrupt thread.  Packets a
 * handler sends (CMAML_reply) are queued with their credit and the thread
 * sends them as the handler returns; the runtime's own deferred steps
 * (message protocol, which calls libfabric) wait for the thread's next
 * pass, and so does the free() of a message record a callback releases
 * there (am_msg.c).  What remains in signal context is
 * written in doc/reliability.md ("Interrupt mode").
 *
 * If the main thread is inside the runtime (cm5i_rt_depth > 0), the
 * interrupt is remembered and served as the outermost call returns.  User
 * code must not be run from a signal that interrupted the C library or the
 * dynamic loader (malloc holding its arena lock, say), so inside libc,
 * libpthread, ld.so or libfabric the interrupt is refused and the thread
 * asks again after a delay that doubles, 50 us to 20 ms: a main thread
 * blocked in sleep() sees a few EINTR per message, not thousands.
 *
 * Ownership: one word says who may touch the runtime's state (endpoints,
 * queues, credits): nobody, the main thread, or the interrupt thread.  The
 * main thread takes it in its outermost runtime call (cm5i_guard_enter)
 * and in the signal handler, waiting on a futex if the thread is in a
 * progress pass; it gives it back as that call returns.
 */
#include "am_irq.h"

#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <ucontext.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_guard.h"
#include "am_packet.h"
#include "am_progress.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "fabric/fab.h"

enum { OWN_NONE, OWN_MAIN, OWN_THREAD };
/* Answers of the signal handler to the thread's request. */
enum { IRQ_IDLE, IRQ_ASKED, IRQ_RUNNING, IRQ_DONE, IRQ_HELD, IRQ_REFUSED };

#define IRQ_BACKOFF_MIN_NS (50 * 1000L)
#define IRQ_BACKOFF_MAX_NS (20 * 1000 * 1000L)
#define IRQ_WATCH_MS 100 /* longest sleep: the provider's own timers */

static struct {
    _Atomic int enabled; /* read by the thread without the lock */
    volatile sig_atomic_t inside;
    int started;
    int parked; /* the thread waits for an enable: it touches nothing */
    int sig;
    long tick_ns;
    pthread_t main, thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    _Atomic uint32_t owner;   /* OWN_* */
    _Atomic uint32_t waiting; /* someone sleeps on owner */
    _Atomic uint32_t answer;  /* IRQ_* */
    int can_sleep;            /* the last pass's fi_trywait succeeded */
    int work_left;     /* the last pass left the runtime's own steps queued */
    int fds[CM5I_NCH]; /* the provider's wait objects */
    int nunsafe;
    struct {
        uintptr_t lo, hi;
    } unsafe[16]; /* code where an interrupt must not run handlers */
    struct {
        _Atomic unsigned long signals, refused, taken, held, passes;
    } count;
} irq = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static _Thread_local int irq_self; /* this is the interrupt thread */

int cm5i_irq_thread(void) { return irq_self; }

static long irq_futex(_Atomic uint32_t *w, int op, uint32_t val,
                      const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, 0);
}

/* ---- ownership ---- */

/* Take the runtime as who; waits while the other thread has it, unless
 * only_if_free.  Returns 1 if taken. */
static int irq_take(uint32_t who, int only_if_free)
{
    for (;;) {
        uint32_t cur = OWN_NONE;

        if (atomic_compare_exchange_strong(&irq.owner, &cur, who))
            return 1;
        if (cur == who || only_if_free)
            return cur == who;
        atomic_store(&irq.waiting, 1);
        irq_futex(&irq.owner, FUTEX_WAIT_PRIVATE, cur, NULL);
    }
}

static void irq_give(void)
{
    atomic_store(&irq.owner, OWN_NONE);
    if (atomic_exchange(&irq.waiting, 0))
        irq_futex(&irq.owner, FUTEX_WAKE_PRIVATE, 1 << 30, NULL);
}

void cm5i_irq_acquire(void)
{
    if (irq_self || cm5i_irq_owned)
        return; /* (cm5_fatal's exit handlers in the interrupt thread) */
    irq_take(OWN_MAIN, 0);
    cm5i_irq_owned = 1;
}

static void irq_release(void)
{
    if (!cm5i_irq_owned)
        return;
    cm5i_irq_owned = 0;
    irq_give();
}

/* ---- the main thread's side ---- */

/* Serve a held interrupt in the main thread, outside signal context:
 * the whole progress engine may run. */
void cm5i_irq_deliver(void)
{
    int saved = errno;

    cm5i_irq_pending = 0;
    if (irq.enabled && !cm5i_depth.in_handler && cm5i_ctx.ready)
        cm5i_progress(CM5I_CH_ALL);
    errno = saved;
}

/* The outermost runtime call returns (cm5i_rt_depth == 1).  An interrupt
 * that comes after the last look at cm5i_irq_pending finds the depth at 0
 * and runs itself. */
void cm5i_irq_leave(void)
{
    for (;;) {
        while (cm5i_irq_pending)
            cm5i_irq_deliver();
        /* Synchronised virtual time: what the program computes from now
         * on counts towards its wait by rule (not the deliveries above,
         * which are the runtime's). */
        if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->irq_mark)
            cm5i_clock->irq_mark();
        irq_release();
        cm5i_rt_depth = 0;
        if (!cm5i_irq_pending)
            return;
        cm5i_rt_depth = 1; /* came meanwhile: serve it here */
        if (cm5i_irq_active)
            cm5i_irq_acquire();
    }
}

static uintptr_t irq_pc(void *uc)
{
    const ucontext_t *u = uc;

    (void)u;
#if defined(__x86_64__)
    return (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
    return (uintptr_t)u->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
    return (uintptr_t)u->uc_mcontext.pc;
#else
    return 0; /* unknown: trust the program */
#endif
}

static int irq_unsafe(uintptr_t pc)
{
    for (int i = 0; i < irq.nunsafe; i++)
        if (pc >= irq.unsafe[i].lo && pc < irq.unsafe[i].hi)
            return 1;
    return 0;
}

static void irq_answer(uint32_t a)
{
    atomic_store(&irq.answer, a);
    irq_futex(&irq.answer, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* Run the user work the thread held, as an interrupt: user handlers and
 * what they call; their sends are queued (cm5i_irq_in_signal). */
static void irq_run_user(void)
{
    cm5i_rt_depth = 1;
    cm5i_irq_acquire();
    irq.inside = 1;
    cm5i_irq_in_signal = 1;
    if (irq.enabled && !cm5i_depth.in_handler && cm5i_ctx.ready)
        while (cm5i_am_run_user() > 0)
            ;
    /* Synchronised virtual time: the program runs on from here (it waits
     * for its next interrupt by rule only after another CPU floor). */
    if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->irq_mark)
        cm5i_clock->irq_mark();
    cm5i_irq_in_signal = 0;
    irq.inside = 0;
    irq_release();
    cm5i_rt_depth = 0;
}

static void irq_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;

    (void)sig;
    (void)si;
    if (cm5i_rt_depth > 0 || irq.inside) {
        cm5i_irq_pending = 1; /* delivered when the runtime call returns */
        irq_answer(IRQ_HELD);
    } else if (irq_unsafe(irq_pc(uc))) {
        irq_answer(IRQ_REFUSED);
    } else {
        atomic_store(&irq.answer, IRQ_RUNNING);
        irq_run_user();
        irq_answer(IRQ_DONE);
    }
    errno = saved;
}

/* Text segments of the C library, libpthread, the dynamic loader and
 * libfabric (with its provider plug-ins). */
static int irq_find_unsafe(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *name = info->dlpi_name, *base;

    (void)size;
    (void)arg;
    if (!name || !*name)
        return 0;
    base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libc.so", 7) && strncmp(base, "libpthread.so", 13) &&
        strncmp(base, "ld-linux", 8) && strncmp(base, "ld.so", 5) &&
        strncmp(base, "libfabric.so", 12) && !strstr(name, "/libfabric/"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            irq.nunsafe == (int)(sizeof(irq.unsafe) / sizeof(*irq.unsafe)))
            continue;
        irq.unsafe[irq.nunsafe].lo = info->dlpi_addr + ph->p_vaddr;
        irq.unsafe[irq.nunsafe].hi =
            info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        irq.nunsafe++;
    }
    return 0;
}

/* ---- the interrupt thread ---- */

/* One progress pass for the main thread, with user work held.  Returns 1
 * if user work waits for an interrupt, 0 if none, -1 if the main thread
 * has the runtime (it serves everything itself). */
static int irq_pass(void)
{
    int user, n = 0;

    if (!irq_take(OWN_THREAD, 1))
        return -1;
    if (!irq.enabled || !cm5i_ctx.ready) {
        irq_give();
        return 0;
    }
    atomic_fetch_add(&irq.count.passes, 1);
    /* Synchronised virtual time: a program that computes on outside the
     * runtime waits for its interrupts by rule (doc/model.md). */
    if (CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->irq_idle)
        cm5i_clock->irq_idle();
    cm5i_depth.user_hold++; /* user work runs in the main thread */
    while (cm5i_progress(CM5I_CH_ALL) > 0 && ++n < 64)
        ;
    cm5i_depth.user_hold--;
    user = cm5i_am_user_pending();
    irq.work_left = cm5i_defer_pending();
    irq.can_sleep = !cm5i_wait_fds(irq.fds) || cm5i_fab_trywait(cm5i_ctx.fab);
    irq_give();
    return user;
}

/* Wait for the signal handler's answer to an IRQ_ASKED. */
static uint32_t irq_await(void)
{
    struct timespec ten_ms = {0, 10 * 1000 * 1000L};
    uint32_t a;

    while ((a = atomic_load(&irq.answer)) == IRQ_ASKED || a == IRQ_RUNNING) {
        if (irq_futex(&irq.answer, FUTEX_WAIT_PRIVATE, a,
                      a == IRQ_ASKED ? &ten_ms : NULL) &&
            errno == ETIMEDOUT && atomic_load(&irq.answer) == IRQ_ASKED)
            return IRQ_REFUSED; /* the program blocks the signal */
    }
    return a;
}

/* User work waits: interrupt the main thread until it has run it (or the
 * runtime has it).  Returns 1 if a handler ran (its replies are queued). */
static int irq_raise(void)
{
    long delay = IRQ_BACKOFF_MIN_NS;

    while (irq.enabled && !cm5i_irq_pending) {
        struct timespec ts;
        uint32_t a;

        atomic_store(&irq.answer, IRQ_ASKED);
        atomic_fetch_add(&irq.count.signals, 1);
        pthread_kill(irq.main, irq.sig);
        a = irq_await();
        if (a == IRQ_DONE) {
            atomic_fetch_add(&irq.count.taken, 1);
            return 1;
        }
        if (a == IRQ_HELD) {
            atomic_fetch_add(&irq.count.held, 1);
            return 0;
        }
        atomic_fetch_add(&irq.count.refused, 1);
        ts.tv_sec = 0;
        ts.tv_nsec = delay;
        nanosleep(&ts, NULL);
        delay = delay * 2 > IRQ_BACKOFF_MAX_NS ? IRQ_BACKOFF_MAX_NS : delay * 2;
        /* Meanwhile more may have come, or the main thread served it. */
        if (irq_pass() == 0)
            return 0;
    }
    return 0;
}

/* Sleep until something may have arrived for this node, or for a tick
 * if the runtime's own steps wait (they never run in the signal
 * handler: the thread runs them). */
static void irq_watch(void)
{
    cm5i_doorbell_t *d = cm5i_wait_doorbell();
    int nfds = cm5i_wait_fds(irq.fds);

    if (irq.work_left) {
        struct timespec ts = {irq.tick_ns / 1000000000L,
                              irq.tick_ns % 1000000000L};

        nanosleep(&ts, NULL);
    } else if (d && (!cm5i_wait_both() || irq.can_sleep)) {
        uint32_t seq = atomic_load(&d->seq);
        long ms = CM5I_UNLIKELY(cm5i_clock_orders) && cm5i_clock->irq_watch_ms
                      ? cm5i_clock->irq_watch_ms()
                      : IRQ_WATCH_MS;

        /* (a job on several hosts: the fabric's descriptors too; the
         * pass found nothing left to read, or it ticks below) */
        cm5i_doorbell_wait(seq, (int)ms, 1);
    } else if (nfds && irq.can_sleep) {
        struct pollfd pfd[CM5I_NCH];

        for (int c = 0; c < nfds; c++) {
            pfd[c].fd = irq.fds[c];
            pfd[c].events = POLLIN;
        }
        poll(pfd, (nfds_t)nfds, IRQ_WATCH_MS);
    } else {
        struct timespec ts = {irq.tick_ns / 1000000000L,
                              irq.tick_ns % 1000000000L};

        nanosleep(&ts, NULL);
    }
}

/* The main thread has the runtime: wait until it gives it back. */
static void irq_wait_main(void)
{
    struct timespec ts = {0, IRQ_WATCH_MS * 1000000L};
    uint32_t cur = atomic_load(&irq.owner);

    if (cur != OWN_MAIN)
        return;
    atomic_store(&irq.waiting, 1);
    irq_futex(&irq.owner, FUTEX_WAIT_PRIVATE, cur, &ts);
}

static void *irq_thread(void *arg)
{
    sigset_t all;
    int again = 0;

    (void)arg;
    irq_self = 1;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the main thread */
    for (;;) {
        int r;

        pthread_mutex_lock(&irq.lock);
        if (!irq.enabled) {
            irq.parked = 1;
            pthread_cond_broadcast(&irq.cond); /* cm5i_irq_quiesce */
            while (!irq.enabled)
                pthread_cond_wait(&irq.cond, &irq.lock);
            irq.parked = 0;
        }
        pthread_mutex_unlock(&irq.lock);
        if (!again)
            irq_watch();
        r = irq_pass();
        if (r < 0)
            irq_wait_main();
        again = r > 0 ? irq_raise() : 0;
    }
    return NULL;
}

static int irq_parse_signal(const char *s)
{
    static const struct {
        const char *name;
        int sig;
    } names[] = {{"SIGURG", SIGURG},   {"SIGUSR1", SIGUSR1},
                 {"SIGUSR2", SIGUSR2}, {"SIGIO", SIGIO},
                 {"SIGPWR", SIGPWR},   {"SIGWINCH", SIGWINCH}};
    char *end;
    long n;

    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (strcmp(s, names[i].name) == 0 || strcmp(s, names[i].name + 3) == 0)
            return names[i].sig;
    n = strtol(s, &end, 10);
    return *s && !*end && n > 0 && n < NSIG && n != SIGKILL && n != SIGSTOP
               ? (int)n
               : -1;
}

/* Read at start-up, so a bad value stops the node there rather than at
 * the first CMAML_enable_interrupts. */
void cm5i_irq_config(void)
{
    const char *name = cm5i_config_str(CM5_ENV_INTERRUPT_SIGNAL);

    irq.sig = irq_parse_signal(name);
    if (irq.sig < 0)
        cm5i_config_error("%s=%s is not a usable signal",
                          CM5_ENV_INTERRUPT_SIGNAL, name);
    irq.tick_ns =
        cm5i_config_long(CM5_ENV_INTERRUPT_TICK_US, 10, 10000000) * 1000L;
}

static cm5_status_t irq_start(void)
{
    struct sigaction sa;

    if (irq.sig <= 0)
        return CM5_ERR_INVALID; /* cm5i_irq_config said why */
    if (cm5i_am_sendq_setup() != CM5_OK) {
        cm5i_log(CM5I_LOG_ERROR, "irq", "out of memory");
        return CM5_ERR_NO_MEMORY;
    }
    memset(&sa, 0, sizeof(sa));
    irq.nunsafe = 0;
    dl_iterate_phdr(irq_find_unsafe, NULL);
    sa.sa_sigaction = irq_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(irq.sig, &sa, NULL)) {
        cm5i_log(CM5I_LOG_ERROR, "irq", "sigaction: %m");
        return CM5_ERR_INVALID;
    }
    irq.main = pthread_self();
    if (pthread_create(&irq.thread, NULL, irq_thread, NULL)) {
        cm5i_log(CM5I_LOG_ERROR, "irq", "cannot start the interrupt thread");
        return CM5_ERR_NO_MEMORY;
    }
    pthread_detach(irq.thread);
    irq.started = 1;
    return CM5_OK;
}

/* Interrupts are disabled: wait (up to 1 s) until the thread is parked,
 * so that finalize can unmap the doorbell and close the endpoints it
 * watches.  A thread still busy then is left alone, and said. */
void cm5i_irq_quiesce(void)
{
    struct timespec until;
    int parked;

    if (!irq.started)
        return;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_mutex_lock(&irq.lock);
    while (!irq.parked && !irq.enabled &&
           pthread_cond_timedwait(&irq.cond, &irq.lock, &until) == 0)
        ;
    parked = irq.parked;
    pthread_mutex_unlock(&irq.lock);
    if (!parked)
        cm5i_log(CM5I_LOG_WARN, "irq",
                 "the interrupt thread did not stop "
                 "within 1 s of finalize");
}

cm5_status_t cm5_interrupts_enable(void)
{
    CM5I_GUARD();
    cm5_status_t st;

    cm5i_ensure_init();
    if (!irq.started && (st = irq_start()) != CM5_OK)
        return st;
    if (!pthread_equal(irq.main, pthread_self()))
        return CM5_ERR_STATE; /* interrupts go to the node's main thread */
    if (irq.enabled)
        return CM5_OK;
    cm5i_guard_irq(cm5i_irq_acquire, cm5i_irq_leave);
    cm5i_irq_acquire(); /* given to the thread as the outermost call ends */
    if (cm5i_wait_doorbell())
        atomic_store(&cm5i_wait_doorbell()->irq, 1);
    pthread_mutex_lock(&irq.lock);
    irq.enabled = 1;
    cm5i_irq_active = 1;
    pthread_cond_signal(&irq.cond);
    pthread_mutex_unlock(&irq.lock);
    cm5i_irq_pending = 1; /* serve whatever is already there */
    /* Synchronised virtual time: that is a probe, which costs its poll
     * (a loop that enables and disables interrupts around computations
     * under the CPU floor waits that way for its handlers). */
    if (CM5I_UNLIKELY(cm5i_clock_orders))
        (void)cm5i_ev_probe();
    return CM5_OK;
}

void cm5_interrupts_disable(void)
{
    CM5I_GUARD(); /* takes the runtime back from the thread */

    pthread_mutex_lock(&irq.lock);
    irq.enabled = 0;
    cm5i_irq_active = 0;
    pthread_mutex_unlock(&irq.lock);
    if (cm5i_wait_doorbell())
        atomic_store(&cm5i_wait_doorbell()->irq, 0);
    cm5i_irq_pending = 0;
    if (irq.started)
        cm5i_log(CM5I_LOG_INFO, "irq",
                 "so far: %lu signals (%lu ran handlers, %lu found the "
                 "node in the runtime, %lu refused), %lu progress passes",
                 atomic_load(&irq.count.signals), atomic_load(&irq.count.taken),
                 atomic_load(&irq.count.held), atomic_load(&irq.count.refused),
                 atomic_load(&irq.count.passes));
}

int cm5_interrupts_enabled(void) { return irq.enabled; }

void cm5_interrupts_hold(void) { cm5i_guard_enter(); }

void cm5_interrupts_resume(void)
{
    if (cm5i_rt_depth <= 0)
        cm5_fatal("cm5_interrupts_resume", "interrupts are not held");
    cm5i_guard_leave(NULL);
}

int cm5_in_interrupt(void) { return irq.inside; }
