/*
 * The utilities at the bottom of am/ (am_util.h): logging to stderr, one
 * whole line per write so nodes do not interleave; the errors that stop
 * a node; status strings; the real clocks.
 */
#include "am_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

int cm5i_log_level = CM5I_LOG_WARN;
int cm5i_log_rank = -1;
int cm5i_log_host = -1;
int cm5i_log_fd = STDERR_FILENO;

static const char *log_names[] = {"none", "error", "warn", "info", "debug"};

int cm5i_log_parse_level(const char *s)
{
    for (int i = 0; i < (int)(sizeof(log_names) / sizeof(*log_names)); i++)
        if (strcasecmp(s, log_names[i]) == 0)
            return i;
    return -1;
}

void cm5i_vlog(int level, const char *subsys, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    if (level > cm5i_log_level)
        return;
    /* Before the bootstrap says which node this is: "cm5[?:PID]". */
    if (cm5i_log_rank >= 0 && cm5i_log_rank == cm5i_log_host)
        n = snprintf(line, sizeof(line), "cm5[host:%d] %s %s: ", (int)getpid(),
                     log_names[level], subsys);
    else if (cm5i_log_rank >= 0)
        n = snprintf(line, sizeof(line), "cm5[%d:%d] %s %s: ", cm5i_log_rank,
                     (int)getpid(), log_names[level], subsys);
    else
        n = snprintf(line, sizeof(line), "cm5[?:%d] %s %s: ", (int)getpid(),
                     log_names[level], subsys);
    if (n < 0 || n >= (int)sizeof(line) - 2)
        return;
    n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    fflush(stdout);
    if (write(cm5i_log_fd, line, n) < 0)
        return;
}

void cm5i_log(int level, const char *subsys, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cm5i_vlog(level, subsys, fmt, ap);
    va_end(ap);
}

/* ---- errors ---- */

static void (*util_die_fn)(const char *why);

void cm5i_die_register(void (*fn)(const char *why)) { util_die_fn = fn; }

void cm5i_die(const char *why)
{
    if (util_die_fn)
        util_die_fn(why); /* tells the launcher; may not return */
    fflush(NULL);
    _exit(1);
}

void cm5_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    cm5i_log_level =
        cm5i_log_level < CM5I_LOG_ERROR ? CM5I_LOG_ERROR : cm5i_log_level;
    cm5i_vlog(CM5I_LOG_ERROR, call, fmt, ap);
    va_end(ap);
    cm5i_die("cm5fab: a node failed (see above)");
}

/* ---- statuses ---- */

static const char *status_names[] = {
    "success",
    "invalid argument",
    "out of memory",
    "libfabric error",
    "bootstrap failed",
    "node outside the partition",
    "resource busy, try again",
    "handler is not executable code",
    "no usable libfabric provider",
    "call not allowed in this state",
    "peer lost",
};

const char *cm5_status_string(cm5_status_t status)
{
    int i = -(int)status;

    if (i < 0 || i >= (int)(sizeof(status_names) / sizeof(*status_names)))
        return "unknown status";
    return status_names[i];
}

/* ---- clocks ---- */

double cm5_rtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double cm5_cputime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cm5i_rank_list_parse(const char *list, int size, int hosted, int host,
                         unsigned char *near)
{
    const char *p = list;
    int n = 0;

    memset(near, 0, (size_t)size);
    if (!p || !*p)
        return -1;
    for (;;) {
        char *end;
        unsigned long r;
        long k;

        if (*p < '0' || *p > '9')
            break;
        r = strtoul(p, &end, 10);
        /* (PMIx's rank: with a host program, 0 is it, node k is k + 1) */
        k = !hosted ? (long)r : r == 0 ? host : (long)r - 1;
        if (r > (unsigned long)size || k < 0 || k >= size)
            break;
        n += !near[k];
        near[k] = 1;
        if (*end == '\0')
            return n;
        if (*end != ',')
            break;
        p = end + 1;
    }
    memset(near, 0, (size_t)size);
    return -1;
}
