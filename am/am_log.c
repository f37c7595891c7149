/*
 * Logging to stderr, one whole line per write so nodes do not interleave.
 */
#include "am_log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
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
        n = snprintf(line, sizeof(line), "cm5[host:%d] %s %s: ",
                     (int)getpid(), log_names[level], subsys);
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
