/*
 * The deadlock check's verdict, in words (waits.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "waits.h"

#include <stdio.h>

#include "boot_proto.h"

static const char *const wait_names[] = {"no wait",
#define WAIT_NAME(k, name, blocked) name,
                                         CM5_WAITS(WAIT_NAME)
#undef WAIT_NAME
};

/* Append to buf at *len (snprintf's rules: the length it would have). */
#define PUT(...)                                                               \
    (*len +=                                                                   \
     (size_t)snprintf(buf + *len, size > *len ? size - *len : 0, __VA_ARGS__))

/* The nodes waiting in k, as ranges: " 0-5, 7". */
static void waits_ranges(const uint32_t *wait, int nodes, uint32_t k, char *buf,
                         size_t size, size_t *len)
{
    for (int i = 0, first = 1; i < nodes; i++) {
        int e = i;

        if (wait[i] != k)
            continue;
        while (e + 1 < nodes && wait[e + 1] == k)
            e++;
        PUT(e > i ? "%s%d-%d" : "%s%d", first ? " " : ", ", i, e);
        first = 0;
        i = e;
    }
}

void cm5_waits_describe(const uint32_t *wait, int nodes, int host, char *buf,
                        size_t size)
{
    size_t n = 0, *len = &n;

    if (size)
        buf[0] = '\0';
    for (uint32_t k = 1; k < CM5_WAIT_KINDS; k++) {
        int count = 0, in_host = host >= 0 && wait[host] == k;

        for (int i = 0; i < nodes; i++)
            count += wait[i] == k;
        if (!count && !in_host)
            continue;
        PUT("%s", n ? "; " : "");
        if (count)
            PUT("node%s", count > 1 ? "s" : "");
        waits_ranges(wait, nodes, k, buf, size, len);
        if (in_host)
            PUT("%sthe host program", count ? " and " : "");
        PUT(" in %s", wait_names[k]);
    }
}
