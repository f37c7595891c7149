/*
 * The utilities every module of am/ uses, at the bottom of its layers:
 * calls nothing else of am/.
 *
 *   logging   "cm5[<node>:<pid>] <level> <subsys>: <message>" on stderr
 *   errors    cm5_fatal (public) and cm5i_die: one line, then the die
 *             function the start-up registered (the launcher is told and
 *             the job stops), else _exit(1)
 *   statuses  cm5_status_string (public)
 *   clocks    cm5_rtime, cm5_cputime (public): the real clocks; the
 *             program's clock, cm5_wtime, is virtual time's (am_model.c)
 */
#ifndef CM5_AM_UTIL_H
#define CM5_AM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"

#define CM5I_LIKELY(x) __builtin_expect(!!(x), 1)
#define CM5I_UNLIKELY(x) __builtin_expect(!!(x), 0)

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

/* Append item to the queue (head, tail) linked by item->next. */
#define CM5I_QUEUE_APPEND(head, tail, item)                                    \
    do {                                                                       \
        (item)->next = NULL;                                                   \
        if (tail)                                                              \
            (tail)->next = (item);                                             \
        else                                                                   \
            (head) = (item);                                                   \
        (tail) = (item);                                                       \
    } while (0)
/* Take item, which follows prev (NULL: item is the head), out of it. */
#define CM5I_QUEUE_UNLINK(head, tail, prev, item)                              \
    do {                                                                       \
        if (prev)                                                              \
            (prev)->next = (item)->next;                                       \
        else                                                                   \
            (head) = (item)->next;                                             \
        if ((tail) == (item))                                                  \
            (tail) = (prev);                                                   \
    } while (0)

/* FNV-1a over n bytes, continuing h (start: CM5I_DIGEST_INIT): the
 * modules' digests of their state, which the packet fuzzer compares
 * (tests/fuzz/fuzz_am_rx.c: a dropped packet must change nothing). */
#define CM5I_DIGEST_INIT 0xcbf29ce484222325ull
static inline uint64_t cm5i_digest(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* This node has failed and said why: run the die function (registered
 * once the node has started: abandon the endpoints, remove the job's
 * shared memory, tell the launcher why), then _exit(1). */
CM5_NORETURN void cm5i_die(const char *why);
/* Register it (NULL: none). */
void cm5i_die_register(void (*fn)(const char *why));

/* The launcher's list of the endpoints on this host (PMIx's local
 * peers: its ranks, "0,3,6,9", which with a host program (hosted) are
 * the nodes' plus one, the host program's 0) into near[size]: 1 for each.
 * Returns how many, or -1 if the list is not such a list (near is
 * then all 0). */
int cm5i_rank_list_parse(const char *list, int size, int hosted, int host,
                         unsigned char *near);

#endif
