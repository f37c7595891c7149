/*
 * Interrupt mode, emulated: a progress thread watches for arrivals and
 * signals the main thread; the signal handler runs the handlers in the
 * main thread, like the CM-5's network interrupt -- unless the main
 * thread is inside the runtime (cm5i_rt_depth > 0), in which case the
 * interrupt is remembered and delivered when the runtime call returns.
 *
 * The thread never touches the endpoints (they are single-threaded): on a
 * cm5run job it sleeps on this node's doorbell, which senders ring while
 * interrupts are armed; otherwise it wakes every CM5_INTERRUPT_TICK_US.
 *
 * Handlers (and the runtime under them) allocate memory and take locks,
 * which is not safe from a signal that interrupted the C library or the
 * dynamic loader (malloc holding its arena lock, say).  The signal handler
 * therefore looks where the main thread was: inside libc, libpthread or
 * ld.so the interrupt is refused, and the thread signals again shortly
 * after, until it lands in the program's own code.
 */
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
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
#include "am_internal.h"

volatile sig_atomic_t cm5i_rt_depth;
volatile sig_atomic_t cm5i_irq_pending;

static struct {
    volatile sig_atomic_t enabled;
    volatile sig_atomic_t inside;
    int started;
    int sig;
    long tick_ns;
    pthread_t main, thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_int answer; /* IRQ_ASKED, IRQ_TAKEN or IRQ_REFUSED */
    int nunsafe;
    struct {
        uintptr_t lo, hi;
    } unsafe[16]; /* code where an interrupt must not run handlers */
} irq = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* from_signal: run the handlers as an interrupt; otherwise the runtime
 * call that held the interrupt serves them itself as it returns (they are
 * then polled handlers: a CMMD call never looks interrupted to them). */
static void irq_run(int from_signal)
{
    int saved = errno;

    cm5i_irq_pending = 0;
    if (!irq.enabled || cm5i_ctx.in_handler || !cm5i_ctx.ready) {
        errno = saved;
        return;
    }
    cm5i_rt_depth++;
    irq.inside = from_signal;
    cm5i_progress(CM5I_CH_ALL);
    irq.inside = 0;
    cm5i_rt_depth--;
    errno = saved;
}

void cm5i_irq_deliver(void)
{
    irq_run(0);
}

enum { IRQ_IDLE, IRQ_ASKED, IRQ_TAKEN, IRQ_REFUSED };

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

static void irq_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    if (cm5i_rt_depth > 0 || irq.inside) {
        cm5i_irq_pending = 1; /* delivered when the runtime call returns */
        atomic_store(&irq.answer, IRQ_TAKEN);
        return;
    }
    if (irq_unsafe(irq_pc(uc))) {
        atomic_store(&irq.answer, IRQ_REFUSED);
        return;
    }
    atomic_store(&irq.answer, IRQ_TAKEN);
    irq_run(1);
}

/* Text segments of the C library, libpthread and the dynamic loader. */
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
        strncmp(base, "ld-linux", 8) && strncmp(base, "ld.so", 5))
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

/* Signal the main thread until it takes the interrupt (or it is no
 * longer wanted). */
static void irq_raise(void)
{
    struct timespec brief = {0, 50 * 1000L};

    while (irq.enabled && !cm5i_irq_pending) {
        int a;

        atomic_store(&irq.answer, IRQ_ASKED);
        pthread_kill(irq.main, irq.sig);
        for (int spins = 0;
             (a = atomic_load(&irq.answer)) == IRQ_ASKED && spins < 200;
             spins++)
            nanosleep(&brief, NULL);
        if (a != IRQ_REFUSED)
            return; /* taken, or the main thread is busy: next arrival */
        nanosleep(&brief, NULL);
    }
}

static void irq_sleep(void)
{
    cm5i_doorbell_t *d =
        cm5i_ctx.doorbell ? &cm5i_ctx.doorbell[cm5i_ctx.rank] : NULL;
    struct timespec ts = {irq.tick_ns / 1000000000L,
                          irq.tick_ns % 1000000000L};

    if (d) {
        uint32_t seq = atomic_load(&d->seq);
        struct timespec slow = {0, 100 * 1000000L}; /* safety net */

        syscall(SYS_futex, (uint32_t *)&d->seq, FUTEX_WAIT, seq, &slow, NULL,
                0);
        return;
    }
    nanosleep(&ts, NULL);
}

static void *irq_thread(void *arg)
{
    sigset_t all;

    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the main thread */
    for (;;) {
        pthread_mutex_lock(&irq.lock);
        while (!irq.enabled)
            pthread_cond_wait(&irq.cond, &irq.lock);
        pthread_mutex_unlock(&irq.lock);
        irq_sleep();
        irq_raise();
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

static cm5_status_t irq_start(void)
{
    struct sigaction sa;
    const char *name = cm5i_config_str("CM5_INTERRUPT_SIGNAL");

    irq.sig = irq_parse_signal(name);
    if (irq.sig < 0) {
        cm5i_log(CM5I_LOG_ERROR, "irq", "CM5_INTERRUPT_SIGNAL=%s is not a "
                 "usable signal", name);
        return CM5_ERR_INVALID;
    }
    irq.tick_ns =
        cm5i_config_long("CM5_INTERRUPT_TICK_US", 10, 10000000) * 1000L;
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

cm5_status_t cm5_interrupts_enable(void)
{
    cm5_status_t st;

    CM5I_GUARD();
    cm5i_ensure_init();
    if (!irq.started && (st = irq_start()) != CM5_OK)
        return st;
    if (!pthread_equal(irq.main, pthread_self()))
        return CM5_ERR_STATE; /* interrupts go to the node's main thread */
    if (cm5i_ctx.doorbell)
        atomic_store(&cm5i_ctx.doorbell[cm5i_ctx.rank].irq, 1);
    pthread_mutex_lock(&irq.lock);
    irq.enabled = 1;
    pthread_cond_signal(&irq.cond);
    pthread_mutex_unlock(&irq.lock);
    cm5i_irq_pending = 1; /* serve whatever is already there */
    return CM5_OK;
}

void cm5_interrupts_disable(void)
{
    pthread_mutex_lock(&irq.lock);
    irq.enabled = 0;
    pthread_mutex_unlock(&irq.lock);
    if (cm5i_ctx.doorbell)
        atomic_store(&cm5i_ctx.doorbell[cm5i_ctx.rank].irq, 0);
    cm5i_irq_pending = 0;
}

int cm5_interrupts_enabled(void)
{
    return irq.enabled;
}

void cm5_interrupts_hold(void)
{
    cm5i_rt_depth++;
}

void cm5_interrupts_resume(void)
{
    if (cm5i_rt_depth <= 0)
        cm5_fatal("cm5_interrupts_resume", "interrupts are not held");
    if (--cm5i_rt_depth == 0 && cm5i_irq_pending)
        cm5i_irq_deliver();
}

int cm5_in_interrupt(void)
{
    return irq.inside;
}
