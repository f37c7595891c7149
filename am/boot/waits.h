/*
 * The deadlock check's verdict, in words: what each node waits in, as
 * cm5run (tools/cm5run_deadlock.c, one host) and the nodes themselves
 * (am_alive.c, a job on several hosts) say it.  Part of libcm5spec, which
 * both link.
 */
#ifndef CM5_BOOT_WAITS_H
#define CM5_BOOT_WAITS_H

#include <stddef.h>
#include <stdint.h>

/* "nodes 0-5, 7 in barrier; node 6 and the host program in message
 * completion" into buf (size bytes, always terminated): wait[i] is what
 * node i of nodes waits in; host >= 0: wait[host] is the host
 * program's. */
void cm5_waits_describe(const uint32_t *wait, int nodes, int host, char *buf,
                        size_t size);

#endif
