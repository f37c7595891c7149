/*
 * CMMD partition, barrier, node timers, errors and I/O modes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

const char *cm5c_state_error(cm5_status_t st)
{
    if (st != CM5_ERR_STATE)
        return cm5_status_string(st);
    if (cm5_in_handler())
        return "called from inside a handler";
    if (cm5_is_host())
        return "a node-program call, made by the host program (the host "
               "takes part in the host calls: CMMD_bc_from_host, "
               "CMMD_sync_host_with_nodes, ...)";
    if (cm5_rank() >= cm5_size())
        return "this node left the partition (CMMD_reset_partition_size)";
    return "a split-phase synchronization is still open "
           "(CMMD_sync_with_nodes_finish)";
}

void cm5c_check_node(const char *call, int node, int any_ok)
{
    int size = cm5_size(), host = cm5_host_node();

    if ((node >= 0 && node < size) || (node >= 0 && node == host) ||
        (any_ok && node == CMMD_ANY_NODE))
        return;
    cm5_fatal(call, "node %d is outside the partition (0..%d)%s", node,
              size - 1, host >= 0 ? " and is not the host program" : "");
}

int CMMD_self_address(void)
{
    CM5C_HOLD();
    return cm5_rank();
}

int CMMD_partition_size(void)
{
    CM5C_HOLD();
    return cm5_size();
}

void CMMD_sync_with_nodes(void)
{
    CM5C_HOLD();
    cm5_status_t st;

    cm5c_io_sync(); /* sync_seq output so far, in node order */
    st = cm5_barrier();

    if (st != CM5_OK)
        cm5_fatal("CMMD_sync_with_nodes", "%s", cm5c_state_error(st));
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

int CMMD_node_timer_clear(int t)
{
    CM5C_HOLD();
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_clear", t);

    memset(tm, 0, sizeof(*tm));
    return TRUE;
}

int CMMD_node_timer_start(int t)
{
    CM5C_HOLD();
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_start", t);

    if (tm->running) /* restarting keeps what the running interval had */
        CMMD_node_timer_stop(t);
    tm->running = 1;
    tm->wall0 = cm5_wtime();
    tm->cpu0 = cm5_cputime();
    return TRUE;
}

int CMMD_node_timer_stop(int t)
{
    CM5C_HOLD();
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_stop", t);

    if (!tm->running)
        return TRUE;
    tm->wall += cm5_wtime() - tm->wall0;
    tm->cpu += cm5_cputime() - tm->cpu0;
    tm->running = 0;
    return TRUE;
}

/* A running timer reads as its total so far, as if stopped now. */
double CMMD_node_timer_elapsed(int t)
{
    CM5C_HOLD();
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_elapsed", t);

    return tm->wall + (tm->running ? cm5_wtime() - tm->wall0 : 0.0);
}

double CMMD_node_timer_busy(int t)
{
    CM5C_HOLD();
    cmmd_timer_t *tm = cmmd_timer("CMMD_node_timer_busy", t);

    return tm->cpu + (tm->running ? cm5_cputime() - tm->cpu0 : 0.0);
}

/* ---- errors and I/O ---- */

void cm5c_vformat(char *msg, size_t size, const char *format, va_list ap)
{
    size_t n;

    vsnprintf(msg, size, format ? format : "(null)", ap);
    n = strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        msg[--n] = '\0';
}

void CMMD_error(const char *format, ...)
{
    CM5C_HOLD();
    char msg[1024];

    CM5C_FORMAT(msg, format);
    cm5_fatal("CMMD_error", "%s", msg);
}

double CMMD_node_timer_idle(int t)
{
    CM5C_HOLD();
    cmmd_timer("CMMD_node_timer_idle", t);
    return CMMD_node_timer_elapsed(t) - CMMD_node_timer_busy(t);
}

char *CMMD_version(void)
{
    CM5C_HOLD();
    static char v[96];

    snprintf(v, sizeof(v), "CMMD %d.%d (cm5fab %s on libfabric %s)",
             CMMD_VERSION_MAJOR, CMMD_VERSION_MINOR, cm5c_version(),
             cm5_fabric_version());
    return v;
}

void CMMD_poll(void)
{
    CM5C_HOLD();
    cm5_poll();
}

int CMMD_reset_partition_size(int size)
{
    CM5C_HOLD();
    cm5_status_t st;

    cm5c_io_sync();
    st = cm5_partition_resize(size);
    if (st == CM5_ERR_INVALID)
        cm5_fatal("CMMD_reset_partition_size", "size %d is not in 1..%d", size,
                  cm5_size());
    if (st != CM5_OK)
        cm5_fatal("CMMD_reset_partition_size", "%s", cm5c_state_error(st));
    return TRUE;
}

static int cmmd_safety = 1;

void CMMD_enable_safety(void)
{
    CM5C_HOLD();
    cmmd_safety = 1;
}

void CMMD_disable_safety(void)
{
    CM5C_HOLD();
    /* Checks stay on: they are cheap here, and a wrong call must never be
     * silently accepted. */
    cmmd_safety = 0;
}

/* The real call returns char *; the strings are never to be written. */
char *CMMD_error_string(int err)
{
    CM5C_HOLD();
    switch (err) {
    case CMMD_ERR_NONE:
        return (char *)"no error";
    case CMMD_ERR_NO_RPORTS:
        return (char *)"no message control block (MCB) left for another "
                       "asynchronous send or receive: retry after some "
                       "complete";
    case CMMD_ERR_BAD_ARG:
        return (char *)"bad argument";
    }
    return (char *)"unknown CMMD error";
}
