/*
 * CMMD partition, barrier, node timers, errors and I/O modes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"

int CMMD_self_address(void)
{
    return cm5_rank();
}

int CMMD_partition_size(void)
{
    return cm5_size();
}

void CMMD_sync_with_nodes(void)
{
    cm5_status_t st = cm5_barrier();

    if (st != CM5_OK)
        cm5_fatal("CMMD_sync_with_nodes", "%s",
                  st != CM5_ERR_STATE  ? cm5_status_string(st)
                  : cm5_in_handler()   ? "called from inside a handler"
                                       : "a split-phase synchronization is "
                                         "still open");
}

/* ---- timers ---- */

typedef struct {
    int running;
    double wall0, cpu0; /* at the last start */
    double wall, cpu;   /* accumulated */
} cmmd_timer_t;

static cmmd_timer_t cmmd_timers[CMMD_NUM_TIMERS];

static cmmd_timer_t *cmmd_timer(const char *call, int t)
{
    if (t < 0 || t >= CMMD_NUM_TIMERS)
        cm5_fatal(call, "timer %d does not exist (timers are 0..%d)", t,
                  CMMD_NUM_TIMERS - 1);
    return &cmmd_timers[t];
}

void CMMD_node_timer_clear(int t)
{
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_clear", t);

    memset(tm, 0, sizeof(*tm));
}

void CMMD_node_timer_start(int t)
{
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_start", t);

    tm->running = 1;
    tm->wall0 = cm5_wtime();
    tm->cpu0 = cm5_cputime();
}

void CMMD_node_timer_stop(int t)
{
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_stop", t);

    if (!tm->running)
        return;
    tm->wall += cm5_wtime() - tm->wall0;
    tm->cpu += cm5_cputime() - tm->cpu0;
    tm->running = 0;
}

/* A running timer reads as its total so far, as if stopped now. */
double CMMD_node_timer_elapsed(int t)
{
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_elapsed", t);

    return tm->wall + (tm->running ? cm5_wtime() - tm->wall0 : 0.0);
}

double CMMD_node_timer_busy(int t)
{
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_busy", t);

    return tm->cpu + (tm->running ? cm5_cputime() - tm->cpu0 : 0.0);
}

/* ---- errors and I/O ---- */

void CMMD_error(const char *format, ...)
{
    char msg[1024];
    size_t n;
    va_list ap;

    va_start(ap, format);
    vsnprintf(msg, sizeof(msg), format ? format : "(null)", ap);
    va_end(ap);
    n = strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        msg[--n] = '\0';
    cm5_fatal("CMMD_error", "%s", msg);
}

int CMMD_fset_io_mode(FILE *stream, CMMD_io_mode_t mode)
{
    if (!stream)
        cm5_fatal("CMMD_fset_io_mode", "stream is a null pointer");
    switch (mode) {
    case CMMD_independent:
    case CMMD_sync_seq:
    case CMMD_sync_bc:
    case CMMD_local:
        /* Each node writes whole lines: cm5run forwards them unmixed. */
        setvbuf(stream, NULL, _IOLBF, BUFSIZ);
        return 0;
    }
    cm5_fatal("CMMD_fset_io_mode", "unknown I/O mode %d", (int)mode);
}
