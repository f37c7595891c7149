/*
 * Logging: "cm5[<node>:<pid>] <level> <subsys>: <message>" on stderr.
 */
#ifndef CM5_AM_LOG_H
#define CM5_AM_LOG_H

#include <stdarg.h>

enum {
    CM5I_LOG_NONE = 0,
    CM5I_LOG_ERROR = 1,
    CM5I_LOG_WARN = 2,
    CM5I_LOG_INFO = 3,
    CM5I_LOG_DEBUG = 4
};

extern int cm5i_log_level;
extern int cm5i_log_rank;
extern int cm5i_log_host; /* this rank logs as "host" */
/* The real stderr, even when the program redirects descriptor 2 (a
 * sync_seq capture): errors must never be held back. */
extern int cm5i_log_fd;

void cm5i_log(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cm5i_vlog(int level, const char *subsys, const char *fmt, va_list ap);
int cm5i_log_parse_level(const char *s);

#endif
