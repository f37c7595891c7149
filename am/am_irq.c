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
 */
#include <errno.h>
#include <linux/futex.h>
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
} irq = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

void cm5i_irq_deliver(void)
{
    int saved = errno;

    cm5i_irq_pending = 0;
    if (!irq.enabled || cm5i_ctx.in_handler || !cm5i_ctx.ready) {
        errno = saved;
        return;
    }
    cm5i_rt_depth++;
    irq.inside = 1;
    cm5i_progress(CM5I_CH_ALL);
    irq.inside = 0;
    cm5i_rt_depth--;
    errno = saved;
}

static void irq_signal(int sig)
{
    (void)sig;
    if (cm5i_rt_depth > 0 || irq.inside) {
        cm5i_irq_pending = 1; /* delivered when the runtime call returns */
        return;
    }
    cm5i_irq_deliver();
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
        if (irq.enabled && !cm5i_irq_pending)
            pthread_kill(irq.main, irq.sig);
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
    sa.sa_handler = irq_signal;
    sa.sa_flags = SA_RESTART;
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

int cm5_in_interrupt(void)
{
    return irq.inside;
}
